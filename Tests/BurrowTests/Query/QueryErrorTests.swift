import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Bad queries are thrown `RealmError`s that say what is wrong and where; none crashes.
@Suite(.temporaryDirectory) struct QueryErrorTests {
    private func message(_ query: String, _ args: Any...) throws -> String? {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        do {
            _ = try realm.objects(CommonModels.Dog.self).filter(query, arguments: args)
            return nil
        } catch {
            #expect(error.code == .invalidArgument, "\(query)")
            return error.description
        }
    }

    @Test func testUnknownPropertiesAndTypeMismatchesNameThePropertyAndClass() throws {
        let cases: [(String, [Any], [String])] = [
            ("agee < 3", [], ["'agee'", "Dog has no property"]),
            ("favoriteToy.nme == 'x'", [], ["'nme'", "DogToy has no property"]),
            ("age == 'old'", [], ["'age'", "Dog", "int", "string"]),
            ("age == %@", ["old"], ["'age'", "Dog", "string"]),
            ("name > 3", [], ["'name'", "Dog", "string"]),
            ("age BEGINSWITH 'a'", [], ["BEGINSWITH", "'age'"]),
            ("favoriteToy > nil", [], ["favoriteToy"]),
            ("favoriteToy == 'x'", [], ["'favoriteToy'", "DogToy"]),
            ("age.years > 1", [], ["'age'", "not a link"]),
            ("age.@count > 1", [], ["@count", "'age'"]),
            ("ALL name == 'x'", [], ["ALL", "collection"]),
            ("name['k'] == 'x'", [], ["Map"]),
            ("owners.@sum.name > 1", [], ["@sum", "numbers"]),
            ("age ==[c] 3", [], ["[c]", "'age'"]),
            ("name == 'x' SORT(agee)", [], ["'agee'", "Dog"]),
            ("TRUEPREDICATE DISTINCT(owners)", [], ["distinct", "'owners'"]),
        ]
        for (query, args, fragments) in cases {
            let realm = try Realm(configuration: temporaryInMemoryConfiguration())
            expectRefused(realm.objects(CommonModels.Dog.self), query, args, mentioning: fragments)
        }
    }

