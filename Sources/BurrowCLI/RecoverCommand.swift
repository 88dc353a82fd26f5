import Burrow
import BurrowStorage
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `burrow recover DAMAGED OUTPUT`: every object a damaged file still holds whole, written into
/// a new Burrow file, with a report on standard error of what was lost. The damaged file is
/// opened read-only and never written; OUTPUT must not exist.
///
/// The objects go through the export document (`Salvage`, then `ExportCommand.write`) and
/// `burrow import`, so the new file is built as an import builds one: indexes, primary keys and
/// backlinks made afresh. The new file is then checked, pages and objects, before the command
/// reports success. Exit status 0 when nothing was lost, 1 when something was (the new file is
/// written and holds the rest), 1 with the reason when nothing could be read.
@MainActor
enum RecoverCommand {
    static func run(_ arguments: CommandArguments) throws {
        let path = arguments.operands[0]
        let output = arguments.operands[1]
        guard !exists(output) else {
            throw ToolError(message: "\(output) exists already; `burrow recover` writes only a new file. Name another, or remove that one first.")
        }
        let salvage = try Salvage.read(path)
        // The copy is built under a name of its own beside OUTPUT, and takes OUTPUT's name only
        // once it is whole and checked: a recover killed part-way leaves no OUTPUT that looks
        // whole but holds nothing, and two recovers into one OUTPUT cannot both write it.
        let building = output + ".recovering"
        let document = building + ".json"
        try claim(building, document, for: output)
        var finished = false
        defer {
            // The copy goes before the document that claims its name.
            if !finished { _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: building))) }
            try? FileManager.default.removeItem(atPath: document)
        }
        let encoder = SalvageEncoder(salvage: salvage)
        let recovered = try ExportCommand.write(
            to: try TextOutput.file(document, notOver: path), schemaVersion: salvage.schemaVersion, classes: salvage.classes
        ) { objectSchema in
            let objects = salvage.objects(of: objectSchema.className)
            return (objects.count, AnyIterator(objects.lazy.map { encoder.node(of: $0, objectSchema) }.makeIterator()))
        }
        _ = try ImportCommand.importExport(at: document, into: building, merging: false)
        try checkWritten(building, as: output)
        // link(2), unlike rename(2), never replaces a file that took the name meanwhile.
        guard link(building, output) == 0 else {
            let reason = errno == EEXIST ? "it exists now (another program made it meanwhile)" : String(cString: strerror(errno))
            throw ToolError(message: "\(output) could not be given the recovered copy: \(reason). Nothing was written to it.")
        }
        FileDevice.syncDirectory(of: output)
        _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: building)))
        finished = true
        Salvage.printReport(salvage, of: path)
        let recorded = salvage.report.classes.filter { !$0.isEmbedded }.reduce(UInt64(0)) { $0 + $1.recorded }
        print("Recovered \(recovered) of \(counted(recorded, "object")) from \(path) into \(output).")
        if !salvage.report.lostNothing {
            printError(
                "burrow: \(path) is damaged: \(output) was written with the \(counted(recovered, "object")) that could be read, and what is listed above was lost."
            )
            DatabaseFile.openedDamaged = true
        }
    }

    /// Whether anything is at `path`, a dangling symbolic link included.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Claims the names beside `output` for this recover alone: creates `document` (the
    /// export the copy is imported from), exclusively, and checks that nothing is at
    /// `building`. Throws `ToolError` when either is there: another recover into `output` is
    /// under way, or one that was stopped left them.
    private static func claim(_ building: String, _ document: String, for output: String) throws(ToolError) {
        func inTheWay(_ name: String) -> ToolError {
            ToolError(
                message:
                    "\(name) is in the way: recover builds the copy for \(output) in \(building), from \(document). Another recover into \(output) may be under way; if none is, one that stopped left them: remove both and run recover again."
            )
        }
        let descriptor = open(document, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw DatabaseFile.missing(output) }  // OUTPUT's directory is not there
            guard errno == EEXIST else { throw DatabaseFile.explain(StorageError.io(path: document, operation: "open", errno: errno), document) }
            throw inTheWay(document)
        }
        close(descriptor)
        guard !exists(building) else {
            unlink(document)
            throw inTheWay(building)
        }
    }

    /// Checks the pages and objects of the file just written at `path`, to be named `output`.
    private static func checkWritten(_ path: String, as output: String) throws {
        let snapshot = try DatabaseFile.openSnapshot(path)
        let pages = snapshot.check()
        let objects = pages.isSound ? try ObjectVerifier.verify(snapshot) : nil
        guard let objects, objects.isSound else {
            let problem = pages.problems.first?.description ?? objects?.findings.first?.description ?? "it does not verify"
            throw ToolError(
                message: "the copy for \(output) was written but does not verify (\(problem)); it is not a sound copy, and \(output) was not made.")
        }
    }
}
