import BurrowStore

extension _OptionalPersistable where Self: ObjectBase {
    /// A stream of this object's changes: `.change` with the object after each commit that
    /// changed it (coalesced while the consumer is busy) and the properties that changed, then
    /// `.deleted` if it is deleted, which ends the stream. As in RealmSwift, there is no initial
    /// element.
    ///
    /// `keyPaths` limits the changes reported to those properties (the first component of each
    /// path is used), each of which must name a property of the class. The object must be
    /// managed and not frozen; otherwise, with an unknown key path, or inside a write
    /// transaction, the stream yields one `.error` and ends.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<ObjectChange<Frozen<Self>>> {
        let frozen: Frozen<Self>
        let names: Set<String>?
        do {
            names = try observedPropertyNames(keyPaths, of: classInfo)
            guard !isFrozen else {
                throw RealmError(.wrongState, "A frozen object never changes; observe the live object instead (thaw it first).")
            }
            frozen = try freeze()
        } catch {
            return ChangeStream(core: StreamCore(failing: .error(RealmError(wrapping: error))))
        }
        let observer = ObjectObserver(object: frozen, keyPaths: names)
        return ChangeStream(core: StreamCore(observer))
    }
}

/// Watches one object: reports the properties that changed, or that it was deleted.
struct ObjectObserver<T: ObjectBase>: ChangeObserver {
    private var object: Frozen<T>
    /// Property names whose changes are reported; nil for all.
    let keyPaths: Set<String>?
    private(set) var isFinished = false

    var baseline: FrozenVersion { object.version }

    init(object: Frozen<T>, keyPaths: Set<String>?) {
        self.object = object
        self.keyPaths = keyPaths
    }

    func initial() -> ObjectChange<Frozen<T>>? { nil }

    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> ObjectChange<Frozen<T>>? {
        let old = object
        let key = old.key
        let dynamic = old.object.classInfo.isDynamic
        guard let table = version.table(id: old.tableId, dynamic: dynamic), version.rowExists(table, key),
            !(changes.isComplete && changes.changes(of: old.tableId).deleted.contains(key))
        else {
            isFinished = true
            return .deleted
        }
        object = Frozen(version: version, table: table, key: key)
        guard let oldTable = old.version.table(id: old.tableId, dynamic: dynamic) else { return nil }
        let fields: Set<Int>?
        if changes.isComplete {
            guard let modified = changes.changes(of: old.tableId).modified[key] else { return nil }
            fields = modified.contains(ChangeSet.ClassChanges.allFields) ? nil : modified
        } else {
            fields = nil
        }
        let properties = Self.changedProperties(key, old.version, oldTable, version, table, fields: fields, names: keyPaths)
        return properties.isEmpty ? nil : .change(object, properties)
    }

    /// The properties of object `key` that differ between two versions, among `fields` (all if
    /// nil) and `names` (all if nil). A collection counts as changed when a commit recorded a
    /// change to it; its values are not given.
    private static func changedProperties(
        _ key: ObjectKey, _ old: FrozenVersion, _ oldTable: Table, _ new: FrozenVersion, _ newTable: Table,
        fields: Set<Int>?, names: Set<String>?
    ) -> [PropertyChange] {
        let changes = old.withRows(oldTable, key, and: new, newTable) { before, after -> [PropertyChange] in
            var changes: [PropertyChange] = []
            for (field, stored) in newTable.stored.properties.enumerated() {
                guard let property = newTable.propertyOfField[field] else { continue }
                let name = newTable.declared.properties[property].name
                if let names, !names.contains(name) { continue }
                if let fields, !fields.contains(field) { continue }
                let oldField = oldTable.stored.fieldIndex(of: stored.name)
                let same = RowCodec.sameField(oldField.flatMap { RowCodec.field(before, $0) }, RowCodec.field(after, field))
                if newTable.collectionTrees[field] != nil {
                    // A collection's field holds its count. Recorded changes name collections that
                    // changed; without a record, only a changed count shows.
                    if fields != nil || !same { changes.append(PropertyChange(name: name, oldValue: nil, newValue: nil)) }
                    continue
                }
                if same { continue }
                changes.append(
                    PropertyChange(
                        name: name,
                        oldValue: oldField.map { old.readField(oldTable, key, oldTable.propertyOfField[$0] ?? property).plainValue } ?? nil,
                        newValue: new.readField(newTable, key, property).plainValue))
            }
            return changes
        }
        return changes ?? []
    }
}
