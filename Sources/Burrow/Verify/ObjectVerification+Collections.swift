import BurrowStorage
import BurrowStore

/// Collections: the trees of list, set and map fields hold elements of objects that exist,
/// keyed as their kind keys them, as many per object as its row counts.
extension ObjectVerification {
    /// Checks every collection tree of the class stored with `id`; `counts` is what its rows
    /// store per collection field and object.
    func checkCollections(_ id: UInt32, counts: [Int: [UInt64: UInt64]]) throws(StorageError) {
        let stored = classes[id]!
        for (field, property) in stored.properties.enumerated() {
            guard let tree = Table.collectionTreeName(id, field, property.collection) else { continue }
            var remaining = counts[field] ?? [:]
            var owner: UInt64?
            var ownerExists = false
            var elements: UInt64 = 0
            func finishOwner() {
                guard let owner else { return }
                guard ownerExists else {
                    note(id, owner, field: field, "the collection tree holds \(counted(elements, "element")) of an object that does not exist")
                    return
                }
                let stored = remaining.removeValue(forKey: owner) ?? 0
                if stored != elements, !isUnreadable(id, owner, field: field) {
                    note(id, owner, field: field, "its row counts \(counted(stored, "element")), but the collection tree holds \(elements)")
                }
            }
            try reader.scan(tree, from: []) { key, value in
                guard key.count > 8 else {
                    noteTree(tree, "holds a key of \(counted(key.count, "byte")), too short for an owner and an element")
                    return true
                }
                let key = key
                let entryOwner = ObjectKey.read(key).rawValue
                if entryOwner != owner {
                    finishOwner()
                    owner = entryOwner
                    ownerExists = keys[id]?.contains(entryOwner) == true
                    elements = 0
                }
                elements += 1
                if ownerExists { checkElement(key, value, property, id, entryOwner, field) }
                return true
            }
            finishOwner()
            for (owner, count) in remaining.sorted(by: { $0.key < $1.key }) where !isUnreadable(id, owner, field: field) {
                note(id, owner, field: field, "its row counts \(counted(count, "element")), but the collection tree holds none")
            }
        }
    }

    /// Checks one entry of collection field `field` of object `owner` of class `id`, and
    /// records the link its element holds.
    private func checkElement(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ property: StoredProperty, _ id: UInt32, _ owner: UInt64,
        _ field: Int
    ) {
        let mapKey: UnsafeRawBufferPointer?
        let element: UnsafeRawBufferPointer
        switch CollectionEntry.parts(key: key, value: value, of: property) {
        case .failure(let problem):
            noteUnreadable(id, owner, field: field, problem.detail)
            return
        case .success(let parts): (mapKey, element) = parts
        }
        if let mapKey {
            guard let text = String(validating: mapKey, as: UTF8.self) else {
                noteUnreadable(id, owner, field: field, "holds a map key that is not valid UTF-8")
                return
            }
            var expected = ObjectKey(owner).bytes
            KeyEncoding.appendBounded(mapKey, to: &expected)
            guard key.elementsEqual(expected) else {
                noteUnreadable(id, owner, field: field, "holds the map key \"\(text)\" under an entry key that does not encode it")
                return
            }
        }
        if !element.isEmpty, let problem = Self.payloadProblem(element, as: property.type) {
            noteUnreadable(id, owner, field: field, "has an element that \(problem)")
            return
        }
        if property.collection == .set {
            var expected = ObjectKey(owner).bytes
            if let link = ValueCodec.linkKey(element, as: property.type) {
                IndexKey.appendLink(table: link.table ?? targetId(property) ?? 0, link.key, to: &expected)
            } else {
                IndexKey.append(Self.indexValue(element.isEmpty ? nil : element, as: property.type), to: &expected)
            }
            guard key.elementsEqual(expected) else {
                noteUnreadable(id, owner, field: field, "holds a set element under an entry key that does not encode it")
                return
            }
        }
        recordLink(element, property, from: id, owner, field: field)
    }
}
