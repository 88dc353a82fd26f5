import Burrow
import BurrowStore

// The DoggoDB models of RealmSwift's documentation examples, which `burrow demo` stores.

final class DogToy: Object {
    @Persisted var name = ""
}

final class Dog: Object, ObjectKeyIdentifiable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var currentCity = ""
    @Persisted var favoriteToy: DogToy?
    @Persisted var citiesVisited: MutableSet<String>
    @Persisted var companion: AnyRealmValue
    @Persisted var favoriteParksByCity: Map<String, String>
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

final class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<Dog>
    @Persisted var address: Address?
}

final class Address: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var country: String?
    @Persisted var postalCode: String?
}

/// How many times the demo ran on this file.
final class DemoRun: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var count = 0
}
