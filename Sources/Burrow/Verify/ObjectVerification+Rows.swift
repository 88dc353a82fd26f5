import BurrowStorage
import BurrowStore

/// Rows: each decodes against its class, and the trees derived from rows (indexes, the
/// primary-key tree, blobs) hold exactly what the rows say.
extension ObjectVerification {
    /// Whether a row's offset table is sound (see `RowCodec`), or what is wrong with it.
    enum RowLayout {
        case fields
        case unreadable(String)
    }

    /// Checks the layout of `row`, a row of a class with `fields` fields in `RowCodec`'s form:
    /// a header of a known offset width whose offsets fit in the row, fields that each end at
    /// or after the one before, and the last ending where the row ends.
    static func rowLayout(_ row: UnsafeRawBufferPointer, fields: Int) -> RowLayout {
        guard let first = row.first else { return .unreadable("its row is empty, too short for its header") }
        guard first & 3 != 3 else { return .unreadable("its row's header names an unknown offset width (code 3)") }
        let count = RowCodec.fieldCount(row)
        let declared = RowCodec.declaredFieldCount(row)
        guard let declared, declared == count else {
            return .unreadable("its row's offset table runs past the row's \(counted(row.count, "byte"))")
        }
        guard count <= fields else { return .unreadable("its row has \(count) fields, but its class has \(fields)") }
        // Each field ends at or after the one before it; the last ends where the row does.
        var end = RowCodec.headerSize(row)
        for field in 0..<count {
            let next = RowCodec.end(row, field)
            guard next >= end else {
                return .unreadable("its row's field \(field) ends at byte \(next), before the field before it ends (\(end))")
            }
            guard next <= row.count else {
                return .unreadable("its row's field \(field) ends at byte \(next), past the row's \(counted(row.count, "byte"))")
            }
            end = next
        }
        if end != row.count {
            return .unreadable("its row holds \(counted(row.count - end, "byte")) after its last field's payload")
        }
        return .fields
    }

    /// Calls `body` with `row`, a row of `stored` in a version of file format `format`, in
    /// `RowCodec`'s form (converted from an older format's) and returns its result, or returns
    /// nil if the row's layout is not sound.
    static func withSoundRow<R>(
        _ row: UnsafeRawBufferPointer, of stored: StoredClass, format: UInt32, _ body: (UnsafeRawBufferPointer) -> R
    ) -> R? {
        let fields = stored.properties.count
        guard format < RowCodec.firstFormat else {
            guard case .fields = rowLayout(row, fields: fields) else { return nil }
            return body(row)
        }
        let kinds = stored.legacyFields
        guard case .fields = legacyRowLayout(row, fields: fields, kinds: kinds, format: format) else { return nil }
        return LegacyRowCodec.withConverted(row, from: format, fields: kinds, body)
    }

    /// Checks the layout of `row`, a row of file format 4 or 5 (`LegacyRowCodec`) of a class
    /// with `fields` fields whose kinds are `kinds`, as `rowLayout` does, and the payloads a
    /// conversion reads: a format-4 integer's 8 bytes, a string's or data's length.
    static func legacyRowLayout(_ row: UnsafeRawBufferPointer, fields: Int, kinds: [LegacyRowCodec.FieldKind], format: UInt32) -> RowLayout {
        let layout = format < 5 ? wideRowLayout(row, fields: fields) : format5RowLayout(row, fields: fields)
        guard case .fields = layout else { return layout }
        for field in 0..<LegacyRowCodec.fieldCount(row, format: format) {
            guard let payload = LegacyRowCodec.field(row, field, format: format) else { continue }
            switch kinds[field] {
            case .integer where format < 5 && payload.count != 8:
                return .unreadable("its row's field \(field) holds \(counted(payload.count, "byte")) where an integer takes 8")
            case .text:
                guard payload.count >= 4 else {
                    return .unreadable("its row's field \(field) holds \(counted(payload.count, "byte")), too few for a length")
                }
                let length = ValueCodec.u32(payload, 0)
                if length == ValueCodec.externalMarker, payload.count == 4 { continue }
                if Int(length) != payload.count - 4 {
                    return .unreadable(
                        "its row's field \(field) says its value is \(counted(Int(length), "byte")) long, but holds \(payload.count - 4)")
                }
            default: continue
            }
        }
        return .fields
    }

