import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// A wrapper that goes lets go of its file at once: its stream ends with it, so the file can be
/// deleted right after, without waiting for the follower task to run.
@MainActor
@Suite(.temporaryDirectory) struct ObservedReleaseTests {
    private func observeAndDrop(_ config: Realm.Configuration) throws {
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        $dogs.append(ObservedTestModels.Dog(value: ["name": "Rex"]))
        @ObservedRealmObject var rex = dogs[0]
        $rex.name.wrappedValue = "Wolfie"
        #expect(dogs.map(\.name) == ["Wolfie"])
    }

    @Test func droppedWrappersFreeTheFileAtOnce() throws {
        let config = observedConfiguration()
        try observeAndDrop(config)
        #expect(try Realm.deleteFiles(for: config))
    }
}
