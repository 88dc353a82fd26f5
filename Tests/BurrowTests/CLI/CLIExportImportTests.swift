import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// `burrow export` and `burrow import`: an export imported into a new file gives equal
/// objects, of every property type, with links to classes with and without primary keys.
@Suite(.temporaryDirectory, .ownThread) struct CLIExportImportTests {
    @Test func exportImportedIntoANewFileGivesEqualObjects() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let export = try tool.run(["export", "shop.burrow", "--output", "shop.json"])
        #expect(export.status == 0, "\(export.errors)")
        #expect(export.errors.isEmpty)
        #expect(export.output == "Exported 10 objects of 4 classes to shop.json.\n")
        let imported = try tool.run(["import", "copy.burrow", "shop.json"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "Imported 10 objects into copy.burrow: 10 created.\n")

        // The copy exports the same document: every value, link and embedded object. (The
        // objects without a primary key have the same keys because the new file numbers them
        // in the same order; the import does not promise it.)
        let again = try tool.run(["export", "copy.burrow"])
        #expect(again.status == 0, "\(again.errors)")
        let original = try String(contentsOfFile: tool.path("shop.json"), encoding: .utf8)
        #expect(again.output == original)
        #expect(try tool.run(["verify", "copy.burrow"]).status == 0)

        // Read back through the Swift classes, value by value.
        let realm = try Realm(configuration: CLIShop.configuration(tool.path("copy.burrow")))
        let values = try #require(realm.object(ofType: CLIModels.Values.self, forPrimaryKey: 1))
        #expect(values.bool && values.int == -5 && values.int8 == -8 && values.int16 == 16 && values.int32 == -32)
        #expect(values.int64 == Int64.min && values.float == Float(1.1) && values.double == 0.1 + 0.2)
        #expect(values.string == "ü \"q\", line\nbreak" && values.data == Data([0xde, 0xad, 0, 0xff]))
        #expect(values.date == CLIShop.oddDate && values.optDate == CLIShop.oldDate)
        #expect(values.objectId == CLIShop.rexId && values.uuid == CLIShop.uuidA)
        #expect(values.decimal == (try Decimal128(string: "-1234.5678e-3")) && values.optDecimal == Decimal128(7))
        #expect(values.optBool == false && values.optInt == Int.max && values.optFloat == .infinity)
        #expect(values.optDouble?.isNaN == true && values.optString == "" && values.optData == Data())
        #expect(values.optObjectId == CLIShop.tomId && values.optUUID == CLIShop.uuidB)
        #expect(values.any.object(CLIModels.Pet.self)?.name == "Kit")
        #expect(Array(values.ints) == [3, -1, 3] && Array(values.optStrings) == ["a", nil, ""])
        #expect(Array(values.dates) == [CLIShop.oddDate, CLIShop.oldDate] && Array(values.datas) == [Data([1]), Data()])
        #expect(Array(values.decimals) == [Decimal128(1), try Decimal128(string: "0.001")])
        let anys = Array(values.anys)
        #expect(anys.count == 14)
        #expect(
            Array(anys[0..<12]) == [
                AnyRealmValue.none, .int(7), .bool(true), .float(2.5), .double(3.0), .double(-.infinity), .string("s"),
                .data(Data([9, 8])), .date(CLIShop.oddDate), .objectId(CLIShop.tomId), .uuid(CLIShop.uuidB), .decimal128(Decimal128(12)),
            ])
        #expect(anys[12].object(CLIModels.Badge.self)?.label == "gold" && anys[13].object(CLIModels.Owner.self)?.name == "Ann")
        #expect(Set(values.stringSet) == ["x", "y"] && Array(values.uuidSet) == [CLIShop.uuidA])
        #expect(values.doubleMap["a"] == .some(1.5) && values.doubleMap["n"] == .some(nil))
        #expect(values.anyMap["i"] == .int(1) && values.anyMap["s"] == .string("t") && values.anyMap["p"]?.object(CLIModels.Pet.self)?.name == "Rex")
        #expect(values.pet?.name == "Tom" && values.badge?.label == "gold")
        #expect(Set(values.petSet.map(\.name)) == ["Rex", "Kit"])
        #expect(values.petMap["best"]??.name == "Rex" && values.petMap["none"] == .some(nil))
        #expect(values.badges.map(\.label) == ["silver", "gold"])
        #expect(values.addresses.map(\.street) == ["4 List St", "5 List St"] && values.addresses[0].resident?.name == "Rex")
        #expect(values.addresses[1].previous?.street == "6 Inner St" && values.addresses[1].previous?.badge?.label == "silver")
        #expect(values.addressMap["home"]??.number == 7 && values.addressMap["none"] == .some(nil))
        #expect(values.addressMap["home"]??.resident?.name == "Kit", "a link inside an embedded object in a map")
        let empty = try #require(realm.object(ofType: CLIModels.Values.self, forPrimaryKey: 2))
        #expect(empty.optInt == nil && empty.pet == nil && empty.addresses.isEmpty)
        let pets = try #require(empty.any.dictionaryValue?["pets"]?.listValue)
        #expect(pets.count == 3 && pets[0].object(CLIModels.Pet.self)?.name == "Rex" && pets[1] == .none)
        #expect(pets[2].listValue?.isEmpty == true && empty.any.dictionaryValue?["deep"]?.dictionaryValue?["n"] == .int(-1))

