import Burrow
import BurrowTestSupport
import Foundation
import Testing

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
    @Persisted var favoriteToy: DogToy?
    @Persisted var companion: AnyRealmValue
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

final class Person: Object {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<Dog>
    @Persisted var address: Address?
}

final class Address: EmbeddedObject {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var country: String?
    @Persisted var postalCode: String?
}
