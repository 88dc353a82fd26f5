import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `CreateCopiesTests` (some also used by `DynamicHostileTests`), stored under the names they had before they were namespaced.
enum CreateCopiesModels {
    final class Toy: Object {
        override class func _realmObjectName() -> String? { "CopyToy" }
        @Persisted(primaryKey: true) var name = ""
        @Persisted var squeaks = 0
    }

    final class Tag: Object {
        override class func _realmObjectName() -> String? { "CopyTag" }
        @Persisted var label = ""
    }

    /// An embedded class that embeds itself (DynamicHostileTests' chains use it too).
    final class Unit: EmbeddedObject {
        override class func _realmObjectName() -> String? { "CopyUnit" }
        @Persisted var number = 0
        @Persisted var inner: CreateCopiesModels.Unit?
    }

    final class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "CopyAddress" }
        @Persisted var street = ""
        @Persisted var unit: CreateCopiesModels.Unit?
        @Persisted var units: List<CreateCopiesModels.Unit>
    }

    /// Every kind of property `create` copies; no primary key, so that it can be copied within
    /// one realm.
    final class Dog: Object {
        override class func _realmObjectName() -> String? { "CopyDog" }
        @Persisted var name = ""
        @Persisted var favoriteToy: CreateCopiesModels.Toy?
        @Persisted var tags: List<CreateCopiesModels.Tag>
        @Persisted var toys: MutableSet<CreateCopiesModels.Toy>
        @Persisted var toysByRoom: Map<String, CreateCopiesModels.Toy?>
        @Persisted var nicknames: List<String>
        @Persisted var scores: MutableSet<Int>
        @Persisted var parks: Map<String, String>
        @Persisted var address: CreateCopiesModels.Address?
        @Persisted var pastAddresses: List<CreateCopiesModels.Address>
        @Persisted var addressesByCity: Map<String, CreateCopiesModels.Address?>
        @Persisted var companion: AnyRealmValue
        @Persisted var friend: CreateCopiesModels.Dog?
    }

    final class Owner: Object {
        override class func _realmObjectName() -> String? { "CopyOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var favoriteToy: CreateCopiesModels.Toy?
        @Persisted var toys: List<CreateCopiesModels.Toy>
    }
}

