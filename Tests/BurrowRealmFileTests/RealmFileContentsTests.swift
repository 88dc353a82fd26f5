import BurrowStore
import Foundation
import Testing

@testable import BurrowRealmFile

/// The objects of realm-core's test files, read as realm-core's own tests assert them
/// (realm-core's `test/test_upgrade_database.cpp`).
struct RealmFileContentsTests {
    /// The file's table `name`, its columns, and its objects.
    private func contents(_ file: RealmFile, _ name: String) throws -> (RealmTable, [RealmObject]) {
        let entry = try #require(file.group.table(named: name))
        let table = try file.group.table(entry)
        return (table, try file.group.objects(of: table))
    }

    private func column(_ table: RealmTable, _ name: String) throws -> Int {
        try #require(table.columns.firstIndex { $0.name == name })
    }

    @Test func format20KeepsItsLinksAndTheirDeletedTargets() throws {
        let file = try RealmFile(path: RealmFileFixtures.path("test_upgrade_database_20.realm"))
        let ids: [Int64] = [0, 2, 3, 15, 42, 100, 7000]
        let names = ["adam", "bart", "carlo", "david", "eric", "frank", "gary"]

        let (foo, fooObjects) = try contents(file, "foo")
        #expect(foo.primaryKey.map { foo.columns[$0].name } == "id")
        // 42 was deleted while linked: a tombstone, not an object.
        let fooID = try column(foo, "id")
        #expect(fooObjects.map { $0.values[fooID] } == ids.filter { $0 != 42 }.map(RealmValue.int))
        let (bar, barObjects) = try contents(file, "bar")
        #expect(bar.columns[try #require(bar.primaryKey)].type == .string)
        let barName = try column(bar, "name")
        #expect(barObjects.map { $0.values[barName] }.sorted { "\($0)" < "\($1)" } == names.filter { $0 != "eric" }.map(RealmValue.string))
        let barNames = Dictionary(uniqueKeysWithValues: barObjects.map { ($0.key, $0.values[barName]) })

        let (origin, originObjects) = try contents(file, "origin")
        #expect(originObjects.map(\.key) == Array(0..<14))
        let link1 = try column(origin, "link1")
        let link2 = try column(origin, "link2")
        #expect(origin.columns[link1].targetTable == foo.key)
        for (index, object) in originObjects.enumerated() {
            if index < 7 {
                guard case .link(let table, let key) = object.values[link1] else {
                    Issue.record("origin \(index) has no link1")
                    continue
                }
                #expect(table == foo.key)
                // Int primary keys of format 20 are the objects' keys; 42's target is gone.
                if ids[index] == 42 { #expect(key <= -2) } else { #expect(key == ids[index]) }
                #expect(object.values[link2] == .null)
            } else {
                guard case .link(let table, let key) = object.values[link2] else {
                    Issue.record("origin \(index) has no link2")
                    continue
                }
                #expect(table == bar.key)
                if names[index - 7] == "eric" { #expect(key <= -2) } else { #expect(barNames[key] == .string(names[index - 7])) }
            }
        }
        // Each live target has one backlink, from its origin.
        let backlinks = try #require(foo.columns.firstIndex { $0.type == .backlink })
        for object in fooObjects {
            #expect(object.values[backlinks] == .list([.link(table: origin.key, key: Int64(ids.firstIndex(of: object.key)!))]))
        }
    }

    @Test(arguments: ["test_upgrade_database_1000_22.realm", "test_upgrade_database_4_22.realm"])
    func format22KeepsAMixedDictionaryAndSet(_ name: String) throws {
        let file = try RealmFile(path: RealmFileFixtures.path(name))
        let (target, targetObjects) = try contents(file, "target")
        let targetID = try column(target, "id")
        #expect(targetObjects.map { $0.values[targetID] } == [.int(47)])
        let link = RealmValue.link(table: target.key, key: targetObjects[0].key)
        let (table, objects) = try contents(file, "table")
        #expect(objects.count == 1)
        let dictionaryColumn = try column(table, "dict")
        #expect(table.columns[dictionaryColumn].collection == .dictionary)
        guard case .dictionary(let entries) = objects[0].values[dictionaryColumn] else {
            Issue.record("dict is not a dictionary")
            return
        }
        let dictionary = Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) })
        #expect(
            dictionary == [
                "one": .int(1), "two": .double(2), "three": .string("John"), "four": .string("Paul"), "five": .string("George"),
                "six": .string("Ringo"), "seven": .string("Morgan"), "eight": .timestamp(seconds: 4, nanoseconds: 5), "nine": link,
            ])
        guard case .set(let set) = objects[0].values[try column(table, "set")] else {
            Issue.record("set is not a set")
            return
        }
        #expect(set.count == 8)
        for value in [
            RealmValue.int(1), .double(2), .string("John"), .string("Ringo"), .string("Beatles"), .binary(Array("Paul".utf8) + [0]),
            .binary(Array("George".utf8) + [0]), link,
        ] {
            #expect(set.contains(value), "\(value)")
        }
        // Two backlink columns in target, one per origin column, each with the one origin.
        let backlinks = target.columns.indices.filter { target.columns[$0].type == .backlink }
        #expect(backlinks.count == 2)
        for index in backlinks { #expect(targetObjects[0].values[index] == .list([.link(table: table.key, key: objects[0].key)])) }
    }

    @Test(arguments: [("test_upgrade_database_1000_23.realm", 10_000), ("test_upgrade_database_4_23.realm", 40)])
    func format23KeepsTenNodesOfObjectsAndTheirBacklinks(_ name: String, _ count: Int) throws {
        let file = try RealmFile(path: RealmFileFixtures.path(name))
        let (target, targetObjects) = try contents(file, "target")
        #expect(targetObjects.count == 1)
        let (table, objects) = try contents(file, "table")
        #expect(objects.count == count)
        #expect(objects.map(\.key) == Array(0..<Int64(count)))
        let id = try column(table, "id")
        #expect(objects.map { $0.values[id] } == (0..<Int64(count)).map(RealmValue.int))
        let link = try column(table, "link")
        #expect(objects.allSatisfy { $0.values[link] == .link(table: target.key, key: targetObjects[0].key) })
        let backlinks = try #require(target.columns.firstIndex { $0.type == .backlink })
        guard case .list(let origins) = targetObjects[0].values[backlinks] else {
            Issue.record("no backlinks")
            return
        }
        #expect(Set(origins) == Set((0..<Int64(count)).map { RealmValue.link(table: table.key, key: $0) }))
        #expect(origins.count == count)
    }

    @Test func format23KeepsItsSetsInTheirStoredOrder() throws {
        let file = try RealmFile(path: RealmFileFixtures.path("test_upgrade_database_4_23.realm"))
        let (table, objects) = try contents(file, "table_for_mixed")
        #expect(objects.count == 1)
        let long = String(repeating: "a", count: 200)
        guard case .set(let strings) = objects[0].values[try column(table, "stringSet")],
            case .set(let binaries) = objects[0].values[try column(table, "binarySet")],
            case .set(let mixed) = objects[0].values[try column(table, "mixedSet")]
        else {
            Issue.record("the sets are not sets")
            return
        }
        let expectedStrings: [String?] = [
            nil, "", "Æ", "æ", "ÿ", "ʄ", "\0", "\0\0\u{1}", "\0\u{1}", "\u{1}\0", "Beatles", "John", "Ringo", long + "aaaaÆ", long + "aaaaæ",
            long + "aaaaʄ", long + "aaaaA", long + "aaaaa", "john", "ringo",
        ]
        #expect(strings == expectedStrings.map { $0.map(RealmValue.string) ?? .null })
        #expect(binaries.count == 8)
        #expect(binaries.first == .null)
        #expect(mixed.count == 32)
        #expect(mixed.contains(.objectId(try ObjectId.parse("abcdefabcdefabcdefabcdef").get())))
        #expect(mixed.contains(.uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))))
        #expect(mixed.contains(.timestamp(seconds: 0, nanoseconds: 0)))

        let (table2, rows) = try contents(file, "table2")
        #expect(rows.count == 20)
        let id = try column(table2, "id")
        let value = try column(table2, "mixed")
        #expect(table2.columns[id].isIndexed && table2.columns[value].isIndexed)
        #expect(rows.allSatisfy { $0.values[id] == $0.values[value] })
    }
}
