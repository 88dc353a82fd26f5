import BurrowTestTraits
import Testing

@testable import Burrow

/// The models of `PortedModelBehaviourTests`.
enum PortedModelBehaviourModels {
    final class Kennel: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var toys: List<CommonModels.DogToy>
        @Persisted var breeds: MutableSet<String>
        @Persisted var capacityByRoom: Map<String, Int>
        @Persisted var rooms: List<PortedModelBehaviourModels.KennelRoom>
        @Persisted var annex: PortedModelBehaviourModels.Kennel?
    }

    final class KennelRoom: EmbeddedObject {
        @Persisted var number = 0
        @Persisted var beds: List<Int>
    }

    /// A model that prints itself its own way, as RealmSwift models may.
    final class Postcard: Object {
        @Persisted var greeting = ""
        override var description: String { "Postcard saying \(greeting)" }
    }
}

/// Model behaviours that code ported from RealmSwift relies on.
@Suite(.temporaryDirectory) struct PortedModelBehaviourTests {
    // MARK: Collections taken before add

    @Test func testCollectionsTakenBeforeAddWriteToTheFileAfterIt() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let kennel = PortedModelBehaviourModels.Kennel(value: ["id": 1])
        let toys = kennel.toys
        let breeds = kennel.breeds
        let capacity = kennel.capacityByRoom
        toys.append(CommonModels.DogToy(value: ["name": "rope"]))
        capacity["north"] = 4
        #expect(toys.realm == nil && breeds.realm == nil && capacity.realm == nil)

        try realm.write { try realm.add(kennel) }
        #expect(toys.realm != nil && breeds.realm != nil && capacity.realm != nil)
        #expect(toys.map(\.name) == ["rope"] && Array(capacity.keys) == ["north"] && breeds.isEmpty)
        try realm.write {
            toys.append(CommonModels.DogToy(value: ["name": "ball"]))
            breeds.insert("beagle")
            capacity["south"] = 2
        }