/// `create(_:value:update:)` copies what its value holds, as RealmSwift's does: objects of
/// another realm (copied, or upserted by primary key), embedded objects, lists, sets and maps;
/// the value itself is read and never changed. Objects of the realm itself stay links.
@Suite(.temporaryDirectory) struct CreateCopiesTests {
    static func memoryRealm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "create-copies-\(UUID().uuidString)"))
    }

    /// A dog with a value in every property, made in `realm`: toys "wubba" (3 squeaks) and
    /// "ball", tags "a" and "b", an address with a unit and two units, a companion toy.
    @discardableResult
    static func fullDog(in realm: Realm) throws -> CreateCopiesModels.Dog {
        try realm.write {
            let wubba = try realm.create(CreateCopiesModels.Toy.self, value: ["name": "wubba", "squeaks": 3])
            let ball = try realm.create(CreateCopiesModels.Toy.self, value: ["name": "ball"])
            return try realm.create(
                CreateCopiesModels.Dog.self,
                value: [
                    "name": "Maui",
                    "favoriteToy": wubba,
                    "tags": [["label": "a"], ["label": "b"]],
                    "toys": [wubba, ball],
                    "toysByRoom": ["den": ball, "yard": nil] as [String: Any?],
                    "nicknames": ["M", "Mau"],
                    "scores": [1, 2, 3],
                    "parks": ["Toronto": "High Park"],
                    "address": ["street": "Elm", "unit": ["number": 1], "units": [[2], [3]]] as [String: Any],
                    "pastAddresses": [["street": "Oak"], ["street": "Ash"]],
                    "addressesByCity": ["Paris": ["street": "Rue"]],
                    "companion": AnyRealmValue.object(CreateCopiesModels.Toy(value: ["name": "bone"])),
                ], update: .error)
        }
    }

    /// Checks that `dog` has the values `fullDog` gives, and that every object it reaches is
    /// managed by `realm`.
    static func expectFullDog(_ dog: CreateCopiesModels.Dog, in realm: Realm) {
        #expect(dog.realm === realm)
        #expect(dog.name == "Maui")
        #expect(dog.favoriteToy?.name == "wubba" && dog.favoriteToy?.squeaks == 3 && dog.favoriteToy?.realm === realm)
        #expect(dog.tags.map(\.label) == ["a", "b"] && dog.tags.allSatisfy { $0.realm === realm })
        #expect(Set(dog.toys.map(\.name)) == ["wubba", "ball"] && dog.toys.allSatisfy { $0.realm === realm })
        #expect(dog.toysByRoom["den"]??.name == "ball" && dog.toysByRoom["den"]??.realm === realm)
        #expect(dog.toysByRoom.count == 2 && dog.toysByRoom["yard"] != nil && dog.toysByRoom["yard"]! == nil)
        #expect(Array(dog.nicknames) == ["M", "Mau"])
        #expect(Set(dog.scores) == [1, 2, 3])
        #expect(dog.parks["Toronto"] == "High Park")
        #expect(dog.address?.street == "Elm" && dog.address?.realm === realm)
        #expect(dog.address?.unit?.number == 1)
        #expect(dog.address?.units.map(\.number) == [2, 3])
        #expect(dog.pastAddresses.map(\.street) == ["Oak", "Ash"] && dog.pastAddresses.allSatisfy { $0.realm === realm })
        #expect(dog.addressesByCity["Paris"]??.street == "Rue")
        guard case .object(let companion) = dog.companion else {
            Issue.record("the companion is \(dog.companion), not an object")
            return
        }
        #expect((companion as? CreateCopiesModels.Toy)?.name == "bone" && companion.realm === realm)
    }

    // MARK: - Objects of another realm

    /// The seed's fix for "already managed by another Realm": a toy of another realm in the
    /// value is copied into this one, and the toy itself stays where it was.
    @Test func testALinkedObjectOfAnotherRealmIsCopied() throws {
        let toys = try Self.memoryRealm()
        let people = try Self.memoryRealm()
        let wubba = try toys.write { try toys.create(CreateCopiesModels.Toy.self, value: ["name": "wubba", "squeaks": 3]) }

        let owner = try people.write {
            try people.create(CreateCopiesModels.Owner.self, value: ["id": 1, "name": "Maui", "favoriteToy": wubba], update: .modified)
        }

        let copied = try #require(owner.favoriteToy)
        #expect(copied.realm === people && copied.name == "wubba" && copied.squeaks == 3)
        #expect(people.objects(CreateCopiesModels.Toy.self).count == 1)
        #expect(wubba.realm === toys && wubba.name == "wubba")
        #expect(toys.objects(CreateCopiesModels.Toy.self).count == 1 && toys.objects(CreateCopiesModels.Owner.self).isEmpty)
    }

    /// Under `.modified` (and `.all`), a linked object of another realm whose primary key exists
    /// here updates the object here rather than adding another.
    @Test(arguments: [UpdatePolicy.modified, .all])
    func testALinkedObjectOfAnotherRealmUpdatesTheObjectWithItsPrimaryKey(_ policy: UpdatePolicy) throws {
        let toys = try Self.memoryRealm()
        let people = try Self.memoryRealm()
        let wubba = try toys.write { try toys.create(CreateCopiesModels.Toy.self, value: ["name": "wubba", "squeaks": 5]) }
        let local = try people.write { try people.create(CreateCopiesModels.Toy.self, value: ["name": "wubba", "squeaks": 1]) }

        let owner = try people.write {
            try people.create(CreateCopiesModels.Owner.self, value: ["id": 1, "favoriteToy": wubba, "toys": [wubba]], update: policy)
        }

        #expect(people.objects(CreateCopiesModels.Toy.self).count == 1)
        #expect(local.squeaks == 5)
        #expect(owner.favoriteToy?.squeaks == 5 && owner.toys.count == 1)
        #expect(wubba.realm === toys && wubba.squeaks == 5)
    }

    /// Under `.error`, a linked object of another realm whose primary key exists here throws,
    /// before anything is changed: the transaction goes on and commits without the owner.
    @Test func testALinkedObjectWhosePrimaryKeyExistsThrowsUnderErrorAndChangesNothing() throws {
        let toys = try Self.memoryRealm()
        let people = try Self.memoryRealm()
        let wubba = try toys.write { try toys.create(CreateCopiesModels.Toy.self, value: ["name": "wubba", "squeaks": 5]) }
        try people.write { _ = try people.create(CreateCopiesModels.Toy.self, value: ["name": "wubba", "squeaks": 1]) }

        try people.write {
            let error = #expect(throws: RealmError.self) {
                try people.create(CreateCopiesModels.Owner.self, value: ["id": 1, "toys": [["name": "new"], wubba]])
            }
            #expect(error?.code == .primaryKeyExists)
            _ = try people.create(CreateCopiesModels.Tag.self, value: ["label": "kept"])
        }

        #expect(people.objects(CreateCopiesModels.Owner.self).isEmpty)
        #expect(people.objects(CreateCopiesModels.Toy.self).map(\.name) == ["wubba"])
        #expect(people.objects(CreateCopiesModels.Toy.self).first?.squeaks == 1)
        #expect(people.objects(CreateCopiesModels.Tag.self).count == 1)
    }

    /// Two different objects in one value with one primary key: under `.error` the second
    /// would be a duplicate, so `create` throws before adding either.
    @Test func testTwoObjectsWithOnePrimaryKeyInAValueThrowUnderError() throws {
        let realm = try Self.memoryRealm()
        let standalone = CreateCopiesModels.Toy(value: ["name": "p3", "squeaks": 11])
        try realm.write {
            let error = #expect(throws: RealmError.self) {
                try realm.create(CreateCopiesModels.Owner.self, value: ["id": 3, "favoriteToy": ["p3", 11], "toys": [standalone]])
            }
            #expect(error?.code == .primaryKeyExists)
        }
        #expect(realm.objects(CreateCopiesModels.Owner.self).isEmpty && realm.objects(CreateCopiesModels.Toy.self).isEmpty)
        #expect(standalone.realm == nil)
    }

    /// An object of another realm given as the value is copied whole: links, lists, sets and
    /// maps of values, of objects and of embedded objects, embedded objects, `AnyRealmValue`.
    @Test func testAnObjectOfAnotherRealmIsCopiedWhole() throws {
        let other = try Self.memoryRealm()
        let realm = try Self.memoryRealm()
        let source = try Self.fullDog(in: other)

        let copy = try realm.write { try realm.create(CreateCopiesModels.Dog.self, value: source) }

        Self.expectFullDog(copy, in: realm)
        #expect(realm.objects(CreateCopiesModels.Toy.self).count == 3 && realm.objects(CreateCopiesModels.Tag.self).count == 2)
        // The source is read, never changed.
        Self.expectFullDog(source, in: other)
        #expect(other.objects(CreateCopiesModels.Dog.self).count == 1 && other.objects(CreateCopiesModels.Toy.self).count == 3)
    }

    /// A value that is a list of objects of another realm, each with its own links, copies
    /// each, as RealmSwift's deeply nested copy does.
    @Test func testObjectsNestedInAnObjectOfAnotherRealmAreCopied() throws {
        let other = try Self.memoryRealm()
        let realm = try Self.memoryRealm()
        let first = try Self.fullDog(in: other)
        let holder = try other.write {
            try other.create(CreateCopiesModels.Dog.self, value: ["name": "holder", "friend": first])
        }

        let copy = try realm.write { try realm.create(CreateCopiesModels.Dog.self, value: holder) }

        #expect(copy.name == "holder")
        Self.expectFullDog(try #require(copy.friend), in: realm)
        #expect(realm.objects(CreateCopiesModels.Dog.self).count == 2)
        #expect(other.objects(CreateCopiesModels.Dog.self).count == 2)
    }

    /// Under `.all`, an object of another realm given as the value updates the object with its
    /// primary key: a nil link clears the link, and its list's objects are added or updated by key.
    @Test func testAnObjectOfAnotherRealmUpdatesTheObjectWithItsPrimaryKey() throws {
        let other = try Self.memoryRealm()
        let realm = try Self.memoryRealm()
        let source = try other.write {
            try other.create(CreateCopiesModels.Owner.self, value: ["id": 1, "name": "Ali", "toys": [["2", 2], ["4", 4]]])
        }
        let owner = try realm.write { () -> CreateCopiesModels.Owner in
            try realm.create(CreateCopiesModels.Owner.self, value: ["id": 1, "name": "Bo", "favoriteToy": ["10", 10], "toys": [["11", 11]]])
            return try realm.create(CreateCopiesModels.Owner.self, value: source, update: .all)
        }

        #expect(owner.realm === realm && owner !== source)
        #expect(realm.objects(CreateCopiesModels.Owner.self).count == 1)
        #expect(owner.name == "Ali" && owner.favoriteToy == nil)
        #expect(owner.toys.map(\.name) == ["2", "4"])
        #expect(Set(realm.objects(CreateCopiesModels.Toy.self).map(\.name)) == ["10", "11", "2", "4"])
        #expect(source.realm === other && source.name == "Ali" && other.objects(CreateCopiesModels.Toy.self).count == 2)
    }

    /// A frozen object is read like an object of another realm: copied.
    @Test func testAFrozenObjectIsCopied() throws {
        let other = try Self.memoryRealm()
        let realm = try Self.memoryRealm()
        let source = try Self.fullDog(in: other)
        let frozen = try source.freeze().frozenObject

        let copy = try realm.write { try realm.create(CreateCopiesModels.Dog.self, value: frozen) }

        Self.expectFullDog(copy, in: realm)
        #expect(frozen.isFrozen)
    }

    /// Links that make a cycle are copied once each: the copy has the source's shape.
    @Test func testACycleOfLinksIsCopiedOnce() throws {
        let other = try Self.memoryRealm()
        let realm = try Self.memoryRealm()
        let rex = try other.write { () -> CreateCopiesModels.Dog in
            let rex = try other.create(CreateCopiesModels.Dog.self, value: ["name": "Rex"])
            rex.friend = try other.create(CreateCopiesModels.Dog.self, value: ["name": "Fido", "friend": rex])
            return rex
        }

        let copy = try realm.write { try realm.create(CreateCopiesModels.Dog.self, value: rex) }

        #expect(realm.objects(CreateCopiesModels.Dog.self).count == 2)
        #expect(copy.friend?.name == "Fido")
        #expect(copy.friend?.friend?.name == "Rex")
        #expect(copy.friend?.friend?._state?.key == copy._state?.key)
    }

    /// A deleted object in the value throws `.invalidObject` before anything changes.
    @Test func testADeletedObjectInTheValueThrowsAndChangesNothing() throws {
        let realm = try Self.memoryRealm()
        let toy = try realm.write { try realm.create(CreateCopiesModels.Toy.self, value: ["name": "gone"]) }
        try realm.write { try realm.delete(toy) }

        try realm.write {
            let error = #expect(throws: RealmError.self) {
                try realm.create(CreateCopiesModels.Owner.self, value: ["id": 1, "favoriteToy": toy])
            }
            #expect(error?.code == .invalidObject)
        }
        #expect(realm.objects(CreateCopiesModels.Owner.self).isEmpty)
    }

    // MARK: - The same realm

    /// An object of the same realm in the value is linked, not copied.
    @Test func testALinkedObjectOfTheSameRealmIsLinked() throws {
        let realm = try Self.memoryRealm()
        let (toy, tag) = try realm.write {
            (
                try realm.create(CreateCopiesModels.Toy.self, value: ["name": "wubba"]),
                try realm.create(CreateCopiesModels.Tag.self, value: ["label": "a"])
            )
        }

        let dog = try realm.write { try realm.create(CreateCopiesModels.Dog.self, value: ["favoriteToy": toy, "tags": [tag, tag]]) }

        #expect(realm.objects(CreateCopiesModels.Toy.self).count == 1 && realm.objects(CreateCopiesModels.Tag.self).count == 1)
        #expect(dog.favoriteToy?._state?.key == toy._state?.key)
        #expect(dog.tags.allSatisfy { $0._state?.key == tag._state?.key })
    }

    /// An object of the same realm given as the value is copied, with copies of its embedded
    /// objects and collections, while the objects it links to stay links.
    @Test func testAnObjectOfTheSameRealmIsCopiedWithItsEmbeddedObjects() throws {
        let realm = try Self.memoryRealm()
        let source = try Self.fullDog(in: realm)

        let copy = try realm.write { try realm.create(CreateCopiesModels.Dog.self, value: source) }

        #expect(copy._state?.key != source._state?.key)
        Self.expectFullDog(copy, in: realm)
        Self.expectFullDog(source, in: realm)
        #expect(realm.objects(CreateCopiesModels.Dog.self).count == 2)
        #expect(realm.objects(CreateCopiesModels.Toy.self).count == 3 && realm.objects(CreateCopiesModels.Tag.self).count == 2)
        #expect(copy.favoriteToy?._state?.key == source.favoriteToy?._state?.key)
        #expect(copy.address?._state?.key != source.address?._state?.key)
    }

    /// Under `.modified` or `.all`, an object of the same realm given as the value is the
    /// object `create` returns, unchanged.
    @Test(arguments: [UpdatePolicy.modified, .all])
    func testAnObjectOfTheSameRealmUnderAnUpdatePolicyIsReturned(_ policy: UpdatePolicy) throws {
        let realm = try Self.memoryRealm()
        let owner = try realm.write { try realm.create(CreateCopiesModels.Owner.self, value: ["id": 1, "name": "Ali", "toys": [["a"]]]) }

        let same = try realm.write { try realm.create(CreateCopiesModels.Owner.self, value: owner, update: policy) }

        #expect(same === owner)
        #expect(owner.name == "Ali" && owner.toys.map(\.name) == ["a"])
        #expect(realm.objects(CreateCopiesModels.Owner.self).count == 1 && realm.objects(CreateCopiesModels.Toy.self).count == 1)
    }

    // MARK: - Unmanaged objects

    /// An unmanaged object in the value is copied and stays unmanaged, and so do the objects
    /// it links to; an unmanaged object given as the value stays unmanaged too.
    @Test func testUnmanagedObjectsInTheValueAreCopiedAndStayUnmanaged() throws {
        let realm = try Self.memoryRealm()
        let standalone = CreateCopiesModels.Toy(value: ["name": "p0", "squeaks": 11])
        let address = CreateCopiesModels.Address(value: ["street": "Elm", "units": [[1]]])
        let source = CreateCopiesModels.Dog(value: ["name": "Rex", "address": ["street": "Oak"]])

        let owner = try realm.write {
            try realm.create(CreateCopiesModels.Owner.self, value: ["id": 1, "favoriteToy": ["p1", 12], "toys": [standalone]])
        }
        let dog = try realm.write {
            try realm.create(CreateCopiesModels.Dog.self, value: ["pastAddresses": [address, address]])
        }
        let copy = try realm.write { try realm.create(CreateCopiesModels.Dog.self, value: source) }

        #expect(standalone.realm == nil)
        #expect(owner.toys.first?.name == "p0" && owner.toys.first?.realm === realm)
        #expect(owner.favoriteToy?.name == "p1")
        #expect(realm.objects(CreateCopiesModels.Toy.self).count == 2)
        #expect(address.realm == nil && address.units.first?.realm == nil)
        #expect(dog.pastAddresses.map(\.street) == ["Elm", "Elm"] && dog.pastAddresses.first?.units.first?.number == 1)
        #expect(source.realm == nil && source.address?.realm == nil)
        #expect(copy.address?.street == "Oak" && copy.address?.realm === realm)
    }

    /// A list taken from an unmanaged object and given in the value, at its top or inside a
    /// nested dictionary, is copied: the unmanaged object's list stays its own, and so do the
    /// objects in it (an object reached twice is copied once).
    @Test func testAnUnmanagedListInTheValueIsCopied() throws {
        let realm = try Self.memoryRealm()
        let source = CreateCopiesModels.Dog(value: ["nicknames": ["a", "b"], "tags": [["label": "x"]]])
        let toy = CreateCopiesModels.Toy(value: ["name": "ball"])

        let dog = try realm.write {
            try realm.create(
                CreateCopiesModels.Dog.self,
                value: [
                    "nicknames": source.nicknames, "tags": source.tags,
                    "friend": ["nicknames": source.nicknames, "tags": source.tags, "favoriteToy": toy] as [String: Any],
                ])
        }

        #expect(Array(dog.nicknames) == ["a", "b"] && dog.tags.first?.label == "x")
        #expect(dog.friend.map { Array($0.nicknames) } == ["a", "b"] && dog.friend?.tags.first?.label == "x")
        #expect(dog.friend?.favoriteToy?.name == "ball" && dog.friend?.favoriteToy?.realm === realm)
        source.nicknames.append("c")
        #expect(Array(dog.nicknames) == ["a", "b"] && dog.friend.map { Array($0.nicknames) } == ["a", "b"])
        #expect(source.tags.first?.realm == nil && toy.realm == nil)
        // The one tag, reached twice, is copied once.
        #expect(realm.objects(CreateCopiesModels.Tag.self).count == 1)
    }

    /// An unmanaged embedded object that holds itself cannot be copied (each copy would need
    /// another): `create` throws, and changes nothing.
    @Test func testAnEmbeddedObjectThatHoldsItselfThrows() throws {
        let realm = try Self.memoryRealm()
        let unit = CreateCopiesModels.Unit(value: ["number": 1])
        unit.inner = unit
        defer { unit.inner = nil }

        try realm.write {
            let error = #expect(throws: RealmError.self) {
                try realm.create(CreateCopiesModels.Dog.self, value: ["address": ["street": "Elm", "unit": unit]])
            }
            #expect(error?.code == .invalidArgument)
        }
        #expect(realm.objects(CreateCopiesModels.Dog.self).isEmpty)
    }

    /// A chain of 100,000 links in another realm is copied from a worklist, not recursively:
    /// in a child process, so that a stack overflow fails the test rather than the suite.
    @Test func testADeepChainOfAnotherRealmIsCopiedWithoutRecursion() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepNestedValueTests.depth
            let other = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-copy-source"))
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-copy-target"))
            let source = try other.write { try other.create(DeepObjectGraphModels.Link.self, value: DeepNestedValueTests.links(depth)) }
            let copy = try realm.write { try realm.create(DeepObjectGraphModels.Link.self, value: source) }
            guard realm.objects(DeepObjectGraphModels.Link.self).count == depth, other.objects(DeepObjectGraphModels.Link.self).count == depth else {
                exit(3)
            }
            guard copy.realm === realm, DeepNestedValueTests.walk(copy) == depth - 1 else { exit(4) }
        }
    }
}
