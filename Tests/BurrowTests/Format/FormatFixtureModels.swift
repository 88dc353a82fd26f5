import Burrow
import Foundation

/// The classes and objects of the format fixtures (`Fixtures/format4/*.burrow`,
/// `Fixtures/format5/*.burrow`): files that the code of file formats 4 and 5 wrote, kept so that
/// opening, reading and upgrading them is tested on real files of those formats. The same
/// objects are made here, by the same deterministic rules, to compare with what a fixture holds.
enum FormatFixture {
    final class Address: EmbeddedObject {
        @Persisted var street = ""
        @Persisted var number: Int?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
        @Persisted var address: Address?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    final class Dog: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var big = 0
        @Persisted var optionalAge: Int?
        @Persisted(indexed: true) var chip: Int?
        @Persisted var weight: Double?
        @Persisted var height: Float = 0
        @Persisted var born = Date(timeIntervalSinceReferenceDate: 0)
        @Persisted var vaccinated = false
        @Persisted var notes = ""
        @Persisted var photo: Data?
        @Persisted var price = Decimal128(0)
        @Persisted var tag = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        @Persisted var toys: List<String>
        @Persisted var scores: List<Int>
        @Persisted var cities: MutableSet<String>
        @Persisted var luckyNumbers: MutableSet<Int>
        @Persisted var parks: Map<String, String>
        @Persisted var counts: Map<String, Int>
        @Persisted var companion: AnyRealmValue
        @Persisted var friend: Dog?
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<Owner>
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    static let objectTypes: [ObjectBase.Type] = [Address.self, Owner.self, Dog.self]

    /// Integers at every width boundary of a narrow encoding, and the extremes.
    static let boundaryInts: [Int] = [
        0, 1, -1, 127, 128, -128, -129, 255, 256, 32_767, 32_768, -32_768, -32_769, 8_388_607, 8_388_608, 2_147_483_647,
        2_147_483_648, -2_147_483_648, -2_147_483_649, 1 << 40, -(1 << 40), 1 << 55, -(1 << 55), 1 << 56, Int.max, Int.min,
    ]

    /// Dog `i` of a fixture, with every field set by `i` alone.
    static func dog(_ i: Int) -> Dog {
        let dog = Dog()
        dog._id = try! ObjectId(string: "6553f100aabbccddee" + String(format: "%06x", i))
        dog.name = "Dog \(i % 97) \(i)"
        dog.age = i % 20
        dog.big = boundaryInts[i % boundaryInts.count]
        dog.optionalAge = i % 3 == 0 ? nil : i % 15
        dog.chip = i % 4 == 0 ? nil : 1_000_000 + i
        dog.weight = i % 5 == 0 ? nil : Double(i) / 4
        dog.height = Float(i % 50) / 2
        dog.born = Date(timeIntervalSinceReferenceDate: Double(i) * 86_400.5)
        dog.vaccinated = i % 2 == 0
        // Every 25th dog's notes are too long for its row and live in the blob tree.
        dog.notes = i % 25 == 0 ? String(repeating: "long notes \(i). ", count: 200) : (i % 7 == 0 ? "" : "notes \(i)")
        dog.photo = i % 6 == 0 ? nil : Data((0..<(i % 40)).map { UInt8(($0 * 7 + i) & 0xFF) })
        dog.price = try! Decimal128(string: "\(i).\(i % 100)")
        dog.tag = UUID(uuidString: String(format: "%08x-0000-4000-8000-%012x", i, i * 31))!
        dog.toys.append(objectsIn: (0..<(i % 4)).map { "toy \($0) of \(i)" })
        dog.scores.append(objectsIn: (0..<(i % 5)).map { boundaryInts[($0 + i) % boundaryInts.count] })
        dog.cities.insert(objectsIn: (0..<(i % 3)).map { "city \($0 + i % 10)" })
        dog.luckyNumbers.insert(objectsIn: (0..<(i % 4)).map { $0 * 1000 - 1500 })
        for k in 0..<(i % 3) { dog.parks["city \(k)"] = "park \(i + k)" }
        for k in 0..<(i % 4) { dog.counts["k\(k)"] = boundaryInts[(i + k) % boundaryInts.count] }
        switch i % 6 {
        case 0: dog.companion = .none
        case 1: dog.companion = .int(boundaryInts[i % boundaryInts.count])
        case 2: dog.companion = .string("companion \(i)")
        case 3: dog.companion = .double(Double(i) + 0.5)
        case 4: dog.companion = .bool(true)
        default: dog.companion = .data(Data([1, 2, UInt8(i & 0xFF)]))
        }
        return dog
    }

    /// Owner `i` of a fixture (its dogs are linked by `fill`).
    static func owner(_ i: Int) -> Owner {
        let owner = Owner()
        owner.id = i < boundaryInts.count ? boundaryInts[i] : i * 1_000_003
        owner.name = "Owner \(i)"
        if i % 2 == 0 {
            let address = Address()
            address.street = "\(i) Main Street"
            address.number = i % 4 == 0 ? nil : i
            owner.address = address
        }
        return owner
    }

