import Burrow
import Foundation

/// The classes the sync tests replicate.
enum SyncModels {
    final class SyncTodo: Object {
        @Persisted(primaryKey: true) var id: String = ""
        @Persisted var title: String = ""
        @Persisted var done: Bool = false
        @Persisted var priority: Int = 0
        @Persisted var due: Date?
        @Persisted var score: Double = 0
        @Persisted var attachment: Data?
        @Persisted var reference: ObjectId?
        @Persisted var token: UUID?
        @Persisted var amount: Decimal128?
        @Persisted var assignee: SyncPerson?

        override class func _realmObjectName() -> String? { "SyncTodo" }

        convenience init(id: String, title: String) {
            self.init()
            self.id = id
            self.title = title
        }
    }

    final class SyncPerson: Object {
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var name: String = ""

        override class func _realmObjectName() -> String? { "SyncPerson" }
    }

    /// A class with no primary key, which cannot be synced.
    final class SyncNote: Object {
        @Persisted var text: String = ""

        override class func _realmObjectName() -> String? { "SyncNote" }
    }

    static let types: [ObjectBase.Type] = [SyncTodo.self, SyncPerson.self, SyncNote.self]
    static let synced: [Object.Type] = [SyncTodo.self, SyncPerson.self]
}