    /// Checks the layout of `row`, a row of file format 5, as `rowLayout` does: that format's
    /// header has an offset for the last field too.
    static func format5RowLayout(_ row: UnsafeRawBufferPointer, fields: Int) -> RowLayout {
        guard let first = row.first else { return .unreadable("its row is empty, too short for its header") }
        guard first & 3 != 3, let header = LegacyRowCodec.Format5Header(row) else {
            return .unreadable("its row's header names an unknown offset width (code 3)")
        }
        let count = header.count
        guard LegacyRowCodec.fieldCount(row, format: 5) == count else {
            return .unreadable("its row's offset table runs past the row's \(counted(row.count, "byte"))")
        }
        guard count <= fields else { return .unreadable("its row has \(count) fields, but its class has \(fields)") }
        var end = header.payloadsStart
        for field in 0..<count {
            let next = header.end(row, field)
            guard next >= end, next <= row.count else {
                return .unreadable("its row's field \(field) ends at byte \(next), outside the payloads (\(end) to \(row.count))")
            }
            end = next
        }
        if end != row.count {
            return .unreadable("its row holds \(counted(row.count - end, "byte")) after its last field's payload")
        }
        return .fields
    }

    /// Checks the layout of `row`, a row of file format 4 of a class with `fields` fields, as
    /// `rowLayout` does.
    static func wideRowLayout(_ row: UnsafeRawBufferPointer, fields: Int) -> RowLayout {
        guard row.count >= 4 else { return .unreadable("its row is \(counted(row.count, "byte")), too short for its field count") }
        let count = Int(ValueCodec.u32(row, 0))
        guard count <= fields else { return .unreadable("its row has \(count) fields, but its class has \(fields)") }
        let header = 4 + 4 * count
        guard header <= row.count else { return .unreadable("its row's offset table runs past the row's \(counted(row.count, "byte"))") }
        // Payloads in field order, each non-empty, the first right after the offset table.
        var end = header
        for field in 0..<count {
            let offset = Int(ValueCodec.u32(row, 4 + 4 * field))
            guard offset != 0 else { continue }
            if end == header {
                guard offset == header else {
                    return .unreadable("its row's first payload starts at byte \(offset), not right after the offset table (\(header))")
                }
            } else {
                guard offset >= end else {
                    return .unreadable("its row's field \(field) starts at byte \(offset), before the end of the field before it")
                }
            }
            guard offset < row.count else {
                return .unreadable("its row's field \(field) starts at byte \(offset), past the row's \(counted(row.count, "byte"))")
            }
            end = offset + 1
        }
        if end == header, row.count != header {
            return .unreadable("its row holds \(counted(row.count - header, "byte")) after its offset table, but every field is null")
        }
        return .fields
    }

    /// What is wrong with `payload` as a value of `type`, or nil if it is one: exactly as many
    /// bytes as the type takes, a Bool 0 or 1, a string valid UTF-8, a known `AnyRealmValue` tag.
    /// `inRow`: the payload is a row field's (`RowCodec`), whose `Int` takes the fewest bytes
    /// that hold it, where an element's takes 8.
    static func payloadProblem(_ payload: UnsafeRawBufferPointer, as type: PropertyType, inRow: Bool = false) -> String? {
        let lengthProblem = inRow ? RowCodec.lengthProblem(payload, as: type) : ValueCodec.lengthProblem(payload, as: type)
        if let lengthProblem { return lengthProblem }
        switch type {
        case .int:
            guard inRow, let value = ValueCodec.int(payload) else { return nil }
            let needed = ValueCodec.narrowIntSize(value)
            return payload.count == needed ? nil : "holds the Int \(value) in \(counted(payload.count, "byte")), where it takes \(needed)"
        case .bool:
            return payload[0] <= 1 ? nil : "holds \(payload[0]) where a Bool holds 0 or 1"
        case .string:
            guard let text = inRow ? RowCodec.text(payload) : UnsafeRawBufferPointer(rebasing: payload[4...]) else { return nil }
            return String(validating: text, as: UTF8.self) == nil ? "holds a string that is not valid UTF-8" : nil
        case .any:
            guard let tag = ValueCodec.Tag(rawValue: payload[0]), tag != .null, tag != .link else { return nil }
            guard tag.isCollection else {
                // One level: a scalar tag's type is never `.any`.
                return payloadProblem(UnsafeRawBufferPointer(rebasing: payload[1...]), as: tag.propertyType)
            }
            // The lengths and depth are sound (`lengthProblem`): each value inside, with a loop.
            var found: String?
            NestedValues.forEachLeaf(of: payload, shape: { ValueCodec.nestedParts($0) ?? .leaf }) { leaf in
                if found == nil, let problem = payloadProblem(leaf, as: .any) { found = "holds a nested value that \(problem)" }
            }
            return found
        default: return nil
        }
    }

