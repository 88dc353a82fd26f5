import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Models of `QueryPlanTests`: a primary key, an indexed string, plain fields for row tests,
/// and a link for conditions only the general evaluator decides.
enum QueryPlanModels {
    final class PlanItem: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var name = ""
        @Persisted var label = ""
        @Persisted var age = 0
        @Persisted var score = 0.0
        @Persisted var flag = false
        @Persisted var note: String?
        @Persisted var owner: PlanOwner?
    }

    final class PlanOwner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var items: List<PlanItem>
    }
}

/// One planner decides how each query is answered: every consumer of `Results` (`first`,
/// `count`, iteration, subscripts, `setValue(_:forKey:)`, aggregates) and frozen results ask it,
/// each query shape gets its plan, and every plan gives what a filter of every object in Swift
/// gives, in a snapshot, inside a write transaction and frozen.
@Suite(.temporaryDirectory) struct QueryPlanTests {
    typealias Item = QueryPlanModels.PlanItem
    typealias Owner = QueryPlanModels.PlanOwner

    private let seed = TestSeed.make("QueryPlanTests")

    private static let names = ["a", "b", "c", "Rex", "rex", ""]
    private static let labels = ["red", "green", "blue", "Blue", "redder"]

    private func configuration() -> Realm.Configuration {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [Item.self, Owner.self]
        return configuration
    }

    /// A realm of `count` random items, half of them owned by one of two owners.
    private func populate(_ realm: Realm, count: Int, _ r: inout TestRandom) throws {
        try realm.write {
            let owners = try (0..<2).map { i in
                let owner = Owner()
                owner.id = i
                owner.name = i == 0 ? "Ann" : "Bob"
                return try realm.create(Owner.self, value: owner)
            }
            for id in 0..<count {
                let item = Item()
                item.id = id * 3
                item.name = r.element(Self.names)
                item.label = r.element(Self.labels)
                item.age = r.int(0...9)
                item.score = Double(r.int(0...20)) / 4
                item.flag = r.chance(50)
                item.note = r.chance(30) ? nil : r.element(Self.labels)
                let added = try realm.create(Item.self, value: item)
                if r.chance(50) {
                    let owner = r.element(owners)
                    added.owner = owner
                    owner.items.append(added)
                }
            }
        }
    }

    /// The kind of plan `use` made `results` ask for (nil if it asked none).
    private func plannedKind(_ results: Results<Item>, _ use: (Results<Item>) throws -> Void) rethrows -> QueryPlan.Kind? {
        results.query.plannedKind = nil
        try use(results)
        return results.query.plannedKind
    }

