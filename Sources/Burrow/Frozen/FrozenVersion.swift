import BurrowStorage
import BurrowStore

/// One version of a file, frozen: what `Frozen` values and frozen realms read. Immutable and
/// `Sendable`: it pins its snapshot, so the pages it reads are never reused while it lives, and
/// its only mutable state (the tables resolved so far) is behind a lock.
final class FrozenVersion: ReadContext, Sendable {
    let configuration: Realm.Configuration
    let snapshotReader: SnapshotReader
    package let currentFileSchema: FileSchema
    /// The classes of the realm it was frozen from, matched first to stored class names.
    let knownTypes: [ObjectBase.Type]
    private let tables = Locked<[UInt32: Table]>([:])
    private let dynamicTables = Locked<[UInt32: Table]>([:])

    init(configuration: Realm.Configuration, reader: SnapshotReader, schema: FileSchema, knownTypes: [ObjectBase.Type]) {
        self.configuration = configuration
        snapshotReader = reader
        currentFileSchema = schema
        self.knownTypes = knownTypes
    }

    /// The version `realm` reads now. Throws inside a write transaction, whose changes are not
    /// a version yet.
    convenience init(of realm: Realm) throws(RealmError) {
        if realm.isInWriteTransaction {
            throw RealmError(.wrongState, "Cannot freeze inside a write transaction: its changes are not committed yet. Freeze after the write.")
        }
        if let frozen = realm.frozenVersion {
            self.init(
                configuration: frozen.configuration, reader: frozen.snapshotReader, schema: frozen.currentFileSchema, knownTypes: frozen.knownTypes)
        } else {
            self.init(
                configuration: realm.configuration, reader: realm.store.snapshotReader, schema: realm.currentFileSchema, knownTypes: realm.knownTypes)
        }
    }

    package var reader: any TreeReader { snapshotReader }
    var objectSource: ObjectSource { .frozen(self) }
    var version: UInt64 { snapshotReader.snapshot.version }

    /// Whether `other` is the same version of the same file (or in-memory realm): the engine
    /// shares one handle per file in a process, so the handles' identity says which file.
    func isSameVersion(as other: FrozenVersion) -> Bool {
        version == other.version && snapshotReader.snapshot.storage === other.snapshotReader.snapshot.storage
    }
    package var displayName: String { configuration.displayName }

    package func table(id: UInt32) -> Table? {
        if let table = tables.withLock({ $0[id] }) { return table }
        guard let stored = currentFileSchema.classes.values.first(where: { $0.id == id }),
            let type = Realm.swiftClass(named: stored.name, among: knownTypes), case let info = ClassInfo.of(type),
            Table.mismatch(info.declared, stored) == nil
        else { return nil }
        let table = Table(info: info, stored: stored)
        tables.withLock { $0[id] = table }
        return table
    }

    package func dynamicTable(id: UInt32) -> Table? {
        if let table = dynamicTables.withLock({ $0[id] }) { return table }
        guard let table = makeDynamicTable(id: id) else { return nil }
        return dynamicTables.withLock { tables in
            if let raced = tables[id] { return raced }
            tables[id] = table
            return table
        }
    }

    package func dynamicProgram(for stored: StoredClass) -> any AnyObject & Sendable {
        ClassInfo(dynamic: stored, in: currentFileSchema)
    }

    func table(for type: ObjectBase.Type) -> Table? {
        guard let stored = currentFileSchema.classes[ClassInfo.storedName(of: type)] else { return nil }
        if let table = tables.withLock({ $0[stored.id] }), table.info.type == type { return table }
        let info = ClassInfo.of(type)
        guard Table.mismatch(info.declared, stored) == nil else { return nil }
        let table = Table(info: info, stored: stored)
        tables.withLock { $0[stored.id] = table }
        return table
    }
}

extension FrozenVersion {
    /// The newest version of the file this version belongs to, with the same configuration and
    /// classes (the schema is read again only if it changed).
    func newest() throws(RealmError) -> FrozenVersion {
        do {
            let reader = SnapshotReader(try snapshotReader.snapshot.storage.snapshot())
            guard reader.snapshot.version != version else { return self }
            let stamp = try FileSchema.stamp(in: reader)
            let schema =
                stamp == (try FileSchema.stamp(in: snapshotReader))
                ? currentFileSchema : try FileSchema.load(from: reader, stamp: stamp, path: displayName)
            return FrozenVersion(configuration: configuration, reader: reader, schema: schema, knownTypes: knownTypes)
        } catch {
            throw RealmError(wrapping: error)
        }
    }
}
