import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// `burrow schema`, `objects`, `info` and `dump` on a file written with Swift classes, each
/// output checked against the objects written.
@Suite(.temporaryDirectory, .ownThread) struct CLIReadingTests {
    /// The words of a line, single-spaced (tables and schema lines are aligned with runs of
    /// spaces).
    static func words(_ line: String) -> String {
        line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// The objects `objects --format json` printed.
    static func objects(_ run: CLITool.Run) throws -> [[String: Any]] {
        try #require(try CLITool.json(run.output) as? [[String: Any]])
    }

    @Test func schemaShowsClassesTypesKeysIndexesLinksAndEmbeddedClasses() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let run = try tool.run(["schema", "shop.burrow"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.isEmpty)
        let lines = run.lines.map(Self.words)
        #expect(lines.first == "schema version 0")
        for expected in [
            "embedded class CLIAddress",
            "street string", "number int?", "resident CLIPet? link to CLIPet", "badge CLIBadge? link to CLIBadge",
            "previous CLIAddress? embedded object",
            "class CLIBadge (2 objects)",
            "class CLIOwner (3 objects)",
            "name string primary key", "age int?", "city string indexed", "pets List<CLIPet> links to CLIPet",
            "home CLIAddress? embedded object",
            "class CLIPet (3 objects)", "_id objectId primary key",
            "class CLIValues (2 objects)", "id int primary key", "int8 int", "optDecimal decimal128?", "any any",
            "optStrings List<string?>", "stringSet MutableSet<string>", "doubleMap Map<String, double?>",
            "petMap Map<String, CLIPet?> links to CLIPet", "addresses List<CLIAddress> embedded objects",
        ] {
            #expect(lines.contains(expected), "missing line: \(expected)")
        }

        let json = try tool.run(["schema", "shop.burrow", "--format", "json"])
        #expect(json.status == 0, "\(json.errors)")
        let document = try #require(try CLITool.json(json.output) as? [String: Any])
        #expect(document["schemaVersion"] as? Int == 0)
        let classes = try #require(document["classes"] as? [[String: Any]])
        #expect(classes.map { $0["name"] as? String } == ["CLIAddress", "CLIBadge", "CLIOwner", "CLIPet", "CLIValues"])
        #expect(classes.map { $0["embedded"] as? Bool } == [true, false, false, false, false])
        let owner = try #require(classes[2]["properties"] as? [[String: Any]])
        #expect(owner[0]["name"] as? String == "name" && owner[0]["primaryKey"] as? Bool == true && owner[0]["type"] as? String == "string")
        #expect(owner[3]["objectClass"] as? String == "CLIPet" && owner[3]["collection"] as? String == "list")
        #expect(owner[1]["optional"] as? Bool == true && owner[2]["indexed"] as? Bool == true)
    }

    @Test func objectsAsJSONShowValuesLinksByKeyAndNestedEmbeddedObjects() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let badges = try Self.objects(try tool.run(["objects", "shop.burrow", "CLIBadge", "--format", "json"]))
        #expect(badges.map { $0["label"] as? String } == ["gold", "silver"])
        let gold = try #require(badges[0]["$key"] as? Int)
        let silver = try #require(badges[1]["$key"] as? Int)
        #expect(gold != silver)
        #expect(badges[0]["pet"] as? String == CLIShop.rexId.stringValue)

        let run = try tool.run(["objects", "shop.burrow", "CLIOwner", "--format", "json", "--sort", "name"])
        #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
        let owners = try Self.objects(run)
        #expect(owners.map { $0["name"] as? String } == ["Ann", "Bo", "Cy"])
        let ann = owners[0]
        #expect(ann["age"] as? Int == 41 && ann["city"] as? String == "Oslo")
        #expect(ann["pets"] as? [String] == [CLIShop.rexId.stringValue, CLIShop.tomId.stringValue])
        #expect((ann["badge"] as? [String: Any])?["$key"] as? Int == silver)
        let home = try #require(ann["home"] as? [String: Any])
        #expect(home["street"] as? String == "1 Main St" && home["number"] as? Int == 5)
        #expect(home["resident"] as? String == CLIShop.tomId.stringValue)
        #expect((home["badge"] as? [String: Any])?["$key"] as? Int == gold)
        let previous = try #require(home["previous"] as? [String: Any])
        #expect(previous["resident"] as? String == CLIShop.kitId.stringValue && previous["number"] is NSNull)
        #expect((previous["previous"] as? [String: Any])?["street"] as? String == "3 First Ln")
        #expect(owners[2]["age"] is NSNull && owners[2]["home"] is NSNull && owners[2]["pets"] as? [String] == [])

        let values = try Self.objects(try tool.run(["objects", "shop.burrow", "CLIValues", "--format", "json", "--where", "id == 1"]))
        let first = try #require(values.first)
        #expect(first["int64"] as? Int == Int(Int64.min))
        #expect(values.count == 1)
        // (Foundation's JSON parser reads 0.30000000000000004 as 0.3000000000000001: the text is checked.)
        let raw = try tool.run(["objects", "shop.burrow", "CLIValues", "--format", "json", "--where", "id == 1"]).output
        #expect(raw.contains(#""double":0.30000000000000004,"#) && raw.contains(#""float":1.1,"#))
        #expect(first["string"] as? String == "ü \"q\", line\nbreak")
        #expect(first["data"] as? String == Data([0xde, 0xad, 0, 0xff]).base64EncodedString())
        #expect(first["optFloat"] as? String == "Infinity" && first["optDouble"] as? String == "NaN")
        #expect(first["objectId"] as? String == CLIShop.rexId.stringValue && first["uuid"] as? String == CLIShop.uuidA.uuidString)
        #expect(first["decimal"] as? String == (try Decimal128(string: "-1234.5678e-3")).description)
        #expect((first["optStrings"] as? [Any])?.map { $0 as? String } == ["a", nil, ""])
        #expect((first["any"] as? [String: Any])?["$link"] as? String == "CLIPet")
        #expect((first["any"] as? [String: Any])?["primaryKey"] as? String == CLIShop.kitId.stringValue)
        #expect((first["petMap"] as? [String: Any])?["best"] as? String == CLIShop.rexId.stringValue)
        #expect((first["petMap"] as? [String: Any])?["none"] is NSNull)
        #expect((first["badges"] as? [[String: Int]]) == [["$key": silver], ["$key": gold]])
        let anys = try #require(first["anys"] as? [Any])
        #expect(anys.count == 14)
        #expect(anys[0] is NSNull && anys[1] as? Int == 7 && anys[2] as? Bool == true)
        #expect((anys[3] as? [String: Double])?["$float"] == 2.5 && anys[4] as? Double == 3.0)
        #expect((anys[5] as? [String: String])?["$double"] == "-Infinity")
        #expect((anys[9] as? [String: String])?["$oid"] == CLIShop.tomId.stringValue)
        #expect((anys[12] as? [String: Any])?["$key"] as? Int == gold)
        #expect((anys[13] as? [String: Any])?["primaryKey"] as? String == "Ann")

        // Lists and dictionaries inside an AnyRealmValue, tagged.
        let second = try #require(
            try Self.objects(try tool.run(["objects", "shop.burrow", "CLIValues", "--format", "json", "--where", "id == 2"])).first)
        let dictionary = try #require((second["any"] as? [String: Any])?["$dictionary"] as? [String: Any])
        let pets = try #require((dictionary["pets"] as? [String: Any])?["$list"] as? [Any])
        #expect(pets.count == 3 && (pets[0] as? [String: Any])?["$link"] as? String == "CLIPet" && pets[1] is NSNull)
        #expect((pets[2] as? [String: [Any]])?["$list"]?.isEmpty == true)
        #expect(((dictionary["deep"] as? [String: Any])?["$dictionary"] as? [String: Int])?["n"] == -1)
    }

    @Test func datesAreISO8601TextThatKeepsEveryDigit() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let values = try Self.objects(try tool.run(["objects", "shop.burrow", "CLIValues", "--format", "json", "--limit", "1"]))
        let date = try #require(values.first?["date"] as? String)
        let old = try #require(values.first?["optDate"] as? String)
        #expect(date == "2004-11-29T21:33:09.12345678Z")
        #expect(old == "1905-12-08T18:39:59.5Z")
        let parsed = ISO8601DateFormatter().date(from: String(date.prefix(19)) + "Z")
        #expect(parsed.map { CLIShop.oddDate.timeIntervalSince($0) }.map { $0 >= 0 && $0 < 1 } == true)
    }

    @Test func objectsAsATableAndAsCSVShowTheSameCells() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let table = try tool.run(["objects", "shop.burrow", "CLIOwner", "--sort", "name"])
        #expect(table.status == 0 && table.errors.isEmpty, "\(table.errors)")
        let rows = table.lines.map(Self.words)
        #expect(rows[1] == "| name | age | city | pets | home | badge |")
        #expect(rows[0].hasPrefix("+-") && rows[2].hasPrefix("+-"))
        let silver =
            try Self.objects(try tool.run(["objects", "shop.burrow", "CLIBadge", "--format", "json", "--where", "label == 'silver'"]))[0]["$key"]
            as! Int
        let ann = try #require(rows.first { $0.hasPrefix("| Ann |") })
        #expect(ann.contains("| 41 | Oslo | [\"\(CLIShop.rexId.stringValue)\",\"65a0000000… |"))
        #expect(ann.hasSuffix("| #\(silver) |"), "a link to a class without a primary key shows the object's key")
        #expect(ann.contains("{\"street\":\"1 Main St\",\"number\":5,\"resid…"), "cells are cut at 40 characters")
        #expect(rows.contains("| Cy | null | Oslo, \"Norway\" | [] | null | null |"))
        #expect(table.lines.last == "(3 objects)")

        let csv = try tool.run(["objects", "shop.burrow", "CLIOwner", "--format", "csv", "--sort", "name"])
        #expect(csv.status == 0 && csv.errors.isEmpty, "\(csv.errors)")
        let lines = csv.output.components(separatedBy: "\r\n")
        #expect(lines[0] == "name,age,city,pets,home,badge")
        #expect(lines[3] == "Cy,,\"Oslo, \"\"Norway\"\"\",[],,")
        #expect(lines[2] == "Bo,29,Bergen,\"[\"\"\(CLIShop.kitId.stringValue)\"\"]\",,")
        #expect(lines[1].hasPrefix("Ann,41,Oslo,\"[") && lines[1].hasSuffix(",#\(silver)"))
        #expect(lines.count == 5 && lines[4].isEmpty)

        let badges = try tool.run(["objects", "shop.burrow", "CLIBadge", "--format", "csv"])
        #expect(badges.output.components(separatedBy: "\r\n")[0] == "$key,label,pet", "objects without a primary key show their key")
    }

    @Test func tableCellsShowControlCharactersAsEscapes() throws {
        let tool = try CLITool()
        do {
            let realm = try Realm(configuration: CLIShop.configuration(tool.path("odd.burrow")))
            try realm.write { try realm.create(CLIModels.Badge.self, value: ["label": "a\u{1B}[2Jb\tc\nd\u{7F}"]) }
        }
        let table = try tool.run(["objects", "odd.burrow", "CLIBadge"])
        #expect(table.output.contains(#"| a\u{1B}[2Jb\tc\nd\u{7F} |"#), "\(table.output)")
        let json = try tool.run(["objects", "odd.burrow", "CLIBadge", "--format", "json"])
        #expect(json.output.contains(#""label":"a\u001b[2Jb\tc\nd\u007f""#), "\(json.output)")
        let csv = try tool.run(["objects", "odd.burrow", "CLIBadge", "--format", "csv"])
        #expect(csv.output.contains(",\"a\u{1B}[2Jb\tc\nd\u{7F}\","), "CSV keeps the text as it is, quoted: \(csv.output)")
    }

    @Test func whereSortAndLimitChooseAndOrderObjects() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        func names(_ arguments: [String]) throws -> [String?] {
            let run = try tool.run(["objects", "shop.burrow", "CLIPet", "--format", "json"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.errors)")
            return try Self.objects(run).map { $0["name"] as? String }
        }
        #expect(try names(["--where", "weight > 1", "--sort", "name"]) == ["Rex", "Tom"])
        #expect(try names(["--sort", "weight,desc", "--limit", "2"]) == ["Rex", "Tom"])
        #expect(try names(["--sort", "weight,asc"]) == ["Kit", "Tom", "Rex"])
        #expect(try names(["--where", "owner.name == 'Ann'", "--sort=name,desc"]) == ["Tom", "Rex"])
        #expect(try names(["--where", "ANY badges.label == 'gold'"]) == ["Rex"])
        #expect(try names(["--sort", "owner.age", "--where", "owner != nil"]) == ["Kit", "Rex", "Tom"])
        #expect(try names(["--limit", "0"]) == [])
        #expect(try names(["--where", "name BEGINSWITH[c] 'k' OR weight == 12.5", "--sort", "name"]) == ["Kit", "Rex"])
        let csv = try tool.run(["objects", "shop.burrow", "CLIOwner", "--format", "csv", "--where", "age == nil"])
        #expect(csv.output.components(separatedBy: "\r\n").dropFirst().first == "Cy,,\"Oslo, \"\"Norway\"\"\",[],,")
    }

    @Test func readingCommandsLeaveTheFileAsItWas() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let before = try Data(contentsOf: URL(fileURLWithPath: tool.path("shop.burrow")))
        for arguments in [
            ["schema", "shop.burrow"], ["objects", "shop.burrow", "CLIValues"], ["export", "shop.burrow"], ["info", "shop.burrow"],
            ["dump", "shop.burrow"], ["dump", "shop.burrow", "--raw"], ["verify", "shop.burrow"],
        ] {
            #expect(try tool.run(arguments).status == 0, "\(arguments)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: tool.path("shop.burrow"))) == before)
    }

    @Test func infoAndDumpNameClassesAndPropertiesAndRawShowsTheTrees() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let info = try tool.run(["info", "shop.burrow"])
        #expect(info.status == 0, "\(info.errors)")
        let lines = info.lines.map(Self.words)
        #expect(lines.contains("schema version: 0") && lines.contains("classes: 5"))
        #expect(lines.contains("class CLIOwner: 3 objects (primary key name; indexed: city; 6 properties)"))
        #expect(lines.contains("class CLIBadge: 2 objects (2 properties)"))
        #expect(lines.contains("embedded class CLIAddress: 7 objects (5 properties)"))
        #expect(!info.output.contains("rows/"), "no tree ids without --raw")

        let raw = try tool.run(["info", "shop.burrow", "--raw"])
        #expect(raw.status == 0 && raw.output.contains("tree \"rows/"))
        #expect(raw.output.contains("(objects of CLIOwner)") && raw.output.contains("(index of CLIOwner.city)"))

        let dump = try tool.run(["dump", "shop.burrow"])
        #expect(dump.status == 0, "\(dump.errors)")
        let dumped = dump.lines.map(Self.words)
        #expect(dumped.contains("class CLIPet (3 objects)"))
        #expect(dumped.contains(#"{"_id":"65a000000000000000000003","name":"Kit","weight":0.5,"owner":"Bo","badges":[]}"#))
        #expect(dumped.contains("(its objects are inside their parents)"))
        let rawDump = try tool.run(["dump", "--raw", "shop.burrow"])
        #expect(rawDump.status == 0 && rawDump.output.contains("tree \"schema\"") && rawDump.output.contains(" = "))
    }
}