    /// Every consumer, on new results each, asks the planner and gets `expected`.
    private func expectEveryConsumer(
        _ expected: QueryPlan.Kind, _ make: () throws -> Results<Item>, _ note: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let uses: [(String, (Results<Item>) -> Void)] = [
            ("first", { _ = $0.first }), ("count", { _ = $0.count }), ("iteration", { for _ in $0 {} }),
            ("subscript", { results in if results.endIndex > 0 { _ = results[0] } }), ("isEmpty", { _ = $0.isEmpty }),
            ("sum", { _ = $0.sum(ofProperty: "age") as Int }), ("max", { _ = $0.max(ofProperty: "score") as Double? }),
        ]
        for (name, use) in uses {
            #expect(try plannedKind(make(), use) == expected, "\(name) of \(note)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Which plan each shape gets

    @Test func testEachQueryShapeGetsItsPlanFromEveryConsumer() throws {
        let realm = try Realm(configuration: configuration())
        var r = TestRandom(seed: seed)
        try populate(realm, count: 40, &r)
        let all = { realm.objects(Item.self) }
        try expectEveryConsumer(.everyObject, { all() }, "every object")
        try expectEveryConsumer(.probe, { all().where { $0.id == 9 } }, "primary key ==")
        try expectEveryConsumer(.probe, { try all().filter("9 == id") }, "primary key == written the other way round")
        try expectEveryConsumer(.probe, { all().where { $0.name == "Rex" } }, "indexed ==")
        try expectEveryConsumer(.probe, { try all().filter("name == %@", "b") }, "indexed == as a query string")
        try expectEveryConsumer(.filter, { all().where { $0.name > "b" } }, "an indexed range")
        try expectEveryConsumer(.filter, { all().where { $0.id > 9 } }, "a primary-key range (scanned by filterTable)")
        try expectEveryConsumer(.filter, { all().where { $0.name == "Rex" && $0.age < 5 } }, "indexed == AND a row test")
        try expectEveryConsumer(.filter, { try all().filter("name IN {'a', 'b'}") }, "indexed IN")
        try expectEveryConsumer(.rowFilter, { all().where { $0.age < 5 } }, "one row test")
        try expectEveryConsumer(.rowFilter, { all().where { $0.age < 5 && $0.flag == true && $0.label.starts(with: "re") } }, "row tests")
        try expectEveryConsumer(.scan, { all().where { $0.age < 5 && $0.owner.name == "Ann" } }, "a row test AND a link")
        try expectEveryConsumer(.scan, { try all().filter("name ==[c] 'rex'") }, "an indexed property with options (no index applies)")
        try expectEveryConsumer(.scan, { try all().filter("age < 5 OR flag == true") }, "OR")
        try expectEveryConsumer(.evaluation, { all().sorted(byKeyPath: "age") }, "a sort")
        try expectEveryConsumer(.evaluation, { all().where { $0.age < 5 }.sorted(byKeyPath: "name") }, "a filter and a sort")
        try expectEveryConsumer(.evaluation, { all().where { $0.age < 5 }.where { $0.flag == true } }, "two filters")
        try expectEveryConsumer(.evaluation, { try all().filter("age < 5 LIMIT(3)") }, "a limit")
        try expectEveryConsumer(.evaluation, { all().distinct(by: ["age"]) }, "distinct")
        let owner = try #require(realm.object(ofType: Owner.self, forPrimaryKey: 0))
        try expectEveryConsumer(.evaluation, { owner.items.where { $0.age < 5 } }, "a filter of a list")
        try expectEveryConsumer(.evaluation, { owner.items.where { $0.id == 9 } }, "primary key == in a list")
        try expectEveryConsumer(.evaluation, { owner.items.sorted(byKeyPath: "age") }, "a sorted list")

        // `setValue` asks too (inside a write): every object, the row filter, the rest by keys.
        try realm.beginWrite()
        do {
            #expect(plannedKind(all()) { $0.setValue("x", forKey: "label") } == .everyObject)
            #expect(plannedKind(all().where { $0.age < 5 }) { $0.setValue("y", forKey: "label") } == .rowFilter)
            #expect(plannedKind(all().where { $0.age < 5 && $0.owner.name == "Ann" }) { $0.setValue("z", forKey: "label") } == .scan)
            #expect(plannedKind(all().where { $0.name == "a" }) { $0.setValue(1, forKey: "age") } == .probe)
            #expect(plannedKind(all().sorted(byKeyPath: "age")) { $0.setValue(2.5, forKey: "score") } == .evaluation)
            #expect(plannedKind(owner.items.where { $0.age < 5 }) { $0.setValue("w", forKey: "label") } == .evaluation)
        }
        try realm.cancelWrite()
    }

    @Test func testAClassNeverStoredPlansNothing() throws {
        // No object types configured: a class is stored when its first object is.
        let realm = try Realm(configuration: temporaryConfiguration())
        let makes: [() throws -> Results<Item>] = [
            { realm.objects(Item.self) }, { realm.objects(Item.self).where { $0.name == "a" } },
            { realm.objects(Item.self).where { $0.age < 3 } }, { realm.objects(Item.self).sorted(byKeyPath: "age") },
        ]
        for make in makes {
            try expectEveryConsumer(.nothing, make, "a class never stored")
            #expect(try make().first == nil)
            #expect(try make().count == 0)
            #expect(try make().sum(ofProperty: "age") as Int == 0)
            #expect(try make().freeze().isEmpty)
            try realm.write { try make().setValue("x", forKey: "label") }
        }
        #expect(realm.dynamicObjects("PlanItem").plan().kind == .nothing)
        #expect(realm.dynamicObjects("PlanItem").count == 0)
    }

    /// Results evaluated at the realm's current version answer `first` and `count` from
    /// their keys: no plan is made.
    @Test func testEvaluatedResultsAskNoPlanForFirstAndCount() throws {
        let realm = try Realm(configuration: configuration())
        var r = TestRandom(seed: seed)
        try populate(realm, count: 30, &r)
        for results in [realm.objects(Item.self), realm.objects(Item.self).where { $0.name == "a" }, realm.objects(Item.self).where { $0.age < 4 }] {
            _ = Array(results)
            #expect(plannedKind(results) { _ = $0.first } == nil)
            #expect(plannedKind(results) { _ = $0.count } == nil)
            try realm.write { realm.objects(Item.self).first?.age += 1 }
            #expect(plannedKind(results) { _ = $0.count } != nil, "the realm changed: planned again")
        }
    }

    /// Inside a write transaction the plans are the same, but an evaluation keeps no rows: the
    /// next change may rewrite the pages they lie in. Outside, the rows read are kept for the
    /// objects made from the results (a probe's evaluation reads none).
    @Test func testAQueryInsideAWriteKeepsNoRows() throws {
        let realm = try Realm(configuration: configuration())
        var r = TestRandom(seed: seed)
        try populate(realm, count: 30, &r)
        let shapes: [(QueryPlan.Kind, () -> Results<Item>)] = [
            (.rowFilter, { realm.objects(Item.self).where { $0.age < 5 } }),
            (.scan, { realm.objects(Item.self).where { $0.age < 5 && $0.owner.name == "Ann" } }),
            (.probe, { realm.objects(Item.self).where { $0.name == "b" } }),
            (.evaluation, { realm.objects(Item.self).where { $0.age < 5 }.where { $0.flag == false } }),
        ]
        for (kind, make) in shapes {
            let outside = make()
            #expect(outside.plan().kind == kind)
            #expect(outside.plan().keepsRows)
            // Iterated, which evaluates even when nothing matches (`Array` would stop at a
            // count of 0, which the plan answers without evaluating).
            for _ in outside {}
            // The index answers the probe's `==` exactly: its evaluation reads no row at all.
            #expect((outside.query.rows != nil) == (kind != .probe), "\(kind) outside a write keeps the rows it read")
        }
        try realm.beginWrite()
        do {
            for (kind, make) in shapes {
                let inside = make()
                #expect(inside.plan().kind == kind, "\(kind) in a write")
                #expect(!inside.plan().keepsRows)
                let expected = Array(make()).map(\.id)
                #expect(inside.endIndex == expected.count, "evaluated, even when nothing matches")
                #expect(Array(inside).map(\.id) == expected)
                #expect(inside.query.rows == nil, "\(kind) in a write keeps no rows")
                // Changes in the write are seen by the next plan.
                for item in Array(inside) { item.age += 10 }
                #expect(make().count == (kind == .probe ? expected.count : 0), "\(kind) after the change")
            }
        }
        try realm.cancelWrite()
    }

    /// Frozen results and change streams' evaluations plan at their version; a query on frozen
    /// results is an evaluation on their keys.
    @Test func testFrozenResultsAskThePlanner() throws {
        let realm = try Realm(configuration: configuration())
        var r = TestRandom(seed: seed)
        try populate(realm, count: 30, &r)
        let version = try FrozenVersion(of: realm)
        let cases: [(QueryPlan.Kind, Results<Item>)] = [
            (.everyObject, realm.objects(Item.self)), (.probe, realm.objects(Item.self).where { $0.id == 3 }),
            (.rowFilter, realm.objects(Item.self).where { $0.age < 5 }), (.filter, realm.objects(Item.self).where { $0.name >= "b" }),
            (.evaluation, realm.objects(Item.self).sorted(byKeyPath: "age")),
        ]
        for (kind, results) in cases {
            #expect(Results<Item>.plan(results.query, className: nil, base: nil, at: version).kind == kind, "\(kind)")
            let frozen = try results.freeze()
            #expect(frozen.map(\.id) == results.map(\.id), "\(kind) frozen")
            #expect(frozen.plan([])?.kind == .evaluation)
            #expect(frozen.plan([.filter(.constant(true))])?.kind == .evaluation)
            #expect(frozen.where { $0.age < 5 }.map(\.id) == results.where { $0.age < 5 }.map(\.id), "\(kind) frozen, filtered")
            #expect(frozen.sum(ofProperty: "age") as Int == results.sum(ofProperty: "age") as Int, "\(kind) frozen sum")
        }
    }

    // MARK: Same answers as a filter in Swift

    /// One condition of a random query: its text and argument, and the same test in Swift.
    private struct Condition {
        let text: String
        let argument: Any
        let holds: (Item) -> Bool
    }

    private static func randomCondition(_ r: inout TestRandom) -> Condition {
        let name = r.element(names)
        let label = r.element(labels)
        let age = r.int(-1...10)
        switch r.int(0..<14) {
        case 0:
            let id = r.int(-1...40) * (r.chance(80) ? 3 : 1)
            return Condition(text: "id == %@", argument: id) { $0.id == id }
        case 1: return Condition(text: "name == %@", argument: name) { $0.name == name }
        case 2: return Condition(text: "name != %@", argument: name) { $0.name != name }
        case 3: return Condition(text: "name > %@", argument: name) { $0.name > name }
        case 4: return Condition(text: "label == %@", argument: label) { $0.label == label }
        case 5: return Condition(text: "label BEGINSWITH %@", argument: String(label.prefix(3))) { $0.label.hasPrefix(label.prefix(3)) }
        case 6: return Condition(text: "age < %@", argument: age) { $0.age < age }
        case 7: return Condition(text: "age >= %@", argument: age) { $0.age >= age }
        case 8: return Condition(text: "age != %@", argument: age) { $0.age != age }
        case 9:
            let flag = r.chance(50)
            return Condition(text: "flag == %@", argument: flag) { $0.flag == flag }
        case 10:
            let score = Double(r.int(0...20)) / 4
            return Condition(text: "score > %@", argument: score) { $0.score > score }
        case 11:
            let owner = r.element(["Ann", "Bob", "Cy"])
            return Condition(text: "owner.name == %@", argument: owner) { $0.owner?.name == owner }
        case 12: return Condition(text: "note == %@", argument: label) { $0.note == label }
        default:
            let lowered = name.lowercased()
            return Condition(text: "name ==[c] %@", argument: name) { $0.name.lowercased() == lowered }
        }
    }

    /// `first`, `count`, iteration, subscripts, `sum` and `setValue` of random filters of one
    /// to three conditions give what filtering every object in Swift gives.
    private func checkRandomQueries(_ realm: Realm, _ r: inout TestRandom, _ note: String) throws {
        let all = Array(realm.objects(Item.self))
        for _ in 0..<60 {
            let conditions = (0..<r.int(1...3)).map { _ in Self.randomCondition(&r) }
            let text = conditions.map(\.text).joined(separator: " AND ")
            let arguments = conditions.map(\.argument)
            let expected = all.filter { item in conditions.allSatisfy { $0.holds(item) } }.map(\.id)
            let make = { try realm.objects(Item.self).filter(text, arguments: arguments) }
            let what = "\(text) \(arguments) \(note) (seed \(seed))"
            #expect(try make().first?.id == expected.first, "first of \(what)")
            #expect(try make().count == expected.count, "count of \(what)")
            #expect(try make().map(\.id) == expected, "iteration of \(what)")
            let subscripted = try make()
            #expect((0..<subscripted.endIndex).map { subscripted[$0].id } == expected, "subscripts of \(what)")
            #expect(try make().sum(ofProperty: "age") as Int == all.filter { expected.contains($0.id) }.reduce(0) { $0 + $1.age }, "sum of \(what)")
            // Evaluated first, then asked again: the same.
            let evaluated = try make()
            _ = Array(evaluated)
            #expect(evaluated.first?.id == expected.first && evaluated.count == expected.count, "evaluated \(what)")
            if !realm.isInWriteTransaction {
                #expect(try make().freeze().map(\.id) == expected, "frozen \(what)")
            }
            // The update changes exactly the matching objects.
            let inWrite = realm.isInWriteTransaction
            if !inWrite { try realm.beginWrite() }
            let before = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.label) })
            try make().setValue("updated", forKey: "label")
            let matched = Set(expected)
            for item in all {
                #expect(item.label == (matched.contains(item.id) ? "updated" : before[item.id]!), "setValue of \(what): \(item.id)")
            }
            // Undone by hand inside an open write (it is the caller's), else by cancelling.
            if inWrite {
                for item in all { item.label = before[item.id]! }
            } else {
                try realm.cancelWrite()
            }
        }
    }

    @Test func testEveryPlanAnswersAsAFilterInSwift() throws {
        let realm = try Realm(configuration: configuration())
        var r = TestRandom(seed: seed)
        try populate(realm, count: r.int(20...60), &r)
        try checkRandomQueries(realm, &r, "in a snapshot")
        try realm.beginWrite()
        let items = realm.objects(Item.self)
        for _ in 0..<10 {
            let item = items[r.int(0..<items.count)]
            item.name = r.element(Self.names)
            item.age = r.int(0...9)
            item.flag = !item.flag
        }
        if let doomed = items.where({ $0.age == 3 }).first { try realm.delete(doomed) }
        try checkRandomQueries(realm, &r, "inside a write")
        try realm.commitWrite()
        try checkRandomQueries(realm, &r, "after the write")
    }
}