    /// The value an index or primary key holds for `payload`, a sound payload of `type` (a row
    /// field's when `inRow`; links are not indexed: they read as nil, as `Realm.indexValue` has
    /// it).
    static func indexValue(_ payload: UnsafeRawBufferPointer?, as type: PropertyType, inRow: Bool = false) -> _StoredValue {
        guard let payload else { return .null }
        if inRow { return RowCodec.decode(payload, as: type, linkTarget: 0) { _, _ in .null } }
        return ValueCodec.decode(payload, as: type, linkTarget: 0) { _, _ in .null }
    }

    /// Records the link in `payload`, a sound payload of `property` held by field `field` of
    /// object `source` of class `id` (a row field or a collection element), if it holds one.
    func recordLink(_ payload: UnsafeRawBufferPointer, _ property: StoredProperty, from id: UInt32, _ source: UInt64, field: Int) {
        if property.type == .any {
            // Its own link, or every link its lists and dictionaries hold.
            ValueCodec.forEachLink(inAny: payload) { table, key in record((table, key), property, from: id, source, field: field) }
        } else if let link = ValueCodec.linkKey(payload, as: property.type) {
            record(link, property, from: id, source, field: field)
        }
    }

    /// Records one link, to object `link.key` of class `link.table` (or of the property's
    /// class), held by field `field` of object `source` of class `id`.
    private func record(_ link: (table: UInt32?, key: ObjectKey), _ property: StoredProperty, from id: UInt32, _ source: UInt64, field: Int) {
        guard let targetTable = link.table ?? targetId(property) else {
            note(id, source, field: field, "links to class '\(property.objectClassName ?? "")', which the schema does not have")
            return
        }
        guard let target = classes[targetTable] else {
            note(id, source, field: field, "links to class id \(targetTable), which the schema does not have")
            return
        }
        if keys[targetTable]?.contains(link.key.rawValue) != true {
            note(id, source, field: field, "links to \(target.name) #\(link.key.rawValue), which does not exist")
        }
        links[
            Link(targetTable: targetTable, target: link.key.rawValue, sourceTable: id, field: UInt16(truncatingIfNeeded: field), source: source),
            default: 0] += 1
        if target.isEmbedded { parents[targetTable, default: [:]][link.key.rawValue, default: 0] += 1 }
    }

    /// What the rows of one class say the trees derived from them must hold.
    private struct Expected {
        /// Per indexed field: the index entries its objects need.
        var index: [Int: Set<[UInt8]>] = [:]
        /// Per indexed field: objects whose value could not be read (their entries are not judged).
        var unreadable: [Int: Set<UInt64>] = [:]
        /// Each primary key met (in index-key form) and its first object.
        var primaryKeys: [[UInt8]: UInt64] = [:]
        /// The primary-key tree entries needed: objects not at their derived key.
        var primaryKeyEntries: [[UInt8]: UInt64] = [:]
        /// Per collection field: each object's stored element count.
        var counts: [Int: [UInt64: UInt64]] = [:]
        /// Blob-tree keys the rows refer to.
        var blobs: Set<[UInt8]> = []
    }

    /// The fields of class `stored` that have an index tree of their own.
    static func indexedFields(_ stored: StoredClass) -> [Int] {
        stored.properties.indices.filter {
            let property = stored.properties[$0]
            return property.isIndexed && !property.isPrimary && property.collection == .single
        }
    }