    /// A query validated once lets later queries of the same shape skip validation (the
    /// thread's memo of validated shapes); one that differs in anything validation looks at
    /// (a constant's type, the operator, its options, the class, the key path) is still checked.
    @Test func testAQueryOfAValidatedShapeIsStillCheckedWhereItDiffers() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let dogs = realm.objects(CommonModels.Dog.self)
        // Valid queries, run twice so that their shapes are in the memo.
        for _ in 0..<2 {
            _ = try dogs.filter("age == %@", 3)
            _ = try dogs.filter("name BEGINSWITH %@", "R")
            _ = try dogs.filter("name == %@", "Rex")
            _ = try dogs.filter("age == %@ AND name == %@", 1, "x")
        }
        let invalid: [(String, [Any], String)] = [
            ("age == %@", ["old"], "'age'"),  // another constant type
            ("age BEGINSWITH %@", [3], "BEGINSWITH"),  // another operator
            ("name BEGINSWITH[c] %@", [3], "'name'"),  // other options, wrong type
            ("agee == %@", [3], "'agee'"),  // another key path
            ("age == %@ AND name == %@", [1, 2], "'name'"),  // a constant deeper in the tree
        ]
        for (query, args, fragment) in invalid {
            do {
                _ = try dogs.filter(query, arguments: args)
                Issue.record("\(query) with \(args) did not throw")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.description.contains(fragment), "\(query): \(error.description) should mention \(fragment)")
            }
        }
        // The same shape on another class is checked against that class.
        do {
            _ = try realm.objects(CommonModels.DogToy.self).filter("age == %@", 3)
            Issue.record("age on DogToy did not throw")
        } catch {
            #expect(error.description.contains("DogToy has no property 'age'"), "\(error.description)")
        }
        // And the valid shapes still give their results.
        try realm.write { try realm.add(CommonModels.Dog(value: ["name": "Rex", "age": 3])) }
        #expect(try dogs.filter("age == %@", 3).count == 1)
        #expect(try dogs.filter("name == %@", "Rex").count == 1)
        #expect(dogs.where { $0.name == "Rex" }.count == 1)
        #expect(dogs.where { $0.name == "Rox" }.count == 0)
    }

    @Test func testSyntaxErrorsSayWhereAndWhatWasExpected() throws {
        let cases: [(String, [Any], String)] = [
            ("age < ", [], "position 6: expected a value"),
            ("age < 3)", [], "position 7: expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query"),
            ("(age < 3", [], "position 8: expected ')'"),
            ("age 3", [], "position 4: expected a comparison operator"),
            ("name BEGINSWITH[x] 'a'", [], "position 16: expected string options"),
            ("name == 'unterminated", [], "position 8: the string starting here has no closing '"),
            ("age < %@", [], "argument 1 at position 6, but no arguments were given"),
            ("age < %@ AND age > %@", [1], "argument 2 at position 19, but only 1 argument was given"),
            ("age IN 3", [], "position 4: expected a list"),
            ("age BETWEEN {1}", [], "BETWEEN {low, high}"),
            ("age < 3 SORT(", [], "position 13: expected a key path"),
            ("age < 3 LIMIT(x)", [], "position 14: expected a number of objects"),
            ("age < 3 AND", [], "position 11: expected a value"),
            ("name == #", [], "position 8: unexpected character '#'"),
            ("dogs.@foo > 1", [], "expected @count, @size"),
            ("SUBQUERY(owners, $p, $p.age > 1).@count > 0", [], "Person has no property 'age'"),
            ("SUBQUERY(name, $p, $p == 'x').@count > 0", [], "SUBQUERY needs a collection of objects"),
            ("SUBQUERY(owners, $p, $q.name == 'x').@count > 0", [], "expected the SUBQUERY variable $p"),
            ("SUBQUERY(owners, $p, $p.name == 'x') > 0", [], "expected '.@count' after SUBQUERY"),
            ("$p.name == 'x'", [], "variables belong inside SUBQUERY"),
            ("age == %@", [[1: 2]], "queries cannot compare"),
        ]
        for (query, args, fragment) in cases {
            let realm = try Realm(configuration: temporaryInMemoryConfiguration())
            expectRefused(realm.objects(CommonModels.Dog.self), query, args, mentioning: [fragment])
        }
    }

    @Test func testBadSubqueriesOverValuesSayWhatTheVariableIs() throws {
        let cases: [(String, [String])] = [
            ("SUBQUERY(numbers, $n, $n.value > 2).@count > 0", ["'value'", "no properties", "int value", "'numbers' of QItem"]),
            ("SUBQUERY(numbers, $n, $n == 'x').@count > 0", ["'numbers' of QItem", "int", "string"]),
            ("SUBQUERY(numbers, $n, $n BEGINSWITH '1').@count > 0", ["SELF BEGINSWITH", "'numbers' of QItem holds int values"]),
            ("SUBQUERY(tags, $t, $t > 2).@count > 0", ["'tags' of QItem", "string"]),
            ("SUBQUERY(numbers, $n, ALL $n > 1).@count > 0", ["ALL", "collection"]),
            ("SUBQUERY(numbers, $n, $n.@count > 1).@count > 0", ["@count", "collection"]),
            ("SUBQUERY(numbers, $n, $m > 1).@count > 0", ["expected the SUBQUERY variable $n"]),
            ("SUBQUERY(rank, $n, $n > 1).@count > 0", ["SUBQUERY needs a collection", "'rank' of QItem"]),
        ]
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        for (query, fragments) in cases {
            expectRefused(realm.objects(QueryTestModels.Item.self), query, mentioning: fragments)
        }
    }

    @Test func testDeepNestingIsAnErrorNotAStackOverflow() throws {
        let open = String(repeating: "(", count: 100_000) + "age < 1" + String(repeating: ")", count: 100_000)
        let nots = String(repeating: "NOT ", count: 100_000) + "age < 1"
        for query in [open, nots] {
            let message = try message(query)
            #expect(message?.contains("nested more than") == true)
        }
        // Nesting within the limit works.
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        #expect(
            try realm.objects(CommonModels.Dog.self).filter(String(repeating: "(", count: 50) + "age < 1" + String(repeating: ")", count: 50)).isEmpty
        )
    }
}

/// The parser and executor meet random and mutated query strings without crashing: each
/// either throws a `RealmError` or runs. The count comes from `BURROW_QUERY_FUZZ`.
@Suite(.temporaryDirectory) struct QueryParserFuzzTests {
    private var iterations: Int { TestEnvironment.count("BURROW_QUERY_FUZZ", default: 3_000) }

