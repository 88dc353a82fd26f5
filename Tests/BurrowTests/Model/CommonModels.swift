import Burrow
import BurrowTestSupport
import Foundation
import Testing

/// The models most suites share: RealmSwift's README `Dog`, `Person` and `Address`, and the
/// dog's toy. Nested classes are stored under their own names, so these keep the names they had
/// at the top level.
enum CommonModels {
    final class DogToy: Object {
        @Persisted var name = ""
    }

    final class Dog: Object, ObjectKeyIdentifiable {
        // The migration ladder's releases are this test program's Person, Dog and Address.
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var color = ""
        @Persisted var currentCity = ""
        @Persisted var favoriteToy: CommonModels.DogToy?
        @Persisted var companion: AnyRealmValue
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<CommonModels.Person>
    }

    final class Person: Object {
        // The migration ladder's releases are this test program's Person, Dog and Address.
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<CommonModels.Dog>
        @Persisted var address: CommonModels.Address?
    }

    final class Address: EmbeddedObject {
        // The migration ladder's releases are this test program's Person, Dog and Address.
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var street: String?
        @Persisted var city: String?
        @Persisted var country: String?
        @Persisted var postalCode: String?
    }
}
