import Burrow
import BurrowStorage
import BurrowStore
import Foundation

/// `burrow compact <file>`: rewrites a file with every tree packed into as few pages as it
/// needs, reclaiming the space that old versions (a frozen snapshot kept long, a large delete)
/// left free, through `Realm.compact(configuration:)`: the copy is written beside the file,
/// checked, and renamed over it, so a crash at any moment leaves either the old file or the new
/// one whole. A file another process has open, or that did not open whole, is left as it is.
@MainActor
enum Compact {
    /// Compacts the file `arguments` names. Throws `ToolError`.
    static func run(_ arguments: CommandArguments) throws {
        let named = arguments.operands[0]
        _ = try DatabaseFile.openSnapshot(named)  // the errors a person can act on, for a file that cannot be opened
        var progress = ProgressLine()
        progress.show("compacting \(named)…")
        defer { progress.finish() }
        let url = URL(fileURLWithPath: named)
        let result: Realm.CompactionResult
        do {
            result = try Realm.compact(configuration: Realm.Configuration(fileURL: url))
        } catch {
            throw DatabaseFile.explain(error, named)
        }
        progress.finish()
        // Through a symbolic link, the file it points to was compacted: it is the one named.
        let path = result.fileURL.path == url.path ? named : result.fileURL.path
        print(
            "\(path): compacted from \(result.fileSizeBefore) to \(counted(result.fileSizeAfter, "byte")) (\(counted(result.entries, "entry")) in \(counted(result.trees, "tree")))."
        )
    }
}