        let read = try #require(realm.objects(PortedModelBehaviourModels.Kennel.self).first)
        #expect(read.toys.map(\.name) == ["rope", "ball"])
        #expect(Array(read.breeds) == ["beagle"])
        #expect(read.capacityByRoom.map { "\($0.key)=\($0.value)" } == ["north=4", "south=2"])
        #expect(realm.objects(CommonModels.DogToy.self).count == 2, "the appended toy was added to the realm")
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
    }

    @Test func testCollectionsOfLinkedAndEmbeddedObjectsBecomeManagedWithTheirParent() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let annex = PortedModelBehaviourModels.Kennel(value: ["id": 2])
        let annexBreeds = annex.breeds
        let room = PortedModelBehaviourModels.KennelRoom(value: ["number": 7])
        let beds = room.beds
        let kennel = PortedModelBehaviourModels.Kennel(value: ["id": 1, "annex": annex])
        kennel.rooms.append(room)

        try realm.write {
            try realm.add(kennel)
            annexBreeds.insert("collie")
            beds.append(3)
        }
        #expect(annexBreeds.realm != nil && beds.realm != nil)
        let readAnnex = try #require(realm.object(ofType: PortedModelBehaviourModels.Kennel.self, forPrimaryKey: 2))
        #expect(Array(readAnnex.breeds) == ["collie"])
        let readRoom = try #require(realm.object(ofType: PortedModelBehaviourModels.Kennel.self, forPrimaryKey: 1)?.rooms.first)
        #expect(Array(readRoom.beds) == [3])
    }

    @Test func testAddThatUpdatesAnExistingObjectMakesItsCollectionsManaged() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(PortedModelBehaviourModels.Kennel(value: ["id": 1, "breeds": ["pug"]])) }
        let replacement = PortedModelBehaviourModels.Kennel(value: ["id": 1, "breeds": ["husky"]])
        let breeds = replacement.breeds
        try realm.write {
            try realm.add(replacement, update: .modified)
            breeds.insert("akita")
        }
        #expect(breeds.realm != nil)
        // `.modified` adds the set's elements to the stored set, as RealmSwift's does.
        #expect(
            Set(try #require(realm.object(ofType: PortedModelBehaviourModels.Kennel.self, forPrimaryKey: 1)).breeds) == ["akita", "husky", "pug"])
    }

    @Test func testCancelledAddLeavesTakenCollectionsUnmanagedWithTheirElements() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let kennel = PortedModelBehaviourModels.Kennel(value: ["id": 1, "breeds": ["pug"], "capacityByRoom": ["north": 4]])
        let toys = kennel.toys
        let breeds = kennel.breeds
        let capacity = kennel.capacityByRoom
        toys.append(CommonModels.DogToy(value: ["name": "rope"]))

        try realm.beginWrite()
        try realm.add(kennel)
        toys.append(CommonModels.DogToy(value: ["name": "ball"]))
        try realm.cancelWrite()
        #expect(toys.realm == nil && breeds.realm == nil && capacity.realm == nil)
        #expect(toys.map(\.name) == ["rope"] && Array(breeds) == ["pug"] && capacity["north"] == 4)
        toys.append(CommonModels.DogToy(value: ["name": "bone"]))

        try realm.write { try realm.add(kennel) }
        #expect(toys.realm != nil)
        #expect(try #require(realm.objects(PortedModelBehaviourModels.Kennel.self).first).toys.map(\.name) == ["rope", "bone"])
    }

    @Test func testCommittedAddLetsGoOfTheUnmanagedElements() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        weak var unmanagedToy: CommonModels.DogToy?
        weak var addedKennel: PortedModelBehaviourModels.Kennel?
        var toys: List<CommonModels.DogToy>? = nil
        do {
            let kennel = PortedModelBehaviourModels.Kennel(value: ["id": 1])
            let toy = CommonModels.DogToy(value: ["name": "rope"])
            kennel.toys.append(toy)
            toys = kennel.toys
            unmanagedToy = toy
            addedKennel = kennel
            try realm.write { try realm.add(kennel) }
        }
        #expect(unmanagedToy == nil, "the list reads the realm; it holds no object it had before")
        #expect(toys?.first?.name == "rope")
        toys = nil
        #expect(addedKennel == nil, "nothing keeps the added object alive")
    }

    @Test func testACollectionGivenAsAValueIsCopiedNotTaken() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let source = PortedModelBehaviourModels.Kennel(value: ["id": 1, "breeds": ["pug"], "capacityByRoom": ["north": 4]])
        source.toys.append(CommonModels.DogToy(value: ["name": "rope"]))
        let fromValues = PortedModelBehaviourModels.Kennel(value: [
            "id": 2, "toys": source.toys, "breeds": source.breeds, "capacityByRoom": source.capacityByRoom,
        ])
        let fromObject = PortedModelBehaviourModels.Kennel(value: source)
        fromObject.id = 3
        try realm.write {
            try realm.add(fromValues)
            try realm.add(fromObject)
        }
        #expect(source.toys.realm == nil && source.breeds.realm == nil && source.capacityByRoom.realm == nil)
        source.breeds.insert("husky")
        source.capacityByRoom["south"] = 2
        for copy in [fromValues, fromObject] {
            #expect(copy.toys.map(\.name) == ["rope"] && Array(copy.breeds) == ["pug"] && Array(copy.capacityByRoom.keys) == ["north"])
        }
    }

    // MARK: Moving embedded objects within their list

    private func kennelWithRooms(_ realm: Realm) throws -> PortedModelBehaviourModels.Kennel {
        let kennel = PortedModelBehaviourModels.Kennel(value: ["id": 1, "rooms": (0..<4).map { ["number": $0, "beds": [$0]] }])
        try realm.write { try realm.add(kennel) }
        return kennel
    }

    @Test func testMovingAnEmbeddedObjectWithinItsListKeepsIt() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let kennel = try kennelWithRooms(realm)
        let first = kennel.rooms[0]
        try realm.write { kennel.rooms.move(from: 0, to: 2) }
        #expect(kennel.rooms.map(\.number) == [1, 2, 0, 3])
        #expect(!first.isInvalidated && first.number == 0 && Array(first.beds) == [0])
        try realm.write { kennel.rooms.move(from: 3, to: 0) }
        #expect(kennel.rooms.map(\.number) == [3, 1, 2, 0])
        #expect(kennel.rooms.map { Array($0.beds) } == [[3], [1], [2], [0]])
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
    }

    @Test func testSwappingEmbeddedObjectsWithinTheirListKeepsThem() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let kennel = try kennelWithRooms(realm)
        let last = kennel.rooms[3]
        try realm.write { kennel.rooms.swapAt(0, 3) }
        #expect(kennel.rooms.map(\.number) == [3, 1, 2, 0])
        #expect(!last.isInvalidated && last.number == 3)
        try realm.write { kennel.rooms.swapAt(1, 1) }
        #expect(kennel.rooms.map(\.number) == [3, 1, 2, 0])
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
    }

    @Test func testMovesAndSwapsOfAnyListMatchAnArray() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let kennel = try kennelWithRooms(realm)
        let toys = (0..<5).map { CommonModels.DogToy(value: ["name": "t\($0)"]) }
        try realm.write { kennel.toys.append(objectsIn: toys) }
        var model = toys.map(\.name)
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: 0..<5)
        var numbers = Array(0..<5)
        try realm.write {
            for (from, to) in [(0, 4), (4, 0), (1, 3), (2, 2)] {
                kennel.toys.move(from: from, to: to)
                model.insert(model.remove(at: from), at: to)
                unmanaged.move(from: from, to: to)
                numbers.insert(numbers.remove(at: from), at: to)
            }
            kennel.toys.swapAt(0, 4)
            model.swapAt(0, 4)
            unmanaged.swapAt(0, 4)
            numbers.swapAt(0, 4)
        }
        #expect(kennel.toys.map(\.name) == model)
        #expect(Array(unmanaged) == numbers)
        #expect(realm.objects(CommonModels.DogToy.self).count == 5)
    }

    @Test func testMovingOutOfBoundsTraps() async {
        await #expect(processExitsWith: .failure) {
            // In memory: the child ends in a trap, which would leave a file behind.
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "traps"))
            let kennel = PortedModelBehaviourModels.Kennel(value: ["id": 1, "rooms": [["number": 0]]])
            try realm.write {
                try realm.add(kennel)
                kennel.rooms.move(from: 0, to: 1)
            }
        }
    }

    // MARK: description

    @Test func testAModelsOwnDescriptionIsUsed() throws {
        let card = PortedModelBehaviourModels.Postcard(value: ["greeting": "hello"])
        #expect(card.description == "Postcard saying hello")
        #expect("\(card)" == "Postcard saying hello")
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(card) }
        let read = try #require(realm.objects(PortedModelBehaviourModels.Postcard.self).first)
        #expect(String(describing: read) == "Postcard saying hello")
        #expect(String(describing: [read as ObjectBase]) == "[Postcard saying hello]")
    }

    @Test func testAModelWithoutItsOwnDescriptionPrintsItsProperties() {
        let toy = CommonModels.DogToy(value: ["name": "rope"])
        #expect(toy.description == "DogToy {\n\tname = rope;\n}")
        #expect("\(toy)" == toy.description)
    }

    /// RealmSwift's `testValueForKeyOptionals`: an optional property that holds nothing reads as
    /// nil through key-value coding, unmanaged and managed, and one that holds a value reads as
    /// that value.
    @Test func keyValueCodingReadsAnEmptyOptionalAsNil() throws {
        func check(_ object: ObjectSuiteModels.RTEverything) {
            #expect(object.value(forKey: "optInt") == nil)
            #expect(object.value(forKey: "optString") == nil)
            #expect(object["optDate"] == nil)
            #expect(object.value(forKey: "int") as? Int == object.int, "a plain value is itself")
        }
        let unmanaged = ObjectSuiteModels.RTEverything()
        check(unmanaged)
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(unmanaged) }
        check(unmanaged)
        try realm.write { unmanaged.optInt = 7 }
        #expect(unmanaged.value(forKey: "optInt") as? Int == 7)
    }
}
