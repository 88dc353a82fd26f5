import BurrowStorage
import BurrowStore
import Foundation

/// What a table carries as its program's description of a class. The store hands it back and
/// never looks inside it, so the tests give it a name and nothing more.
final class TestProgram: Sendable {
    let name: String

    init(_ name: String) { self.name = name }
}

/// A failure of the harness itself (not of the store it drives).
struct HarnessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// An `ObjectStore` opened on its own, on an engine the test made, as the API opens one
/// (`Realm.init(storage:configuration:)`), with a table for each class the test declares: the
/// classes the file lacks are stored in a first write, as `Realm+Schema` stores them.
final class StoreHarness {
    let storage: Storage
    let store: ObjectStore
    /// The tables of the declared classes, by class name.
    private(set) var tables: [String: Table] = [:]

    init(storage: Storage, declaring classes: [DeclaredClass]) throws {
        self.storage = storage
        store = ObjectStore(
            storage: storage, snapshotReader: SnapshotReader(try storage.snapshot()), schema: nil, displayName: "store-test",
            dynamicProgram: { stored, _ in TestProgram(stored.name) })
        try store.loadSchemaIfChanged()
        let missing = classes.filter { store.currentFileSchema.classes[$0.name] == nil }
        if !missing.isEmpty {
            let write = try beginWrite()
            var schema = store.currentFileSchema
            var changed: [StoredClass] = []
            for declared in missing {
                let stored = Table.newStoredClass(for: declared, id: schema.info.nextClassId)
                schema.info.nextClassId += 1
                schema.classes[declared.name] = stored
                changed.append(stored)
            }
            try store.storeSchema(schema, changing: changed, in: write)
            try commit()
        }
        for declared in classes {
            guard let stored = store.currentFileSchema.classes[declared.name] else {
                throw HarnessError("the file has no class \(declared.name) after storing it")
            }
            if let mismatch = Table.mismatch(declared, stored) { throw HarnessError("class \(declared.name) does not match: \(mismatch)") }
            tables[declared.name] = Table(declared: declared, stored: stored, program: TestProgram(declared.name))
        }
    }

    /// The table of the class named `name`.
    func table(_ name: String) -> Table {
        guard let table = tables[name] else { preconditionFailure("no class \(name) was declared") }
        return table
    }

    /// Opens a write transaction under the engine's write lock, reading the newest version.
    @discardableResult
    func beginWrite(recordingChanges: Bool = false) throws -> WriteState {
        let transaction = try storage.beginWriteBlocking()
        if transaction.baseVersion != store.snapshotReader.snapshot.version {
            do {
                try store.readNewestVersion()
            } catch {
                transaction.abort()
                throw error
            }
        }
        return try store.beginWrite(transaction, recordingChanges: recordingChanges)
    }

    /// The open write transaction.
    var write: WriteState {
        guard let write = store.write else { preconditionFailure("no write transaction is open") }
        return write
    }

    /// Commits the open write transaction and reads the version it made. Returns the write
    /// ended, with the changes it recorded.
    @discardableResult
    func commit() throws -> WriteState {
        let (receipt, write) = try store.commitWrite(durability: .normal)
        try store.readNewestVersion(ownCommit: write.schemaChanged ? nil : receipt.version)
        return write
    }

    /// Cancels the open write transaction: the store reads the version it read before.
    func cancel() {
        store.cancelWrite()
    }
}

/// Building the properties of the classes a test declares.
enum TestProperty {
    /// A property as `DeclaredClass` takes it.
    static func make(
        _ name: String, _ type: PropertyType, optional: Bool = false, _ collection: CollectionKind = .single, to target: String? = nil,
        primary: Bool = false, indexed: Bool = false
    ) -> Property {
        Property(
            name: name, type: type, isOptional: optional, collection: collection, objectClassName: target, linkOriginPropertyName: nil,
            isPrimary: primary, isIndexed: indexed || primary)
    }
}