    /// Adds `dogs` dogs and `dogs / 10` owners to `realm`, in one write: dog `i` befriends dog
    /// `i / 2`, owner `j` has the dogs `j * 10 ..< j * 10 + j % 7`.
    static func fill(_ realm: Realm, dogs: Int) throws {
        try realm.write {
            var made: [Dog] = []
            for i in 0..<dogs {
                let dog = dog(i)
                if i > 0 { dog.friend = made[i / 2] }
                if i % 6 == 5 { dog.companion = .object(made[i / 3]) }
                try realm.add(dog)
                made.append(dog)
            }
            for j in 0..<(dogs / 10) {
                let owner = owner(j)
                owner.dogs.append(objectsIn: made[(j * 10)..<min(dogs, j * 10 + j % 7)])
                try realm.add(owner)
            }
        }
    }
}

extension FormatFixture {
    /// The dogs the fixtures' second write deleted (`Fixtures/format4/README.md`, `format5`).
    static let deletedDogs = Set(stride(from: 3, to: 600, by: 40))
    /// The dogs a fixture was filled with.
    static let dogCount = 600

    static func id(_ i: Int) -> ObjectId {
        try! ObjectId(string: "6553f100aabbccddee" + String(format: "%06x", i))
    }

    /// What differs between `realm`'s objects and the fixture's, described (empty when none).
    static func differences(in realm: Realm) -> [String] {
        var found: [String] = []
        let dogs = realm.objects(Dog.self)
        if dogs.count != dogCount - deletedDogs.count { found.append("\(dogs.count) dogs") }
        for i in 0..<dogCount {
            let dog = realm.object(ofType: Dog.self, forPrimaryKey: id(i))
            if deletedDogs.contains(i) {
                if dog != nil { found.append("deleted dog \(i) is there") }
                continue
            }
            guard let dog else {
                found.append("dog \(i) is missing")
                continue
            }
            let expected = Self.dog(i)
            var same =
                dog.name == expected.name && dog.age == expected.age && dog.big == expected.big
                && dog.optionalAge == expected.optionalAge && dog.chip == expected.chip && dog.weight == expected.weight
                && dog.height == expected.height && dog.born == expected.born && dog.vaccinated == expected.vaccinated
                && dog.notes == expected.notes && dog.photo == expected.photo && dog.price == expected.price && dog.tag == expected.tag
            same = same && Array(dog.toys) == Array(expected.toys) && Array(dog.scores) == Array(expected.scores)
            same = same && Set(dog.cities) == Set(expected.cities) && Set(dog.luckyNumbers) == Set(expected.luckyNumbers)
            same =
                same
                && Dictionary(uniqueKeysWithValues: dog.parks.map { ($0.key, $0.value) })
                    == Dictionary(uniqueKeysWithValues: expected.parks.map { ($0.key, $0.value) })
            same =
                same
                && Dictionary(uniqueKeysWithValues: dog.counts.map { ($0.key, $0.value) })
                    == Dictionary(uniqueKeysWithValues: expected.counts.map { ($0.key, $0.value) })
            let friend = i > 0 && !deletedDogs.contains(i / 2) ? id(i / 2) : nil
            same = same && dog.friend?._id == friend
            if i % 6 == 5 {
                let target = deletedDogs.contains(i / 3) ? nil : id(i / 3)
                same = same && (dog.companion.object(Dog.self)?._id == target)
            } else {
                same = same && dog.companion == expected.companion
            }
            if !same { found.append("dog \(i) differs") }
        }
        let owners = realm.objects(Owner.self)
        if owners.count != dogCount / 10 { found.append("\(owners.count) owners") }
        for j in 0..<(dogCount / 10) {
            let expected = owner(j)
            guard let owner = realm.object(ofType: Owner.self, forPrimaryKey: expected.id) else {
                found.append("owner \(j) is missing")
                continue
            }
            let dogIds = (j * 10..<min(dogCount, j * 10 + j % 7)).filter { !deletedDogs.contains($0) }.map(id)
            if owner.name != expected.name || owner.dogs.map(\._id) != dogIds || owner.address?.street != expected.address?.street
                || owner.address?.number != expected.address?.number
            {
                found.append("owner \(j) differs")
            }
        }
        return found
    }

    /// What differs between queries on `realm`'s dogs (an index, a scan, an aggregate, a sort)
    /// and the same questions answered from the fixture's rules.
    static func queryDifferences(in realm: Realm) throws -> [String] {
        let kept = (0..<dogCount).filter { !deletedDogs.contains($0) }.map { dog($0) }
        let dogs = realm.objects(Dog.self)
        var found: [String] = []
        if dogs.where({ $0.age == 7 }).count != kept.filter({ $0.age == 7 }).count { found.append("age == 7") }
        if try dogs.filter("name == %@", "Dog 5 5").count != kept.filter({ $0.name == "Dog 5 5" }).count { found.append("name ==") }
        if dogs.where({ $0.chip > 1_000_300 }).count != kept.filter({ ($0.chip ?? 0) > 1_000_300 }).count { found.append("chip >") }
        if dogs.sum(ofProperty: "age") as Int != kept.reduce(0, { $0 + $1.age }) { found.append("sum of age") }
        if dogs.max(ofProperty: "big") as Int? != kept.map(\.big).max() { found.append("max of big") }
        if dogs.min(ofProperty: "big") as Int? != kept.map(\.big).min() { found.append("min of big") }
        if dogs.sorted(byKeyPath: "big").map(\.big) != kept.map(\.big).sorted() { found.append("sorted by big") }
        if dogs.where({ $0.scores.count > 2 }).count != kept.filter({ $0.scores.count > 2 }).count { found.append("scores.@count") }
        return found
    }
}