    /// Checks every row of the class stored with `id`, then its index, primary-key and blob
    /// trees against them. Returns the element counts the rows store, per collection field
    /// and object, for `checkCollections`.
    func checkRows(_ id: UInt32) throws(StorageError) -> [Int: [UInt64: UInt64]] {
        let stored = classes[id]!
        let indexed = Self.indexedFields(stored)
        let primaryKeyField = stored.isEmbedded ? nil : stored.properties.firstIndex(where: \.isPrimary)
        var expected = Expected()
        var failure: StorageError?
        let format = reader.rowFormat
        let kinds = stored.legacyFields
        /// Checks the fields of `row` (in `RowCodec`'s form), a row of object `key`; false stops
        /// the scan (after a read failed).
        func checkFields(_ row: UnsafeRawBufferPointer, _ key: UInt64) -> Bool {
            for (field, property) in stored.properties.enumerated() {
                let payload = RowCodec.field(row, field)
                guard property.collection == .single else {
                    guard let payload else { continue }
                    if let problem = Self.payloadProblem(payload, as: .int, inRow: true) {
                        noteUnreadable(id, key, field: field, "holds an element count that \(problem)")
                    } else if let count = ValueCodec.int(payload), count > 0 {
                        expected.counts[field, default: [:]][key] = UInt64(count)
                    } else {
                        noteUnreadable(
                            id, key, field: field,
                            "holds the element count \(ValueCodec.int(payload) ?? 0); a collection's field is null when it is empty")
                    }
                    continue
                }
                let value: _StoredValue?
                if let payload, RowCodec.isExternal(payload, as: property.type) {
                    let blobKey = ObjectStore.blobKey(ObjectKey(key), field)
                    expected.blobs.insert(blobKey)
                    let blobValue: _StoredValue??
                    do throws(StorageError) {
                        blobValue = try reader.withValue(TreeName(.blobs, id), blobKey) { checkValue($0, property, id, key, field, inRow: false) }
                    } catch {
                        failure = error
                        return false
                    }
                    if let blobValue {
                        value = blobValue
                    } else {
                        noteUnreadable(id, key, field: field, "refers to a long value kept outside its row, but the blob tree does not hold it")
                        value = nil
                    }
                } else {
                    value = checkValue(payload, property, id, key, field)
                }
                if indexed.contains(field) {
                    if let value {
                        expected.index[field, default: []].insert(IndexKey.entry(value, ObjectKey(key)))
                    } else {
                        expected.unreadable[field, default: []].insert(key)
                    }
                }
                if field == primaryKeyField, let value {
                    let primaryKey = IndexKey.encode(value)
                    if let other = expected.primaryKeys[primaryKey] {
                        note(id, key, field: field, "has the same primary key as \(stored.name) #\(other)")
                    } else {
                        expected.primaryKeys[primaryKey] = key
                    }
                    if ObjectKey(derivedFrom: value).rawValue != key { expected.primaryKeyEntries[primaryKey] = key }
                }
            }
            return true
        }
        try reader.scan(TreeName(.rows, id), from: []) { keyBytes, row in
            guard keyBytes.count == 8 else { return true }  // Noted by `collectKeys`.
            let key = ObjectKey.read(keyBytes).rawValue
            let layout =
                format < RowCodec.firstFormat
                ? Self.legacyRowLayout(row, fields: stored.properties.count, kinds: kinds, format: format)
                : Self.rowLayout(row, fields: stored.properties.count)
            if case .unreadable(let problem) = layout {
                noteUnreadable(id, key, field: nil, problem)
                for field in indexed { expected.unreadable[field, default: []].insert(key) }
                return true
            }
            guard format < RowCodec.firstFormat else { return checkFields(row, key) }
            return LegacyRowCodec.withConverted(row, from: format, fields: kinds) { checkFields($0, key) }
        }
        if let failure { throw failure }
        for field in indexed {
            try checkIndex(id, field, needed: expected.index[field] ?? [], unreadable: expected.unreadable[field] ?? [])
        }
        try checkPrimaryKeyTree(id, field: primaryKeyField, needed: expected.primaryKeyEntries)
        try checkBlobs(id, referenced: expected.blobs)
        return expected.counts
    }

