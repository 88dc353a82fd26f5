import Burrow
import BurrowTestSupport
import Foundation
import Observation
import Synchronization

/// The models of the observed-wrapper tests: the seed's DoggoDB shapes (a dog with a favorite toy
/// string and a toy object, a person with a list of dogs, a company with employees), plus the
/// collection kinds the quick writes change and a two-balance account for the stress test. Each
/// is stored under the name it had before it was namespaced.
enum ObservedTestModels {
    final class Toy: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "QWToy" }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
    }

    final class Dog: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "QWDog" }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var favoriteToy = ""
        @Persisted var toy: ObservedTestModels.Toy?
    }

    final class Person: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "QWPerson" }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var dogs: List<ObservedTestModels.Dog>
        @Persisted var luckyNumbers: List<Int>
        @Persisted var nicknames: MutableSet<String>
        @Persisted var friends: MutableSet<ObservedTestModels.Dog>
        @Persisted var scores: Map<String, Int>
        @Persisted var dogsByRole: Map<String, ObservedTestModels.Dog?>
    }

    final class Employee: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "QWEmployee" }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
        @Persisted var dogs: List<ObservedTestModels.Dog>
    }

    final class Company: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "QWCompany" }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var companyName = ""
        @Persisted var employees: List<ObservedTestModels.Employee>
        @Persisted var dogs: List<ObservedTestModels.Dog>
    }

    final class DogCard: Projection<ObservedTestModels.Dog> {
        @Projected(\ObservedTestModels.Dog.name) var label
        @Projected(\ObservedTestModels.Dog.age) var years
    }

    /// Two balances whose sum never changes: every change moves an amount between them through
    /// `deposit`'s setter, which also counts the change, all in the one write that sets it.
    final class Account: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "QWAccount" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var a = 0
        @Persisted var b = 0
        @Persisted var changes = 0
        @Persisted var byFirstActor = 0
        @Persisted var bySecondActor = 0

        /// Always 0; setting it moves that amount from `b` to `a` (reading both inside the write
        /// that sets it) and counts one change.
        var deposit: Int {
            get { 0 }
            set {
                a += newValue
                b -= newValue
                changes += 1
            }
        }
    }

    final class Entry: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "QWEntry" }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var source = ""
        @Persisted var seq = 0
    }
}

/// A temporary configuration holding the observed-wrapper test models.
func observedConfiguration(_ name: String = #function) -> Realm.Configuration {
    var config = temporaryConfiguration(name)
    config.objectTypes = [
        ObservedTestModels.Toy.self, ObservedTestModels.Dog.self, ObservedTestModels.Person.self, ObservedTestModels.Employee.self,
        ObservedTestModels.Company.self, ObservedTestModels.Account.self, ObservedTestModels.Entry.self,
    ]
    return config
}

/// `object`, added to the main actor's realm of `config` in a write of its own.
@MainActor
func added<T: Object>(_ object: T, _ config: Realm.Configuration) throws -> T {
    let realm = try Realm(configuration: config)
    try realm.write { try realm.add(object) }
    return object
}

/// Runs `read` inside `withObservationTracking` and returns a signal fired by its `onChange`.
@MainActor
func track(_ read: @escaping @MainActor () -> Void) -> Signal {
    let signal = Signal()
    withObservationTracking({ read() }, onChange: signal.fire)
    return signal
}

/// Whether an Observation `onChange` (called on any thread) has fired.
final class Fired: Sendable {
    private let fired = LockedBox(false)
    func set() { fired.withLock { $0 = true } }
    var isSet: Bool { fired.value }
}

/// A `Fired` set by the `onChange` of tracking `read`.
@MainActor
func trackOnce(_ read: @escaping @MainActor () -> Void) -> Fired {
    let fired = Fired()
    withObservationTracking({ read() }, onChange: fired.set)
    return fired
}
