import Burrow
import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowSync

/// The outbox: what a commit queues for upload, in its own transaction, with no sync client
/// running. Needs no PostgreSQL.
@MainActor
struct OutboxTests {
    typealias Todo = SyncModels.SyncTodo

    private func configuration(_ directory: TemporaryDirectory) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.fileURL("outbox.burrow"), objectTypes: SyncModels.types)
    }

    @Test func existingObjectsAreQueuedOnceAndEachCommitQueuesItsChanges() async throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: configuration(directory))
        try realm.write {
            try realm.add(Todo(id: "a", title: "before sync"))
            try realm.add(Todo(id: "b", title: "also before"))
        }
        try realm.startSyncing(["SyncTodo"])
        #expect(try realm.pendingUploadCount() == 2)
        // Recording again queues nothing new.
        try realm.startSyncing(["SyncTodo"])
        #expect(try realm.pendingUploadCount() == 2)

        let a = try #require(realm.object(ofType: Todo.self, forPrimaryKey: "a"))
        try realm.write {
            a.title = "changed"
            a.done = true
        }
        try realm.write { try realm.delete(realm.object(ofType: Todo.self, forPrimaryKey: "b")!) }
        let entries = try realm.pendingUploads(limit: 100)
        #expect(entries.map(\.kind) == [.insert, .insert, .update, .delete])
        #expect(entries.map(\.sequence) == [1, 2, 3, 4])
        #expect(entries[2].properties == ["title", "done"])
        #expect(entries[3].primaryKey == .string("b"))
    }

    @Test func aCancelledOrFailedWriteQueuesNothing() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: configuration(directory))
        try realm.startSyncing(["SyncTodo"])
        try realm.beginWrite()
        try realm.add(Todo(id: "x", title: "never"))
        try realm.cancelWrite()
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try realm.write {
                try realm.add(Todo(id: "y", title: "never either"))
                throw Abandon()
            }
        }
        #expect(try realm.pendingUploadCount() == 0)
    }

    @Test func commitsOfAnotherRealmAndAnActorAreQueued() async throws {
        let directory = try TemporaryDirectory()
        let config = configuration(directory)
        let realm = try Realm(configuration: config)
        try realm.startSyncing(["SyncTodo"])
        let actor = try await RealmActor(configuration: config)
        try await actor.asyncWrite { realm in try realm.add(Todo(id: "from-actor", title: "t")) }
        try await onThreadOfItsOwn {
            let other = try Realm(configuration: config)
            try other.write { try other.add(Todo(id: "from-thread", title: "t")) }
        }
        _ = realm.refresh()
        let keys = try realm.pendingUploads(limit: 10).map(\.primaryKey)
        #expect(Set(keys) == [.string("from-actor"), .string("from-thread")])
    }

    @Test func writesThatApplyDownloadsQueueNothing() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: configuration(directory))
        try realm.startSyncing(["SyncTodo"])
        try realm.writeFromSync { try realm.add(Todo(id: "downloaded", title: "from the server")) }
        #expect(try realm.pendingUploadCount() == 0)
        #expect(realm.objects(Todo.self).count == 1)
    }

    @Test func aClassWithoutAPrimaryKeyIsRefused() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: configuration(directory))
        let error = #expect(throws: RealmError.self) { try realm.startSyncing(["SyncNote"]) }
        #expect(error?.description.contains("primary key") == true)
        #expect(realm.syncedClassNames.isEmpty)
    }

    @Test func theOutboxSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        do {
            let realm = try Realm(configuration: configuration(directory))
            try realm.startSyncing(["SyncTodo"])
            try realm.write { try realm.add(Todo(id: "kept", title: "t")) }
        }
        let realm = try Realm(configuration: configuration(directory))
        #expect(try realm.pendingUploadCount() == 1)
        #expect(realm.syncedClassNames == ["SyncTodo"])
        #expect(try realm.syncClientID() != nil)
    }
}
