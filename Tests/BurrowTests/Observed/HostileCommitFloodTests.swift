import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Observation
import Testing

/// Three actors commit as fast as they can while the main actor reads and quick-writes
/// through `@ObservedResults`: every state the wrapper shows is a whole commit (never part of
/// one), and no commit is lost.
@MainActor
@Suite(.temporaryDirectory) struct HostileCommitFloodTests {
    @Test func everyObservedStateIsAWholeCommitAndNoUpdateIsLost() async throws {
        let rounds = TestEnvironment.count("BURROW_FLOOD_ROUNDS", default: 100)
        let config = {
            var config = temporaryConfiguration()
            config.objectTypes = [CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self]
            return config
        }()
        let realm = try Realm(configuration: config)
        try realm.write { for index in 0..<10 { try realm.add(CommonModels.Dog(value: ["name": "counted\(index)"])) } }
        let ids = realm.objects(CommonModels.Dog.self).map(\._id)
        @ObservedResults(
            CommonModels.Dog.self, configuration: config, filter: "name BEGINSWITH 'counted'", sortDescriptor: SortDescriptor(keyPath: "name"))
        var counted
        @ObservedResults(CommonModels.Dog.self, configuration: config, filter: "name == 'extra'") var extras
        #expect(counted.count == 10)

        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        let db = try await RealmActor(configuration: config)
                        for _ in 0..<rounds {
                            // One commit raises every counted dog's age by one.
                            try await db.asyncWrite { realm in
                                for id in ids { realm.object(ofType: CommonModels.Dog.self, forPrimaryKey: id)?.age += 1 }
                                try realm.add(CommonModels.Dog(value: ["name": "extra"]))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var quickAdds = 0
        var quickRemoves = 0
        for step in 0..<(rounds * 2) {
            let ages = counted.map(\.age)
            #expect(Set(ages).count == 1, "a commit seen in part: \(ages)")
            if step % 3 == 0 {
                $extras.append(CommonModels.Dog(value: ["name": "extra"]))
                quickAdds += 1
            }
            if step % 4 == 0, !extras.isEmpty {
                $extras.remove(atOffsets: [0])
                quickRemoves += 1
            }
            #expect($extras.error == nil)
            await Task.yield()
        }
        try await writers.value
        _counted.update()
        #expect(counted.map(\.age) == Array(repeating: 3 * rounds, count: 10), "no lost update")
        #expect(extras.count == 3 * rounds + quickAdds - quickRemoves)
    }
}
