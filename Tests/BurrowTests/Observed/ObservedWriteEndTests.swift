import Burrow
import BurrowTestTraits
import Foundation
import Observation
import Testing

/// A wrapper first read inside a write transaction that stays open across suspensions starts
/// following when the transaction ends, by commit or by cancel.
@MainActor
@Suite(.timeLimit(.minutes(1)), .temporaryDirectory) struct ObservedWriteEndTests {
    @Test func followsOnceAWriteHeldAcrossSuspensionsCommits() async throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        @ObservedResults(QWDog.self, configuration: config) var dogs
        try realm.beginWrite()
        _ = dogs.count
        try realm.add(QWDog(value: ["name": "Rex"]))
        try await Task.sleep(for: .milliseconds(20))  // the transaction stays open across suspensions
        let changed = Signal()
        withObservationTracking {
            _ = dogs.count
        } onChange: {
            changed.fire()
        }
        try realm.commitWrite()
        await changed.wait()
        #expect(dogs.count == 1)

        let fromActor = Signal()
        withObservationTracking {
            _ = dogs.count
        } onChange: {
            fromActor.fire()
        }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(QWDog(value: ["name": "Spot"])) }
        await fromActor.wait()
        #expect(dogs.count == 2)
    }

    @Test func followsOnceAWriteHeldAcrossSuspensionsIsCancelled() async throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        @ObservedResults(QWDog.self, configuration: config) var dogs
        try realm.beginWrite()
        _ = dogs.count
        try await Task.sleep(for: .milliseconds(20))
        try realm.cancelWrite()
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(QWDog(value: ["name": "Spot"])) }
        // The wrapper reports when it starts following, and again when the actor's commit
        // reaches it: wait, through Observation, until it shows that commit.
        while dogs.count != 1 {
            try Task.checkCancellation()
            let changed = Signal()
            withObservationTracking {
                _ = dogs.count
            } onChange: {
                changed.fire()
            }
            if dogs.count == 1 { break }
            await changed.wait()
        }
        #expect(dogs.map(\.name) == ["Spot"])
    }
}