    static let valid = [
        "age < %@ AND name BEGINSWITH[c] %@", "ANY owners.dogs.age > 5 OR owners.@count == 0", "name IN {'Rex', 'Fido'} SORT(age DESC) LIMIT(2)",
        "age BETWEEN {1, 3} DISTINCT(color)", "NOT (favoriteToy.name ==[cd] 'ball' || favoriteToy == nil)", "companion > 2.5 AND companion != 'x'",
        "name LIKE 'R*?x' AND color CONTAINS[d] 'é'", "ALL owners.name ENDSWITH 'i'", "owners.@avg.id >= 1 AND owners.@max.id < 9",
        "TRUEPREDICATE", "FALSEPREDICATE OR age = $0", "SUBQUERY(owners, $p, $p.name BEGINSWITH 'A' AND $p.id > 0).@count >= 1",
        "_id == oid(6553f100a1b2c3d4e5f60718)", "%K == %@", "@links.Person.dogs.@count > 0 AND ANY @links.Person.dogs.name == 'Ali'",
        "@links.@count >= favoriteToy.@links.@count", "SUBQUERY(@links.Person.dogs, $p, $p.@links.@count == 0).@count == 1",
    ]
    static let fragments = [
        "age", "name", "owners", "dogs", "favoriteToy", ".", "@count", "@sum", "@min", "@avg", "@keys", "[", "]", "[c]", "[cd]", "(", ")", "{", "}",
        ",", "==", "!=", "<", ">=", "=", "AND", "OR", "NOT", "ANY", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "LIKE", "CONTAINS", "'x'", "\"é\"",
        "%@", "$1", "%K", "SUBQUERY(", "$p", "$p.name", "2024-01-31@13:45:00", "T-12:5", "2024-13-", "3", "-2.5e3", "nil", "true", "SORT", "DISTINCT",
        "LIMIT", "oid(", "uuid(", "\\", "'", "#", "𝄞", " ", "TRUEPREDICATE", "@links", "Person", "@links.Person.dogs",
    ]

    @Test func testRandomAndMutatedQueriesNeverCrash() throws {
        var r = TestRandom(seed: TestSeed.make("QueryParserFuzzTests"))
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        try realm.write {
            let toy = CommonModels.DogToy(value: ["name": "ball"])
            let dog = CommonModels.Dog(value: ["name": "Rex", "age": 2, "favoriteToy": toy, "companion": AnyRealmValue.int(3)])
            try realm.add(CommonModels.Person(value: ["id": 1, "name": "Ali", "dogs": [dog]]))
        }
        let dogs = realm.objects(CommonModels.Dog.self)
        let args: [Any] = ["age", 2, "r", [1, 2], 1.5]
        var ran = 0
        var threw = 0
        for _ in 0..<iterations {
            var query: String
            if r.next(upperBound: 2) == 0 {
                query = (0..<r.next(upperBound: 12)).map { _ in Self.fragments[r.next(upperBound: Self.fragments.count)] }.joined(
                    separator: r.next(upperBound: 3) == 0 ? "" : " ")
            } else {
                var chars = Array(Self.valid[r.next(upperBound: Self.valid.count)])
                for _ in 0..<(1 + r.next(upperBound: 4)) {
                    let at = r.next(upperBound: chars.count + 1)
                    switch r.next(upperBound: 3) {
                    case 0: if at < chars.count { chars.remove(at: at) }
                    case 1: chars.insert(contentsOf: Self.fragments[r.next(upperBound: Self.fragments.count)], at: at)
                    default: if at < chars.count { chars[at] = Array("()[]{}'\"%@$.,<=>!@ aZ9")[r.next(upperBound: 22)] }
                    }
                }
                query = String(chars)
            }
            do {
                let results = try dogs.filter(query, arguments: Array(args.prefix(r.next(upperBound: args.count + 1))))
                _ = results.count
                ran += 1
            } catch {
                #expect(!error.description.isEmpty)
                threw += 1
            }
        }
        #expect(ran + threw == iterations)
    }
}

/// Filtering `results` with `query` and `arguments` throws `.invalidArgument` with a message
/// that mentions each of `fragments`.
private func expectRefused<T: ObjectBase>(
    _ results: Results<T>, _ query: String, _ arguments: [Any] = [], mentioning fragments: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        _ = try results.filter(query, arguments: arguments)
        Issue.record("\(query) did not throw", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(
                error.description.contains(fragment), "\(query): \(error.description) should mention \(fragment)",
                sourceLocation: sourceLocation)
        }
    }
}
