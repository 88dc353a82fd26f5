import Burrow
import BurrowStorage
import BurrowStore

/// What `burrow recover`, `export --salvage` and `verify` share about a damaged file: reading
/// what it still holds whole (`ObjectSalvage`), and the report of what it lost, on standard
/// error.
@MainActor
enum Salvage {
    /// The objects the file at `path` still holds whole, read-only. Throws `ToolError` when the
    /// file cannot be opened, or when nothing in it can be read. A file none of whose versions
    /// opens whole, because pages its commits wrote are damaged, is read at its newest version as
    /// it is (`StorageOptions.salvaging`).
    static func read(_ path: String) throws -> ObjectSalvage {
        let snapshot = try DatabaseFile.openSnapshot(path, salvaging: true)
        _ = Inspect.printRecovery(of: snapshot, path: path)
        var progress = ProgressLine()
        progress.show("reading what \(path) still holds…")
        defer { progress.finish() }
        let salvage = try ObjectSalvage(snapshot)
        let report = salvage.report
        let recordsObjects = report.classes.contains { $0.recorded > 0 } || report.schemaDamaged || !report.unknownTrees.isEmpty
        if recordsObjects, report.classes.allSatisfy({ $0.recovered == 0 }), !report.lostNothing {
            printReport(report, of: path, names: StoredNames(salvage))
            let reason =
                salvage.classes.isEmpty
                ? "the stored schema, which names its classes, is on damaged pages" : "every object it records is on a damaged page"
            throw ToolError(message: "nothing could be read from \(path): \(reason) (listed above).")
        }
        return salvage
    }

    /// Prints, on standard error, every problem of `report`'s pages (as `lines(of:)` has them).
    static func printReport(_ report: SalvageReport, of path: String, names: StoredNames) {
        guard !report.isSound else { return }
        printError(
            report.lostNothing
                ? "burrow: \(path) is damaged (version \(report.version)), but only in pages no object needs:"
                : "burrow: what \(path) lost (version \(report.version)):")
        for line in lines(of: report, names: names) { printError("  " + line) }
    }

    /// Prints `salvage`'s report on standard error.
    static func printReport(_ salvage: ObjectSalvage, of path: String) {
        printReport(salvage.report, of: path, names: StoredNames(salvage))
    }

    /// The lines of a report: each damaged page and what it held, then each class with what
    /// was recovered and lost, then the links dropped.
    static func lines(of report: SalvageReport, names: StoredNames, written: Bool = true) -> [String] {
        let outcome = written ? "recovered" : "readable"
        var lines = problemLines(report.pages, names: names)
        if report.catalogDamaged {
            lines.append("the catalog, which names the file's trees, is damaged: the trees it names on its damaged pages cannot be read")
        }
        if report.schemaDamaged {
            lines.append("the stored schema is damaged: a class stored on its damaged pages cannot be read, nor can its objects")
        }
        for tree in report.unknownTrees {
            lines.append("tree \"\(tree)\" belongs to a class the schema no longer names; what it holds cannot be read")
        }
        for stored in report.classes {
            var line = "\(stored.className): \(stored.recovered) of \(counted(stored.recorded, "object")) \(outcome)"
            if stored.lost > 0 { line += ", \(stored.lost) lost" }
            var causes: [String] = []
            let onPages = stored.lostRanges.reduce(UInt64(0)) { $0 + ($1.objects ?? 0) }
            if onPages > 0 {
                // Keys derived from an Int primary key are in its order: the range is the primary key's.
                let name = stored.intPrimaryKey
                func bound(_ key: UInt64) -> String { name == nil ? "#\(key)" : "\(stored.primaryKey(ofObjectKey: key))" }
                let ranges = stored.lostRanges.filter { $0.lower != nil || $0.upper != nil }.map { range in
                    "\(name ?? "object keys") \(range.lower.map(bound) ?? "from the first") to \(range.upper.map { bound($0 &- 1) } ?? "the last")"
                }
                causes.append("\(counted(onPages, "object")) on damaged pages" + (ranges.isEmpty ? "" : ": " + ranges.joined(separator: ", ")))
            }
            if stored.incomplete > 0 {
                causes.append("\(counted(stored.incomplete, "object")) whose long values or collection elements were on damaged pages")
            }
            if stored.isEmbedded, stored.lost > 0 { causes.append("an embedded object goes with its parent") }
            if !causes.isEmpty { line += " (\(causes.joined(separator: "; ")))" }
            lines.append(line)
        }
        if report.droppedLinks > 0, written {
            lines.append(
                "\(counted(report.droppedLinks, "link")) to objects that were lost \(report.droppedLinks == 1 ? "was" : "were") set to null, or left out of \(report.droppedLinks == 1 ? "its list or set" : "their lists and sets")"
            )
        } else if report.droppedLinks > 0 {
            lines.append(
                "\(counted(report.droppedLinks, "readable link")) \(report.droppedLinks == 1 ? "points" : "point") to an object that cannot be read")
        }
        return lines
    }

    /// One line per problem of `pages`, with the class or property of the tree it belongs to,
    /// and how many more there are past the listed ones.
    static func problemLines(_ pages: VerifyReport, names: StoredNames) -> [String] {
        var lines: [String] = []
        for problem in pages.problems {
            guard problem.page != 0 else {
                lines.append(problem.description)
                continue
            }
            let owner = problem.tree.flatMap { names.meaning(ofTree: $0) }.map { "\(problem.owner), \($0)" } ?? problem.owner
            var line = "page \(problem.page) (\(owner)) \(problem.detail)"
            if problem.isUnreadable, let lost = problem.lostEntries { line += ": \(counted(lost, "entry")) could not be read" }
            lines.append(line)
        }
        if pages.unlistedProblems > 0 { lines.append("… and \(counted(pages.unlistedProblems, "more problem"))") }
        return lines
    }
}
