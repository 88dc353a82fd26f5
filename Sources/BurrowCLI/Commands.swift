import BurrowStore

/// The tool's commands: what each takes, its help, and what runs it.
struct Command {
    let name: String
    /// The operands and options, as the usage line shows them.
    let synopsis: String
    /// One line for the tool's help.
    let summary: String
    /// The command's own help, after its usage line.
    let details: String
    /// How many operands it takes.
    let operands: ClosedRange<Int>
    let valueOptions: Set<String>
    let flagOptions: Set<String>
    let run: @MainActor (CommandArguments) async throws -> Void

    /// The usage line.
    var usage: String { "usage: burrow \(name) \(synopsis)" }
    /// What `burrow <command> --help` prints.
    var help: String { usage + "\n\n" + summary + "\n\n" + details }

    /// The width of the tool's help's column of command names: the longest name and two spaces.
    @MainActor static var nameColumn: Int { all.map(\.name.count).max()! + 2 }

    /// Every command, in the order the help lists them.
    @MainActor static let all: [Command] = [
        Command(
            name: "schema", synopsis: "FILE [--format text|json]",
            summary: "Show the classes a file stores and their properties.",
            details: """
                Each class with its object count, and each property with its type (a `?` for
                optional, List<…>, MutableSet<…> or Map<String, …> for collections, the class a
                link goes to), its primary key or index, and which links hold embedded objects.
                The schema is read from the file, so no Swift classes are needed.

                  --format text|json   text (the default), or JSON as an export's "classes"
                """,
            operands: 1...1, valueOptions: ["format"], flagOptions: [], run: SchemaCommand.run),
        Command(
            name: "objects", synopsis: "FILE CLASS [--where QUERY] [--sort KEYPATH[,desc]] [--limit N] [--format table|json|csv]",
            summary: "Show the objects of one class, filtered, sorted and limited.",
            details: """
                  --where QUERY    a query string, as Results.filter takes it:
                                   "age > 2 AND name BEGINSWITH 'R'", "owner.name == 'Ali'",
                                   "ANY dogs.age < 2", "tags.@count > 1", and backlinks:
                                   "owners.@count > 0", "ANY @links.Person.dogs.name == 'Ali'",
                                   "@links.@count == 0"
                  --sort KEYPATH   sort by a property (or a link's property, "owner.name");
                                   add ",desc" for descending order
                  --limit N        show at most N objects
                  --format F       table (the default), json (an array, one object a line)
                                   or csv (RFC 4180, a header row first)

                A link shows the primary key of the object it links to, or {"$key": N}
                (#N in a table) when its class has none: N is the object's key, which objects of
                such classes show as "$key". Lists, sets, maps and embedded objects show as
                JSON; LinkingObjects properties (backlinks) come last, as lists of the objects
                that link here. Table cells are cut at 40 characters. A bad query, sort or class is a
                usage error (exit status 2).
                """,
            operands: 2...2, valueOptions: ["where", "sort", "limit", "format"], flagOptions: [], run: ObjectsCommand.run),
        Command(
            name: "export", synopsis: "FILE [--format json] [--output PATH] [--salvage]",
            summary: "Write every object of a file, and its schema, as JSON.",
            details: """
                  --format json    the only format: one document with "schemaVersion",
                                   "classes" and "objects" (by class, one object a line)
                  --output PATH    write to PATH rather than to standard output
                  --salvage        from a damaged file: every object whose pages are sound,
                                   with what was lost listed on standard error (status 1)

                `burrow import` reads the document back into the same or another file.
                """,
            operands: 1...1, valueOptions: ["format", "output"], flagOptions: ["salvage"], run: ExportCommand.run),
        Command(
            name: "import", synopsis: "FILE JSON [--merge]",
            summary: "Create the objects of an export in a file (created if missing).",
            details: """
                JSON is an export's path, or - for standard input. All objects are created in one
                write transaction: all of them, or, after an error, none. The file gets the
                export's classes if it lacks them; "classes" may be left out for classes the
                file has. Objects of classes with a primary key are created with
                update: .modified (an object of the file with the same key is updated); objects
                of classes without one are always added, and links to them resolve among the
                objects of the same import. The summary says how many objects were created and
                how many updated.

                  --merge          two objects of the import with one primary key: the later
                                   updates the earlier (without it, that is an error naming
                                   both, and nothing is imported)
                """,
            operands: 2...2, valueOptions: [], flagOptions: ["merge"], run: ImportCommand.run),
        Command(
            name: "import-realm", synopsis: "FILE.realm OUTPUT [--key HEX]",
            summary: "Convert a RealmSwift app's .realm file into a new Burrow file.",
            details: """
                Reads realm-core's file formats 20 to 24 (every RealmSwift 10 or later writes
                one), encrypted or not, and writes every object of the app's classes into
                OUTPUT in one write transaction: values, links, lists, sets, maps, embedded
                objects. Prints each class with its object count, and anything it left out
                with the reason. FILE.realm is only read. OUTPUT must not exist; if the import
                fails, nothing is left there. A progress line shows on a terminal.

                  --key HEX        the app's 64-byte encryption key, as 128 hexadecimal digits
                """,
            operands: 2...2, valueOptions: ["key"], flagOptions: [], run: ImportRealmCommand.run),
        Command(
            name: "info", synopsis: "FILE [--raw]",
            summary: "Show a file's version, pages, and classes with their object counts.",
            details: """
                  --raw            list the engine's trees (rows/1, index/1/2, …) and their
                                   entry counts instead of the classes
                """,
            operands: 1...1, valueOptions: [], flagOptions: ["raw"], run: { try Inspect.info($0) }),
        Command(
            name: "dump", synopsis: "FILE [--raw]",
            summary: "Print every class and every object, one object a line.",
            details: """
                Objects are written as in `burrow objects --format json`.

                  --raw            print the engine's trees instead: every entry's key and
                                   value in hex
                """,
            operands: 1...1, valueOptions: [], flagOptions: ["raw"], run: { try Inspect.dump($0) }),
        Command(
            name: "verify", synopsis: "FILE",
            summary: "Check every page, tree and object; exit status 1 if the file is damaged.",
            details: """
                Checks checksums, tree structure and free pages, then every object: rows,
                links, backlinks, indexes and collections. Damage is listed, with status 1:
                every damaged page (the first 100, and a count of the rest) with the tree and
                class it belongs to, and per class how many objects can still be read, which
                `burrow recover` copies into a new file.
                """,
            operands: 1...1, valueOptions: [], flagOptions: [], run: { try Inspect.verify($0) }),
        Command(
            name: "recover", synopsis: "DAMAGED OUTPUT",
            summary: "Copy every object a damaged file still holds whole into a new file.",
            details: """
                DAMAGED is opened read-only and never changed; OUTPUT must not exist, and is
                made only once the copy (built as OUTPUT.recovering) is whole and checked. Objects
                whose row, long values and collection elements lie on sound pages are written
                to OUTPUT, as `burrow import` would write them. Links to objects that were lost
                become null, or leave their lists and sets. What was lost (the damaged pages,
                and per class the objects recovered and lost) is listed on standard error.
                Exit status 0 if nothing was lost, 1 if something was (OUTPUT holds the rest),
                1 if nothing could be read.
                """,
            operands: 2...2, valueOptions: [], flagOptions: [], run: { try RecoverCommand.run($0) }),
        Command(
            name: "compact", synopsis: "FILE",
            summary: "Rewrite a file packed, reclaiming free pages.",
            details: """
                The copy is written beside the file, verified, and renamed over it, so a crash
                leaves either the old file or the new one whole. Through a symbolic link, the
                file it points to is compacted, and the link stays.
                """,
            operands: 1...1, valueOptions: [], flagOptions: [], run: { try Compact.run($0) }),
        Command(
            name: "demo", synopsis: "[FILE]",
            summary: "Run the DoggoDB story of the RealmSwift documents on a file.",
            details: """
                Without FILE, on default.burrow in the current directory. The file is created
                if it is missing; a file that is there but cannot be opened with the demo's
                classes (another program's, a newer format, damaged) is refused and left as it
                is, with status 1.
                """,
            operands: 0...1, valueOptions: [], flagOptions: [],
            run: { try await Demo.run(path: $0.operands.first ?? "default.burrow") }),
    ]
}
