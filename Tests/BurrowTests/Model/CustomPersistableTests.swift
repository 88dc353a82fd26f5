import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Types stored as other types, after RealmSwift's `CustomPersistableTestObjects`.
enum CustomPersistableModels {
    struct IntWrapper: CustomPersistable {
        typealias PersistedType = Int
        var value: Int
        init(value: Int) { self.value = value }
        init(persistedValue: Int) { value = persistedValue }
        var persistableValue: Int { value }
    }

    struct StringWrapper: CustomPersistable {
        typealias PersistedType = String
        var value: String
        init(persistedValue: String) { value = persistedValue }
        var persistableValue: String { value }
    }

    /// Fails for 1, as RealmSwift's `IntFailableWrapper`.
    struct IntFailableWrapper: FailableCustomPersistable {
        typealias PersistedType = Int
        let persistableValue: Int
        init?(persistedValue: Int) {
            if persistedValue == 1 { return nil }
            persistableValue = persistedValue
        }
    }

    /// Fails for its persisted type's default, 0.
    struct InvalidDefault: FailableCustomPersistable {
        typealias PersistedType = Int
        let persistableValue: Int
        init?(persistedValue: Int) {
            if persistedValue == 0 { return nil }
            persistableValue = persistedValue
        }
    }

    final class Address: EmbeddedObject {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var city = ""
        @Persisted var country = ""
    }

    /// Several values kept in an embedded object, as RealmSwift's `AddressSwiftWrapper`.
    struct AddressWrapper: CustomPersistable {
        typealias PersistedType = Address
        var city = ""
        var country = ""
        init(city: String, country: String) {
            self.city = city
            self.country = country
        }
        init(persistedValue: Address) {
            city = persistedValue.city
            country = persistedValue.country
        }
        var persistableValue: Address { Address(value: [city, country]) }
    }

    final class Holder: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var int: IntWrapper
        @Persisted var optionalInt: IntWrapper?
        @Persisted var string: StringWrapper
        @Persisted var url: URL?
        @Persisted var failable: IntFailableWrapper?
        @Persisted var requiredFailable = IntFailableWrapper(persistedValue: 2)!
        @Persisted var ints: List<IntWrapper>
        @Persisted var stringSet: MutableSet<StringWrapper>
        @Persisted var intMap: Map<String, IntWrapper?>
        @Persisted var address: AddressWrapper
        @Persisted var optionalAddress: AddressWrapper?
        @Persisted var addresses: List<AddressWrapper>
    }

    final class InvalidDefaultHolder: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var value: InvalidDefault
    }

    static let types: [ObjectBase.Type] = [Address.self, Holder.self]
}

/// `CustomPersistable` and `FailableCustomPersistable` (with `URL` stored as a `String`, as the
/// porting guide declares it in `PortingGuideTests`), as RealmSwift's
/// `CustomObjectCreationTests` and the protocols' documentation describe them: defaults,
/// creation from wrapped and persisted values, collections, embedded objects, queries on the
/// persisted values, and conversions that fail.
@Suite(.temporaryDirectory) struct CustomPersistableTests {
    typealias Holder = CustomPersistableModels.Holder
    typealias IntWrapper = CustomPersistableModels.IntWrapper
    typealias StringWrapper = CustomPersistableModels.StringWrapper
    typealias AddressWrapper = CustomPersistableModels.AddressWrapper

    private func makeRealm() throws -> Realm {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = CustomPersistableModels.types
        return try Realm(configuration: configuration)
    }

    @Test func theDefaultIsThePersistedTypesDefault() {
        let holder = Holder()
        #expect(holder.int == IntWrapper(value: 0))
        #expect(holder.optionalInt == nil)
        #expect(holder.string.value == "")
        #expect(holder.url == nil)
        #expect(holder.address.city == "")
        #expect(holder.requiredFailable.persistableValue == 2)
    }

    @Test func valuesRoundTripThroughTheFile() throws {
        let realm = try makeRealm()
        let holder = Holder()
        holder.int = IntWrapper(value: 7)
        holder.optionalInt = IntWrapper(value: 8)
        holder.string = StringWrapper(persistedValue: "s")
        holder.url = URL(string: "https://example.com/a?b=c")
        holder.ints.append(objectsIn: [IntWrapper(value: 1), IntWrapper(value: 2)])
        holder.stringSet.insert(StringWrapper(persistedValue: "x"))
        holder.intMap["k"] = IntWrapper(value: 3)
        holder.intMap.updateValue(nil, forKey: "nil")
        holder.address = AddressWrapper(city: "Oslo", country: "Norway")
        holder.addresses.append(AddressWrapper(city: "Bergen", country: "Norway"))
        try realm.write { try realm.add(holder) }

        let read = try #require(realm.object(ofType: Holder.self, forPrimaryKey: 0))
        #expect(read.int.value == 7)
        #expect(read.optionalInt?.value == 8)
        #expect(read.string.value == "s")
        #expect(read.url?.absoluteString == "https://example.com/a?b=c")
        #expect(read.ints.map(\.value) == [1, 2])
        #expect(read.stringSet.contains(StringWrapper(persistedValue: "x")))
        #expect(read.intMap["k"]??.value == 3)
        #expect(read.intMap.keys.sorted() == ["k", "nil"])
        #expect(read.address == AddressWrapper(city: "Oslo", country: "Norway"))
        #expect(read.optionalAddress == nil)
        #expect(read.addresses.first?.city == "Bergen")

        try realm.write {
            read.address = AddressWrapper(city: "Tromsø", country: "Norway")
            read.optionalAddress = AddressWrapper(city: "Paris", country: "France")
            read.int.value += 1
        }
        #expect(read.address.city == "Tromsø")
        #expect(read.optionalAddress?.country == "France")
        #expect(read.int.value == 8)
        let frozen = try read.freeze()
        #expect(frozen.address.city == "Tromsø")
    }

