import BurrowTestTraits
import Foundation
import Testing

/// `burrow import` and primary keys: two objects of one import with one key are an error
/// naming both unless `--merge` is given, the summary tells created from updated objects, and
/// an export may leave out the classes the file already has.
@Suite(.temporaryDirectory, .ownThread) struct CLIImportKeysTests {
    static let dogClass = """
        {"name": "Dog", "embedded": false, "properties": [
            {"name": "name", "type": "string", "primaryKey": true, "indexed": true},
            {"name": "age", "type": "int"},
            {"name": "friend", "type": "object", "objectClass": "Dog", "optional": true}]}
        """

    /// An export of the Dog class with `objects`, its classes left out if `withClasses` is false.
    static func export(_ objects: String, withClasses: Bool = true) -> String {
        #"{"burrowExport": 1, \#(withClasses ? "\"classes\": [\(dogClass)]," : "") "objects": {"Dog": [\#(objects)]}}"#
    }

    static let twoRexes = export(
        #"{"name": "Rex", "age": 1, "friend": "Max"}, {"name": "Max", "age": 5, "friend": null}, {"name": "Rex", "age": 2}"#)

    @Test func twoObjectsWithOneKeyAreAnErrorNamingBoth() throws {
        let tool = try CLITool()
        try Self.twoRexes.write(toFile: tool.path("dogs.json"), atomically: true, encoding: .utf8)
        let run = try tool.run(["import", "dogs.burrow", "dogs.json"])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(
            run.errors
                == "burrow: Dog[0] and Dog[2] are both the Dog with primary key \"Rex\". Give each its own key, or pass --merge to have the later update the earlier. Nothing was imported.\n"
        )
        #expect(!FileManager.default.fileExists(atPath: tool.path("dogs.burrow")), "a file the failed import created is removed")

        // Into a file that has objects: it is left as it was.
        try Self.export(#"{"name": "Rex", "age": 9}"#).write(toFile: tool.path("one.json"), atomically: true, encoding: .utf8)
        #expect(try tool.run(["import", "dogs.burrow", "one.json"]).status == 0)
        #expect(try tool.run(["import", "dogs.burrow", "dogs.json"]).status == 1)
        let dogs = try tool.run(["objects", "dogs.burrow", "Dog", "--format", "json"])
        #expect(dogs.lines == ["[", #"{"name":"Rex","age":9,"friend":null}"#, "]"])
    }

    @Test func keysWrittenDifferentlyAreStillOneKey() throws {
        let tool = try CLITool()
        let export = """
            {"burrowExport": 1, "classes": [{"name": "Tag", "embedded": false, "properties": [
                {"name": "_id", "type": "objectId", "primaryKey": true, "indexed": true},
                {"name": "label", "type": "string"}]}],
             "objects": {"Tag": [{"_id": "5f1b2c3d4e5f60718293a4b5", "label": "a"},
                                 {"_id": "5F1B2C3D4E5F60718293A4B5", "label": "b"}]}}
            """
        try export.write(toFile: tool.path("tags.json"), atomically: true, encoding: .utf8)
        let run = try tool.run(["import", "tags.burrow", "tags.json"])
        #expect(run.status == 1)
        #expect(run.errors.contains("Tag[0] and Tag[1] are both the Tag with primary key \"5F1B2C3D4E5F60718293A4B5\""), "\(run.errors)")
    }

    @Test func mergeLetsTheLaterObjectUpdateTheEarlier() throws {
        let tool = try CLITool()
        try Self.twoRexes.write(toFile: tool.path("dogs.json"), atomically: true, encoding: .utf8)
        let run = try tool.run(["import", "dogs.burrow", "dogs.json", "--merge"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "Imported 3 objects into dogs.burrow: 2 created, 1 merged into an earlier object of the import.\n")
        // The later Rex set the age and said nothing of the friend, which stays.
        let dogs = try tool.run(["objects", "dogs.burrow", "Dog", "--format", "json", "--sort", "name"])
        #expect(dogs.lines == ["[", #"{"name":"Max","age":5,"friend":null},"#, #"{"name":"Rex","age":2,"friend":"Max"}"#, "]"])

        // Again into the same file: every object updates one the file has.
        let again = try tool.run(["import", "dogs.burrow", "dogs.json", "--merge"])
        #expect(again.output == "Imported 3 objects into dogs.burrow: 0 created, 2 updated, 1 merged into an earlier object of the import.\n")
    }

    @Test func theSummarySaysHowManyWereCreatedAndHowManyUpdated() throws {
        let tool = try CLITool()
        try Self.export(#"{"name": "Rex", "age": 1}"#).write(toFile: tool.path("one.json"), atomically: true, encoding: .utf8)
        let first = try tool.run(["import", "dogs.burrow", "one.json"])
        #expect(first.output == "Imported 1 object into dogs.burrow: 1 created.\n")
        try Self.export(#"{"name": "Rex", "age": 2}, {"name": "Max", "age": 3}, {"name": "Ida", "age": 4}"#)
            .write(toFile: tool.path("three.json"), atomically: true, encoding: .utf8)
        let second = try tool.run(["import", "dogs.burrow", "three.json"])
        #expect(second.output == "Imported 3 objects into dogs.burrow: 2 created, 1 updated.\n")
    }

    @Test func classesMayBeLeftOutWhenTheFileHasThem() throws {
        let tool = try CLITool()
        let bare = Self.export(#"{"name": "Rex", "age": 1, "friend": "Max"}, {"name": "Max", "age": 5}"#, withClasses: false)
        try bare.write(toFile: tool.path("bare.json"), atomically: true, encoding: .utf8)
        // A new file has no classes to describe them.
        let new = try tool.run(["import", "dogs.burrow", "bare.json"])
        #expect(new.status == 1)
        #expect(new.errors == "burrow: \"objects\" has objects of Dog, a class that neither \"classes\" nor the file has. Nothing was imported.\n")
        #expect(!FileManager.default.fileExists(atPath: tool.path("dogs.burrow")))

        try Self.export("").write(toFile: tool.path("schema.json"), atomically: true, encoding: .utf8)
        #expect(try tool.run(["import", "dogs.burrow", "schema.json"]).output == "Imported 0 objects into dogs.burrow: 0 created.\n")
        let run = try tool.run(["import", "dogs.burrow", "bare.json"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "Imported 2 objects into dogs.burrow: 2 created.\n")
        let dogs = try tool.run(["objects", "dogs.burrow", "Dog", "--format", "json", "--sort", "name"])
        #expect(dogs.lines == ["[", #"{"name":"Max","age":5,"friend":null},"#, #"{"name":"Rex","age":1,"friend":"Max"}"#, "]"])

        // "classes" that is there must be an array.
        try #"{"burrowExport": 1, "classes": {}, "objects": {}}"#.write(toFile: tool.path("odd.json"), atomically: true, encoding: .utf8)
        let odd = try tool.run(["import", "dogs.burrow", "odd.json"])
        #expect(odd.status == 1 && odd.errors.contains("\"classes\" is an object, not an array of classes."), "\(odd.errors)")
    }

    @Test func anObjectWithoutItsPrimaryKeyIsAnError() throws {
        let tool = try CLITool()
        try Self.export(#"{"name": "Rex", "age": 1}, {"age": 2}"#).write(toFile: tool.path("dogs.json"), atomically: true, encoding: .utf8)
        let run = try tool.run(["import", "dogs.burrow", "dogs.json"])
        #expect(run.status == 1)
        #expect(run.errors == "burrow: Dog[1] has no \"name\", the primary key of Dog. Nothing was imported.\n")
    }
}