    /// Checks `payload` (nil for null), the payload of single field `field` of object `key` as
    /// its row holds it (`inRow`) or as the blob tree does, and records its link. Returns the
    /// value its index would hold, or nil if it is not sound.
    private func checkValue(
        _ payload: UnsafeRawBufferPointer?, _ property: StoredProperty, _ id: UInt32, _ key: UInt64, _ field: Int, inRow: Bool = true
    ) -> _StoredValue? {
        guard let payload else {
            if !property.isOptional, property.type != .object, property.type != .any {
                note(id, key, field: field, "is nil, but the property (\(property.summary)) is not optional")
            }
            return .null
        }
        if let problem = Self.payloadProblem(payload, as: property.type, inRow: inRow) {
            noteUnreadable(id, key, field: field, problem)
            return nil
        }
        recordLink(payload, property, from: id, key, field: field)
        return Self.indexValue(payload, as: property.type, inRow: inRow)
    }

    /// Checks that index tree `index/<id>/<field>` holds exactly the entries `needed`, leaving
    /// alone entries of objects whose value could not be read.
    private func checkIndex(_ id: UInt32, _ field: Int, needed: Set<[UInt8]>, unreadable: Set<UInt64>) throws(StorageError) {
        var needed = needed
        try reader.scan(TreeName(.index, id, field: field), from: []) { entry, value in
            guard entry.count > 8 else {
                note(id, nil, field: field, "its index holds a key of \(counted(entry.count, "byte")), too short to name an object")
                return true
            }
            let key = ObjectKey.read(entry, at: entry.count - 8).rawValue
            if !value.isEmpty {
                note(id, key, field: field, "its index entry holds a value of \(counted(value.count, "byte")); index entries hold none")
            }
            if needed.remove(Array(entry)) != nil || unreadable.contains(key) { return true }
            if keys[id]?.contains(key) == true {
                note(id, key, field: field, "the index holds an entry for a value the object does not have")
            } else {
                note(id, key, field: field, "the index holds an entry for an object that does not exist")
            }
            return true
        }
        for entry in needed.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let key = entry.withUnsafeBytes { ObjectKey.read($0, at: $0.count - 8).rawValue }
            note(id, key, field: field, "the index has no entry for the object's value")
        }
    }

    /// Checks that the primary-key tree of class `id` lists exactly the objects `needed`
    /// (primary key in index-key form → object key).
    private func checkPrimaryKeyTree(_ id: UInt32, field: Int?, needed: [[UInt8]: UInt64]) throws(StorageError) {
        var needed = needed
        try reader.scan(TreeName(.primaryKey, id), from: []) { primaryKey, value in
            guard value.count == 8 else {
                note(id, nil, field: field, "its primary-key tree holds a value of \(counted(value.count, "byte")); object keys are 8")
                return true
            }
            let key = ObjectKey.read(value).rawValue
            if let object = needed[Array(primaryKey)], object == key {
                needed[Array(primaryKey)] = nil
            } else if isUnreadable(id, key, field: field ?? -1) {
                return true
            } else if keys[id]?.contains(key) == true {
                note(
                    id, key, field: field,
                    "the primary-key tree lists the object under a primary key it does not have, or though it is at the key its primary key derives")
            } else {
                note(id, key, field: field, "the primary-key tree lists an object that does not exist")
            }
            return true
        }
        for key in needed.values.sorted() {
            note(id, key, field: field, "the object is not at the key its primary key derives, and the primary-key tree does not list it")
        }
    }

    /// Checks that the blob tree of class `id` holds only blobs its rows refer to (the rows'
    /// references were checked against it while reading them).
    private func checkBlobs(_ id: UInt32, referenced: Set<[UInt8]>) throws(StorageError) {
        try reader.scan(TreeName(.blobs, id), from: []) { blobKey, _ in
            guard !referenced.contains(Array(blobKey)) else { return true }
            guard blobKey.count == 10 else {
                note(id, nil, "its blob tree holds a key of \(counted(blobKey.count, "byte")); blob keys are 10")
                return true
            }
            let field = Int(UInt16(blobKey[8]) << 8 | UInt16(blobKey[9]))
            guard !isUnreadable(id, ObjectKey.read(blobKey).rawValue, field: field) else { return true }
            note(
                id, ObjectKey.read(blobKey).rawValue, field: field,
                "the blob tree holds a long value for the field, but the object's row does not refer to it")
            return true
        }
    }
}
