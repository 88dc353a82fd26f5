import Burrow
import BurrowTestTraits
import Foundation
import Observation
import Testing

/// A wrapper first read inside a write transaction that stays open across suspensions starts
/// following when the transaction ends, by commit or by cancel.
///
/// The time limit guards against a wait that never ends. It is generous because in the full
/// suite on two cores a test's task may wait minutes for a thread of the cooperative pool,
/// which the other tests keep busy: a test that returns at once can start over a minute late.
@MainActor
@Suite(.timeLimit(.minutes(5)), .temporaryDirectory) struct ObservedWriteEndTests {
    @Test(arguments: [true, false]) func followsOnceAWriteHeldAcrossSuspensionsEnds(byCommitting: Bool) async throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        try realm.beginWrite()
        _ = dogs.count
        if byCommitting { try realm.add(ObservedTestModels.Dog(value: ["name": "Rex"])) }
        try await Task.sleep(for: .milliseconds(20))  // the transaction stays open across suspensions
        if byCommitting {
            let changed = track { _ = dogs.count }
            try realm.commitWrite()
            await changed.wait()
            #expect(dogs.count == 1)
        } else {
            try realm.cancelWrite()
        }
        let before = dogs.count
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(ObservedTestModels.Dog(value: ["name": "Spot"])) }
        // The wrapper reports when it starts following, and again when the actor's commit
        // reaches it: wait, through Observation, until it shows that commit.
        while dogs.count != before + 1 {
            try Task.checkCancellation()
            let changed = track { _ = dogs.count }
            if dogs.count == before + 1 { break }
            await changed.wait()
        }
        #expect(dogs.map(\.name).sorted() == (byCommitting ? ["Rex", "Spot"] : ["Spot"]))
    }
}
