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
        @Persisted var tags: List<String>
        @Persisted var ratings: MutableSet<Int>
        @Persisted var labels: Map<String, String?>
        @Persisted var steps: List<SyncStep>
        @Persisted var plan: SyncStep?
        @Persisted var extra: AnyRealmValue
        @Persisted var watchers: List<SyncPerson>
        @Persisted var dates: List<Date>

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

    /// An embedded step of a todo, which may hold steps of its own.
    final class SyncStep: EmbeddedObject {
        @Persisted var title: String = ""
        @Persisted var done: Bool = false
        @Persisted var substeps: List<SyncStep>

        override class func _realmObjectName() -> String? { "SyncStep" }

        convenience init(_ title: String, substeps: [SyncStep] = []) {
            self.init()
            self.title = title
            self.substeps.append(objectsIn: substeps)
        }
    }

    /// A class with no primary key, which cannot be synced.
    final class SyncNote: Object {
        @Persisted var text: String = ""

        override class func _realmObjectName() -> String? { "SyncNote" }
    }

    /// The class `SyncWorker` syncs, declared as the worker declares it.
    final class KillTodo: Object {
        override class func _realmObjectName() -> String? { "KillTodo" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
    }

    static let types: [ObjectBase.Type] = [SyncTodo.self, SyncPerson.self, SyncStep.self, SyncNote.self]
    static let synced: [Object.Type] = [SyncTodo.self, SyncPerson.self]
}
