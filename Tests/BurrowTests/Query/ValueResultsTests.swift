import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Models of the collections of values and maps of objects RealmSwift's primitive-collection
/// and map tests query.
enum ValueResultsModels {
    final class Item: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
        @Persisted var weight = 0
    }

    enum Size: Int, PersistableEnum {
        case small = 1
        case medium
        case large
    }

    final class Holder: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var ints: List<Int>
        @Persisted var optionalInts: List<Int?>
        @Persisted var strings: List<String>
        @Persisted var dates: List<Date>
        @Persisted var anys: List<AnyRealmValue>
        @Persisted var sizes: List<Size>
        @Persisted var intSet: MutableSet<Int>
        @Persisted var doubleMap: Map<String, Double>
        @Persisted var itemMap: Map<String, Item?>
        @Persisted var items: List<Item>
    }

    static let types: [ObjectBase.Type] = [Item.self, Holder.self]
}

/// `Results` of values, as RealmSwift's: the queries of a `List`, `MutableSet` or `Map` of values
/// (`sorted(ascending:)`, `distinct()`, `filter("self …")`, `where { $0 … }`), of a `Map` of
/// objects (`Results<Item?>`), `index(matching:)` on lists of values (unmanaged too), and the
/// key-path forms (`SortDescriptor(keyPath: \.x)`, `min(of:)`, `distinct(by: [\.x])`).
@Suite(.temporaryDirectory) struct ValueResultsTests {
    typealias Holder = ValueResultsModels.Holder
    typealias Item = ValueResultsModels.Item

    /// A realm of a new file with the suite's classes, and a managed holder in it.
    private func makeHolder() throws -> (Realm, Holder) {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = ValueResultsModels.types
        let realm = try Realm(configuration: configuration)
        let holder = Holder()
        try realm.write { try realm.add(holder) }
        return (realm, holder)
    }

