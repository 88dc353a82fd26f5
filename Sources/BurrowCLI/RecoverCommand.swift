import Burrow
import BurrowStorage
import Foundation

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
        guard !FileManager.default.fileExists(atPath: output) else {
            throw ToolError(message: "\(output) exists already; `burrow recover` writes only a new file. Name another, or remove that one first.")
        }
        let salvage = try Salvage.read(path)
        let document = FileManager.default.temporaryDirectory.appendingPathComponent("burrow-recover-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: document) }
        let encoder = SalvageEncoder(salvage: salvage)
        let recovered = try ExportCommand.write(
            to: try TextOutput.file(document, notOver: path), schemaVersion: salvage.schemaVersion, classes: salvage.classes
        ) { objectSchema in
            let objects = salvage.objects(of: objectSchema.className)
            return (objects.count, AnyIterator(objects.lazy.map { encoder.node(of: $0, objectSchema) }.makeIterator()))
        }
        _ = try ImportCommand.importExport(at: document, into: output, merging: false)
        try checkWritten(output)
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

    /// Checks the pages and objects of the file just written at `path`.
    private static func checkWritten(_ path: String) throws {
        let snapshot = try Inspect.open(path)
        let pages = snapshot.check()
        let objects = pages.isSound ? try ObjectVerifier.verify(snapshot) : nil
        guard let objects, objects.isSound else {
            let problem = pages.problems.first?.description ?? objects?.findings.first?.description ?? "it does not verify"
            throw ToolError(message: "\(path) was written but does not verify (\(problem)); it is not a sound copy.")
        }
    }
}