    @Test func objectsAreMadeFromWrappedOrPersistedValues() throws {
        // CustomObjectCreationTests: `init(value:)` takes either form, in a dictionary or an
        // array, and `create` does too.
        let wrapped = Holder(value: ["int": IntWrapper(value: 4), "url": URL(string: "a:b")!, "address": AddressWrapper(city: "c", country: "d")])
        let raw = Holder(value: ["int": 4, "url": "a:b", "address": ["city": "c", "country": "d"], "ints": [5, 6], "intMap": ["k": 7]])
        for holder in [wrapped, raw] {
            #expect(holder.int.value == 4)
            #expect(holder.url?.absoluteString == "a:b")
            #expect(holder.address.country == "d")
        }
        #expect(raw.ints.map(\.value) == [5, 6])
        #expect(raw.intMap["k"]??.value == 7)

        let realm = try makeRealm()
        let created = try realm.write { try realm.create(Holder.self, value: ["id": 1, "optionalInt": 9, "addresses": [["city": "e"]]]) }
        #expect(created.optionalInt?.value == 9)
        #expect(created.addresses.first?.city == "e")
        #expect(throws: RealmError.self) { try realm.write { try realm.create(Holder.self, value: ["id": 2, "int": "not a number"]) } }
        // A persisted value is stored as given, as in RealmSwift; one that does not convert
        // reads as nil through an optional property.
        let unconvertible = try realm.write { try realm.create(Holder.self, value: ["id": 3, "failable": 1]) }
        #expect(unconvertible.failable == nil)
    }

    @Test func queriesComparePersistedValues() throws {
        let realm = try makeRealm()
        try realm.write {
            for id in 1...4 {
                try realm.create(Holder.self, value: ["id": id, "int": id * 10, "url": "https://e.com/\(id)", "address": ["city": "c\(id)"]])
            }
        }
        let holders = realm.objects(Holder.self)
        #expect(holders.where { $0.int == IntWrapper(value: 20) }.map(\.id) == [2])
        #expect(try holders.filter("int == %@", IntWrapper(value: 30)).map(\.id) == [3])
        #expect(try holders.filter("int > 15").map(\.id) == [2, 3, 4])
        #expect(try holders.filter("url == %@", URL(string: "https://e.com/4")!).map(\.id) == [4])
        #expect(try holders.filter("address.city == 'c1'").map(\.id) == [1])
        #expect(holders.sorted(byKeyPath: "int", ascending: false).map(\.id) == [4, 3, 2, 1])
        #expect(holders.max(ofProperty: "int") as Int? == 40)
    }

    @Test func aValueThatDoesNotConvertReadsAsNilWhereOptional() throws {
        // FailableCustomPersistable: "collapsed to nil in Optional contexts".
        let realm = try makeRealm()
        let holder = try realm.write { try realm.create(Holder.self, value: ["id": 1, "failable": 5]) }
        #expect(holder.failable?.persistableValue == 5)
        let dynamic = try #require(realm.dynamicObject(ofType: "Holder", forPrimaryKey: 1))
        try realm.write { dynamic["failable"] = 1 }
        #expect(holder.failable == nil)
        try realm.write { dynamic["url"] = "" }
        #expect(holder.url == nil)
    }

    @Test func keyValueCodingGivesTheCustomValue() throws {
        let holder = Holder()
        holder.setValue(IntWrapper(value: 3), forKey: "int")
        #expect(holder.value(forKey: "int") as? IntWrapper == IntWrapper(value: 3))
        holder.setValue(4, forKey: "int")
        #expect(holder.int.value == 4)
        holder["optionalInt"] = IntWrapper(value: 5)
        #expect(holder.optionalInt?.value == 5)
    }

    @Test func aNonOptionalValueThatDoesNotConvertTraps() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "custom-persistable-trap")
            configuration.objectTypes = CustomPersistableModels.types
            let realm = try! Realm(configuration: configuration)
            let holder = try! realm.write { try realm.create(Holder.self, value: ["id": 1]) }
            let dynamic = realm.dynamicObject(ofType: "Holder", forPrimaryKey: 1)!
            try! realm.write { dynamic["requiredFailable"] = 1 }
            _ = holder.requiredFailable
        }
    }

    @Test func aDefaultThatDoesNotConvertTraps() async {
        // RealmSwift's testInvalidDefaultInit.
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = CustomPersistableModels.InvalidDefaultHolder().value
        }
        let message = standardError(of: result)
        #expect(message.contains("Failed to default construct a InvalidDefault using the default value for persisted type Int"), "\(message)")
    }
}