    @Test func sortedAndDistinctValuesOfAList() throws {
        // PrimitiveListTests.testSorted and testDistinct: a rotated list sorts back; the
        // values appended twice come out once, in first-seen order.
        let (realm, holder) = try makeHolder()
        try realm.write { holder.ints.append(objectsIn: [2, 3, 1, 2, 3, 1]) }
        let ascending: Results<Int> = holder.ints.sorted(ascending: true)
        #expect(Array(ascending) == [1, 1, 2, 2, 3, 3])
        #expect(Array(holder.ints.sorted(ascending: false)) == [3, 3, 2, 2, 1, 1])
        #expect(Array(holder.ints.sorted()) == [1, 1, 2, 2, 3, 3])
        #expect(Array(holder.ints.distinct()) == [2, 3, 1])
        #expect(Array(holder.ints.distinct().sorted()) == [1, 2, 3])
        #expect(Array(holder.ints.sorted(by: [SortDescriptor(keyPath: "self", ascending: false)])) == [3, 3, 2, 2, 1, 1])
        #expect(ascending.count == 6 && ascending.first == 1 && ascending.last == 3 && ascending[2] == 2)
        #expect(ascending.index(of: 3) == 4)
        #expect(ascending.index(of: 9) == nil)
        #expect(
            ascending.description.hasPrefix("Results<int> <0x")
                && ascending.description.hasSuffix("(\n\t[0] 1,\n\t[1] 1,\n\t[2] 2,\n\t[3] 2,\n\t[4] 3,\n\t[5] 3\n)"))
    }

    @Test func nilSortsFirstAscendingAndLastDescending() throws {
        let (realm, holder) = try makeHolder()
        try realm.write { holder.optionalInts.append(objectsIn: [3, nil, 1, nil]) }
        #expect(Array(holder.optionalInts.sorted()) == [nil, nil, 1, 3])
        #expect(Array(holder.optionalInts.sorted(ascending: false)) == [3, 1, nil, nil])
        #expect(Array(holder.optionalInts.distinct()) == [3, nil, 1])
    }

    @Test func enumsDatesAndStringsSortByTheirValues() throws {
        let (realm, holder) = try makeHolder()
        let early = Date(timeIntervalSince1970: 10)
        let late = Date(timeIntervalSince1970: 20)
        try realm.write {
            holder.sizes.append(objectsIn: [.large, .small, .medium])
            holder.dates.append(objectsIn: [late, early])
            holder.strings.append(objectsIn: ["b", "B", "a", "ä"])
        }
        #expect(Array(holder.sizes.sorted()) == [.small, .medium, .large])
        #expect(Array(holder.dates.sorted()) == [early, late])
        #expect(Array(holder.strings.sorted()) == ["B", "a", "b", "ä"])
    }

    @Test func mixedValuesSortByKindThenValue() throws {
        let (realm, holder) = try makeHolder()
        try realm.write {
            holder.anys.append(objectsIn: [.string("a"), .int(2), .none, .double(1.5), .bool(true), .string("0")])
        }
        #expect(Array(holder.anys.sorted()) == [.none, .bool(true), .double(1.5), .int(2), .string("0"), .string("a")])
        #expect(try holder.anys.filter("self > 1").count == 2)  // 1.5 and 2; strings have no order against numbers
    }

    @Test func valuesFilterByThemselves() throws {
        let (realm, holder) = try makeHolder()
        try realm.write {
            holder.ints.append(objectsIn: [5, 1, 7, 3, 9])
            holder.strings.append(objectsIn: ["apple", "Avocado", "banana"])
        }
        #expect(Array(try holder.ints.filter("self > %@", 4)) == [5, 7, 9])
        #expect(Array(try holder.ints.filter("SELF BETWEEN {3, 7}")) == [5, 7, 3])
        #expect(Array(try holder.ints.filter("self IN %@", [1, 9])) == [1, 9])
        #expect(Array(try holder.ints.filter("self > 2 SORT(self DESC) LIMIT(2)")) == [9, 7])
        #expect(Array(holder.ints.where { $0 > 4 && $0 != 7 }) == [5, 9])
        #expect(Array(holder.ints.where { $0 > 1 }.sorted()) == [3, 5, 7, 9])
        #expect(Array(try holder.strings.filter("self BEGINSWITH[c] 'a'")) == ["apple", "Avocado"])
        #expect(Array(holder.strings.where { $0.contains("an") }) == ["banana"])
        #expect(try holder.ints.filter("self > 4").min(ofProperty: "self") as Int? == 5)
        #expect(try holder.ints.filter("self > 4").sum() == 21)
        #expect(holder.ints.where { $0 > 4 }.max() == 9)
    }

    @Test func aBadQueryOfValuesThrowsNamingTheProblem() throws {
        let (_, holder) = try makeHolder()
        #expect(throws: RealmError.self) { try holder.ints.filter("age > 1") }
        #expect(throws: RealmError.self) { try holder.ints.filter("self > 'a'") }
        #expect(throws: RealmError.self) { try holder.ints.filter("self BEGINSWITH 'a'") }
        #expect(throws: RealmError.self) { try holder.ints.filter("self > 1 SORT(age ASC)") }
        #expect(throws: RealmError.self) { try holder.ints.filter("self >") }
        do {
            _ = try holder.strings.filter("name == 'x'")
            Issue.record("a key path on values was accepted")
        } catch {
            #expect(error.description.contains("'self'"), "\(error.description)")
        }
    }

    @Test func resultsOfValuesFollowTheCollection() throws {
        let (realm, holder) = try makeHolder()
        let big = holder.ints.where { $0 >= 10 }
        let sorted = holder.ints.sorted(ascending: false)
        #expect(big.isEmpty)
        try realm.write {
            holder.ints.append(objectsIn: [10, 2, 30])
            // Inside the write, the results see the change at once.
            #expect(Array(big) == [10, 30])
        }
        #expect(Array(sorted) == [30, 10, 2])
        try realm.write { holder.ints.remove(at: 0) }
        #expect(Array(big) == [30])
        #expect(Array(sorted) == [30, 2])
        // Iteration visits the values as they were when it began.
        try realm.write {
            for value in sorted { holder.ints.append(value + 100) }
        }
        #expect(Array(sorted) == [130, 102, 30, 2])
    }

    @Test func setsAndMapsOfValuesGiveResultsToo() throws {
        // PrimitiveMutableSetTests.testSorted and PrimitiveMapTests.testSorted.
        let (realm, holder) = try makeHolder()
        try realm.write {
            holder.intSet.insert(objectsIn: [3, 1, 2, 3])
            holder.doubleMap.merge(["c": 1.5, "a": 3.5, "b": 2.5]) { $1 }
        }
        #expect(Array(holder.intSet.sorted()) == [1, 2, 3])
        #expect(Array(holder.intSet.sorted(ascending: false)) == [3, 2, 1])
        let values: Results<Double> = holder.doubleMap.sorted()
        #expect(Array(values) == [1.5, 2.5, 3.5])
        #expect(Array(holder.doubleMap.sorted(ascending: false)) == [3.5, 2.5, 1.5])
        #expect(Array(try holder.doubleMap.filter("self < 3")) == [2.5, 1.5])  // in key order: b, c
        #expect(Array(holder.doubleMap.where { $0 > 2 }) == [3.5, 2.5])
        #expect(holder.doubleMap.min(ofProperty: "self") as Double? == 1.5)
        #expect(holder.doubleMap.sum(ofProperty: "self") as Double == 7.5)
    }

    @Test func aMapOfObjectsGivesResultsOfOptionalObjects() throws {
        // MapTests.testFilter, testKeyedSortable and testKeyedAggregatable.
        let (realm, holder) = try makeHolder()
        try realm.write {
            holder.itemMap["key"] = Item(value: ["name": "apples", "weight": 1])
            holder.itemMap["key2"] = Item(value: ["name": "bananas", "weight": 2])
            holder.itemMap["key3"] = Item(value: ["name": "cockroach", "weight": 3])
            holder.itemMap["empty"] = nil
        }
        let apples: Results<Item?> = try holder.itemMap.filter("name = 'apples'")
        #expect(apples.count == 1)
        #expect(apples.first!!.name == "apples")
        let byName: Results<Item?> = holder.itemMap.sorted(byKeyPath: "name", ascending: true)
        #expect(byName.count == 3)
        #expect(byName.map { $0!.name } == ["apples", "bananas", "cockroach"])
        let byKeyPath: Results<Item?> = holder.itemMap.sorted(by: \.name, ascending: false)
        #expect(byKeyPath[0]?.name == "cockroach")
        #expect(holder.itemMap.where { $0.weight > 1 }.count == 2)
        #expect(holder.itemMap.min(of: \.weight) == 1)
        #expect(holder.itemMap.max(of: \.weight) == 3)
        #expect(holder.itemMap.sum(of: \.weight) == 6)
        #expect(holder.itemMap.average(of: \.weight) == 2)
        #expect(byKeyPath.index(of: holder.itemMap["key2"]!) == 1)
    }

    @Test func valuesAggregateAsSelfUnmanagedAndManaged() throws {
        // RealmSwift's `min()` of values is `min(ofProperty: "self")`.
        let unmanaged = Holder()
        unmanaged.ints.append(objectsIn: [4, 9, 2])
        let (realm, holder) = try makeHolder()
        try realm.write { holder.ints.append(objectsIn: [4, 9, 2]) }
        for ints in [unmanaged.ints, holder.ints] {
            #expect(ints.min(ofProperty: "self") as Int? == 2)
            #expect(ints.max(ofProperty: "self") as Int? == 9)
            #expect(ints.sum(ofProperty: "self") as Int == 15)
            #expect(ints.average(ofProperty: "self") as Double? == 5)
        }
    }

    @Test func anUnmanagedMapOfObjectsAggregatesItsValues() {
        // MapTests.testKeyedAggregatable runs on an unmanaged object first.
        let holder = Holder()
        holder.itemMap["a"] = Item(value: ["weight": 4])
        holder.itemMap["b"] = Item(value: ["weight": 2])
        holder.itemMap["c"] = nil
        #expect(holder.itemMap.min(of: \.weight) == 2)
        #expect(holder.itemMap.max(ofProperty: "weight") as Int? == 4)
        #expect(holder.itemMap.sum(of: \.weight) == 6)
        #expect(holder.doubleMap.sum(ofProperty: "self") as Double == 0)
    }

    @Test func indexMatchingSearchesValuesUnmanagedAndManaged() throws {
        // ListTests.testPrimitive (on an unmanaged object's list) and PrimitiveListTests'
        // index(matching: "self = %@").
        let unmanaged = Holder()
        unmanaged.ints.append(objectsIn: [5, 6, 7, 8])
        #expect(unmanaged.ints.index(matching: { $0 == 7 && $0 < 456 }) == 2)
        #expect(unmanaged.ints.index(matching: { $0 == 9 }) == nil)
        #expect(try unmanaged.ints.index(matching: "self == 7") == 2)
        #expect(try unmanaged.ints.index(matching: "self = %@", 9) == nil)

        let (realm, holder) = try makeHolder()
        #expect(try holder.strings.index(matching: "self = %@", "a") == nil)
        try realm.write { holder.strings.append(objectsIn: ["a", "b", "a"]) }
        #expect(try holder.strings.index(matching: "self = %@", "a") == 0)
        #expect(try holder.strings.index(matching: "self = %@", "b") == 1)
        #expect(holder.strings.index(matching: { $0 == "b" }) == 1)
        #expect(throws: RealmError.self) { try holder.strings.index(matching: "self > 1") }
    }

    @Test func indexMatchingFindsAnObjectInAMixedList() throws {
        // AnyRealmValueTests' index(matching: "self = %@") with an object among the values.
        let (realm, holder) = try makeHolder()
        let item = Item()
        try realm.write {
            try realm.add(item)
            holder.anys.append(objectsIn: [.int(1), .object(item), .string("x")])
        }
        #expect(try holder.anys.index(matching: "self = %@", item) == 1)
        #expect(try holder.anys.index(matching: "self = %@", AnyRealmValue.string("x")) == 2)
        #expect(try holder.anys.filter("self = %@", item).count == 1)
    }

    @Test func keyPathFormsNameTheirProperties() throws {
        let (realm, holder) = try makeHolder()
        try realm.write {
            for (name, weight) in [("b", 2), ("a", 2), ("c", 1)] {
                holder.items.append(Item(value: ["name": name, "weight": weight]))
            }
        }
        let all = realm.objects(Item.self)
        let byWeightThenName = all.sorted(by: [SortDescriptor(keyPath: \Item.weight), SortDescriptor(keyPath: \Item.name, ascending: false)])
        #expect(byWeightThenName.map(\.name) == ["c", "b", "a"])
        #expect(all.sorted(by: ["name"]).map(\.name) == ["a", "b", "c"])
        #expect(SortDescriptor(keyPath: \Item.name).reversed() == SortDescriptor(keyPath: "name", ascending: false))
        #expect(all.min(of: \.weight) == 1)
        #expect(holder.items.max(of: \.weight) == 2)
        #expect(holder.items.sum(of: \.weight) == 5)
        #expect(holder.items.average(of: \.weight) == 1)  // 5 / 3, as an Int
        #expect(holder.items.distinct(by: [\Item.weight]).map(\.name) == ["b", "c"])
    }

    @Test func aListInsideAnAnyRealmValueQueriesItsValues() throws {
        let (realm, holder) = try makeHolder()
        try realm.write { holder.anys.append(.fromArray([.int(3), .string("x"), .int(1)])) }
        let nested = try #require(holder.anys[0].listValue)
        #expect(Array(nested.sorted()) == [.int(1), .int(3), .string("x")])
        #expect(Array(try nested.filter("self > 1")) == [.int(3)])
        try realm.write { nested.append(.int(7)) }
        #expect(Array(nested.where { $0 == .int(7) }) == [.int(7)])
    }

    @Test func resultsOfADeletedObjectsCollectionAreInvalidated() throws {
        // RealmSwift invalidates results whose collection's object is deleted; reading them
        // traps (below).
        let (realm, holder) = try makeHolder()
        try realm.write { holder.ints.append(objectsIn: [2, 1]) }
        let values = holder.ints.sorted()
        let objects = holder.items.sorted(byKeyPath: "name")
        let mapped = holder.itemMap.sorted(byKeyPath: "name")
        #expect(!values.isInvalidated && !objects.isInvalidated && !mapped.isInvalidated)
        try realm.write { try realm.delete(holder) }
        #expect(values.isInvalidated && objects.isInvalidated && mapped.isInvalidated)
    }

    @Test func readingResultsOfADeletedObjectsCollectionTraps() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "value-results-deleted")
            configuration.objectTypes = ValueResultsModels.types
            let realm = try! Realm(configuration: configuration)
            let holder = Holder()
            try! realm.write { try realm.add(holder) }
            let values = holder.ints.sorted()
            try! realm.write { try realm.delete(holder) }
            _ = values.count
        }
    }

    @Test func resultsOfAMapOfObjectsFreeze() throws {
        let (realm, holder) = try makeHolder()
        try realm.write {
            holder.itemMap["b"] = Item(value: ["name": "b"])
            holder.itemMap["a"] = Item(value: ["name": "a"])
        }
        let frozen: FrozenResults<Item> = try holder.itemMap.sorted(byKeyPath: "name", ascending: false).freeze()
        try realm.write { holder.itemMap.removeAll() }
        #expect(frozen.map(\.name) == ["b", "a"])
    }

    @Test func sortingValuesByAPropertyTraps() async {
        await #expect(processExitsWith: .failure) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "value-sort-trap")
            configuration.objectTypes = ValueResultsModels.types
            let realm = try! Realm(configuration: configuration)
            let holder = Holder()
            try! realm.write { try realm.add(holder) }
            _ = holder.ints.sorted(by: [SortDescriptor(keyPath: "weight")]).count
        }
    }

    @Test func sortingAnUnmanagedListTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Holder().ints.sorted().count
        }
    }
}
