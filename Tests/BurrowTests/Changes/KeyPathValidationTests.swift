import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// `changes(keyPaths:)` rejects key paths that name no property of the class, as RealmSwift
/// does: the stream yields one `.error` naming it and ends (a misspelt key path would otherwise
/// leave the stream silent for good); an observed wrapper shows the error.
@Suite(.temporaryDirectory) struct KeyPathValidationTests {
    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self]
        return config
    }

    @Test func resultsAndObjectStreamsRejectUnknownKeyPaths() async throws {
        let realm = try Realm(configuration: configuration())
        let dog = CommonModels.Dog(value: ["name": "Rex"])
        try realm.write { try realm.add(dog) }

        var results = realm.objects(CommonModels.Dog.self).changes(keyPaths: ["name", "nmae"]).makeAsyncIterator()
        guard case .error(let error)? = await results.next() else {
            Issue.record("expected an error")
            return
        }
        #expect(error.code == .invalidArgument)
        #expect(error.description.contains("'nmae'"))
        #expect(await results.next() == nil)

        var object = dog.changes(keyPaths: ["favoriteToy.name", "bogus"]).makeAsyncIterator()
        guard case .error(let objectError)? = await object.next() else {
            Issue.record("expected an error")
            return
        }
        #expect(objectError.description.contains("'bogus'"))

        var valid = realm.objects(CommonModels.Dog.self).changes(keyPaths: ["name", "favoriteToy.name"]).makeAsyncIterator()
        guard case .initial? = await valid.next() else {
            Issue.record("valid key paths start normally")
            return
        }
    }

    @MainActor @Test func aWrapperWithAnUnknownKeyPathShowsTheError() async throws {
        let config = configuration()
        @ObservedResults(CommonModels.Dog.self, keyPaths: ["nmae"], configuration: config) var dogs
        _ = dogs.count
        for _ in 0..<100 where $dogs.error == nil { await Task.yield() }
        #expect($dogs.error?.code == .invalidArgument)
    }
}