        let ann = try #require(realm.object(ofType: CLIModels.Owner.self, forPrimaryKey: "Ann"))
        #expect(ann.age == 41 && ann.pets.map(\.name) == ["Rex", "Tom"] && ann.badge?.label == "silver")
        #expect(ann.home?.resident?.name == "Tom" && ann.home?.badge?.label == "gold")
        #expect(ann.home?.previous?.resident?.name == "Kit" && ann.home?.previous?.previous?.street == "3 First Ln")
        let rex = try #require(realm.object(ofType: CLIModels.Pet.self, forPrimaryKey: CLIShop.rexId))
        #expect(rex.owner?.name == "Ann" && rex.badges.map(\.label) == ["gold", "silver", "gold"])
        #expect(rex.badges[0].isSameObject(as: rex.badges[2]), "two links to one object without a primary key stay one object")
        #expect(rex.badges[0].pet?.name == "Rex")
        #expect(realm.objects(CLIModels.Badge.self).count == 2 && realm.objects(CLIModels.Owner.self).count == 3)
        #expect(values.badge?.isSameObject(as: ann.home?.badge) == true)

        // The same export read from standard input.
        let piped = try tool.run(["import", "piped.burrow", "-"], input: "shop.json")
        #expect(piped.status == 0, "\(piped.errors)")
        #expect(try tool.run(["export", "piped.burrow"]).output == original)
    }

    @Test func importUpdatesObjectsByPrimaryKeyAndAddsObjectsWithoutOne() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        #expect(try tool.run(["export", "shop.burrow", "--output", "shop.json"]).status == 0)
        // Into the file it came from: objects with a primary key are updated in place; the
        // badges, which have none, are added again, with links among the new ones.
        let run = try tool.run(["import", "shop.burrow", "shop.json"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "Imported 10 objects into shop.burrow: 2 created, 8 updated.\n")
        let realm = try Realm(configuration: CLIShop.configuration(tool.path("shop.burrow")))
        #expect(realm.objects(CLIModels.Owner.self).count == 3 && realm.objects(CLIModels.Pet.self).count == 3)
        #expect(realm.objects(CLIModels.Badge.self).count == 4)
        let rex = try #require(realm.object(ofType: CLIModels.Pet.self, forPrimaryKey: CLIShop.rexId))
        #expect(rex.badges.map(\.label) == ["gold", "silver", "gold"])
        #expect(rex.badges[0].isSameObject(as: rex.badges[2]))
        #expect(realm.objects(CLIModels.Badge.self).filter { $0.label == "gold" }.count == 2)
    }

    @Test func aFailedImportLeavesNothingAndSaysWhere() throws {
        let tool = try CLITool()
        let missingLink = """
            {"burrowExport": 1, "schemaVersion": 3,
             "classes": [{"name": "Dog", "embedded": false, "properties": [
                {"name": "name", "type": "string", "primaryKey": true, "indexed": true},
                {"name": "friend", "type": "object", "objectClass": "Dog", "optional": true}]}],
             "objects": {"Dog": [{"name": "Rex", "friend": "Max"}, {"name": "Fido", "friend": null}]}}
            """
        try missingLink.write(toFile: tool.path("bad.json"), atomically: true, encoding: .utf8)
        let run = try tool.run(["import", "new.burrow", "bad.json"])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(
            run.errors
                == "burrow: Dog[0].friend links to the Dog with primary key \"Max\", which neither the import nor the file has. Nothing was imported.\n"
        )
        #expect(!FileManager.default.fileExists(atPath: tool.path("new.burrow")), "a file the failed import created is removed")

        let good = missingLink.replacingOccurrences(of: "\"Max\"", with: "\"Fido\"")
        try good.write(toFile: tool.path("good.json"), atomically: true, encoding: .utf8)
        #expect(try tool.run(["import", "new.burrow", "good.json"]).status == 0)
        let dogs = try tool.run(["objects", "new.burrow", "Dog", "--format", "json", "--sort", "name"])
        #expect(dogs.lines == ["[", #"{"name":"Fido","friend":null},"#, #"{"name":"Rex","friend":"Fido"}"#, "]"])
        #expect(try tool.run(["schema", "new.burrow"]).lines.first == "schema version 3", "a new file takes the export's schema version")

        for (text, message) in [
            ("{\"burrowExport\": 1, \"classes\": [", "is not valid JSON: line 1, column 33: the document ends where a value should be"),
            ("[1, 2]", "is not an export of burrow"),
            (
                good.replacingOccurrences(of: "\"Fido\", \"friend\": null", with: "\"Fido\", \"friend\": null, \"age\": 3"),
                "Dog[1]: Dog has no property \"age\"; its properties are: name, friend."
            ),
            (good.replacingOccurrences(of: "\"type\": \"string\"", with: "\"type\": \"text\""), "property Dog.name has no \"type\" of"),
            (String(repeating: "[", count: 600) + String(repeating: "]", count: 600), "nest more than 512 levels deep"),
            (
                good.replacingOccurrences(of: "\"objectClass\": \"Dog\"", with: "\"objectClass\": \"Cat\""),
                "The class Dog cannot be stored: property 'friend' links to Cat, which is neither stored nor given."
            ),
            (good.replacingOccurrences(of: "\"optional\": true", with: "\"optional\": false"), "property 'friend' is a link and must be optional."),
            (
                good.replacingOccurrences(of: "\"indexed\": true}", with: "\"indexed\": true, \"collection\": \"list\"}"),
                "property 'name' cannot be a primary key"
            ),
        ] {
            try text.write(toFile: tool.path("wrong.json"), atomically: true, encoding: .utf8)
            let wrong = try tool.run(["import", "other.burrow", "wrong.json"])
            #expect(wrong.status == 1)
            #expect(wrong.errors.contains(message), "\(wrong.errors)")
            #expect(wrong.errors.split(separator: "\n").count == 1, "one line: \(wrong.errors)")
        }
        // A class the file stores with other properties is not changed by an import.
        let other = good.replacingOccurrences(of: "\"optional\": true", with: "\"optional\": true}, {\"name\": \"age\", \"type\": \"int\"")
        try other.write(toFile: tool.path("other.json"), atomically: true, encoding: .utf8)
        let mismatch = try tool.run(["import", "new.burrow", "other.json"])
        #expect(mismatch.status == 1 && mismatch.errors.contains("stores the class Dog with other properties"), "\(mismatch.errors)")
    }

    @Test func anAnyValueNestingMoreThanAHundredLevelsIsRefused() throws {
        let tool = try CLITool()
        func export(_ depth: Int) -> String {
            let value = String(repeating: "{\"$list\": [", count: depth) + "1" + String(repeating: "]}", count: depth)
            return """
                {"burrowExport": 1, "schemaVersion": 0,
                 "classes": [{"name": "Box", "embedded": false, "properties": [{"name": "value", "type": "any", "optional": true}]}],
                 "objects": {"Box": [{"value": \(value)}]}}
                """
        }
        try export(101).write(toFile: tool.path("deep.json"), atomically: true, encoding: .utf8)
        let refused = try tool.run(["import", "box.burrow", "deep.json"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("more than 100 levels deep"), "\(refused.errors)")
        #expect(!FileManager.default.fileExists(atPath: tool.path("box.burrow")))

        try export(100).write(toFile: tool.path("deep.json"), atomically: true, encoding: .utf8)
        #expect(try tool.run(["import", "box.burrow", "deep.json"]).status == 0)
        let exported = try tool.run(["export", "box.burrow"])
        #expect(exported.output.contains(String(repeating: "{\"$list\":[", count: 100) + "1" + String(repeating: "]}", count: 100)))
    }

    @Test func aChainOfEmbeddedObjectsExportsAtAnyDepth() throws {
        let tool = try CLITool()
        do {
            let realm = try Realm(configuration: CLIShop.configuration(tool.path("deep.burrow")))
            try realm.write {
                var address = CLIModels.Address(value: ["street": "end"])
                for level in 0..<3000 { address = CLIModels.Address(value: ["street": "level \(level)", "previous": address]) }
                try realm.create(CLIModels.Owner.self, value: ["name": "Deep", "home": address])
            }
        }
        let export = try tool.run(["export", "deep.burrow", "--output", "deep.json"])
        #expect(export.status == 0, "\(export.errors)")
        let text = try String(contentsOfFile: tool.path("deep.json"), encoding: .utf8)
        #expect(text.components(separatedBy: "\"previous\":{").count == 3001)
        // The import reads nesting to a depth limit, and says so beyond it.
        let run = try tool.run(["import", "copy.burrow", "deep.json"])
        #expect(run.status == 1 && run.errors.contains("nest more than 512 levels deep"), "\(run.errors)")
    }

    @Test func longCommandsShowAProgressLineOnlyWhenAskedOrOnATerminal() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let quiet = try tool.run(["export", "shop.burrow", "--output", "a.json"])
        #expect(quiet.errors.isEmpty, "no progress line when standard error is not a terminal")
        let shown = try tool.run(["export", "shop.burrow", "--output", "b.json"], environment: ["BURROW_PROGRESS": "1"])
        #expect(shown.status == 0)
        #expect(shown.errors.contains("\rexporting CLIBadge: 0 of 2 objects\u{1B}[K"))
        #expect(shown.errors.hasSuffix("\r\u{1B}[K"), "the line is erased at the end")
        let verify = try tool.run(["verify", "shop.burrow"], environment: ["BURROW_PROGRESS": "1"])
        #expect(verify.status == 0 && verify.errors.contains("verifying shop.burrow: objects…"))
        let imported = try tool.run(["import", "c.burrow", "a.json"], environment: ["BURROW_PROGRESS": "1"])
        #expect(imported.status == 0 && imported.errors.contains("importing CLIBadge: 0 of 2 objects"))

        // `objects` shows it for large classes only.
        let small = try tool.run(["objects", "shop.burrow", "CLIBadge"], environment: ["BURROW_PROGRESS": "1"])
        #expect(small.status == 0 && !small.errors.contains("objects\u{1B}[K"), "\(small.errors)")
        do {
            let realm = try Realm(configuration: CLIShop.configuration(tool.path("many.burrow")))
            try realm.write { for index in 0..<10_000 { try realm.create(CLIModels.Badge.self, value: ["label": "badge \(index)"]) } }
        }
        let large = try tool.run(["objects", "many.burrow", "CLIBadge", "--format", "csv"], environment: ["BURROW_PROGRESS": "1"])
        #expect(large.status == 0 && large.errors.contains("\rCLIBadge: 0 of 10000 objects\u{1B}[K"), "\(large.errors)")
        #expect(large.output.components(separatedBy: "\r\n").count == 10_002)
    }
}
