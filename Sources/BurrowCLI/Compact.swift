import Burrow
import BurrowStorage
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `burrow compact <file>`: rewrites a file with every tree packed into as few pages as it
/// needs, reclaiming the space that old versions (a frozen snapshot kept long, a large delete)
/// left free. The copy is written beside the file, checked, and renamed over it, so a crash at
/// any moment leaves either the old file or the new one whole.
@MainActor
enum Compact {
    /// Compacts the file `arguments` names. Throws `ToolError` or `StorageError`.
    static func run(_ arguments: CommandArguments) throws {
        let named = arguments.operands[0]
        _ = try DatabaseFile.openSnapshot(named)  // the errors a person can act on, for a file that cannot be opened
        // Through a symbolic link, the file it points to is compacted (its copy written beside
        // it and renamed over it), and the link stays a link: renaming over the name given
        // would replace the link with a file of its own, and leave the file an app opens as it was.
        let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: named)) != nil
        let path = isLink ? URL(fileURLWithPath: named).resolvingSymlinksInPath().path : named
        var progress = ProgressLine()
        progress.show("compacting \(path)…")
        defer { progress.finish() }
        let storage = try Storage.open(path: path, options: StorageOptions(create: false))
        defer { storage.close() }
        if let recovery = storage.recovery {
            // The compacted file would replace this one with only the version opened.
            throw DatabaseFile.notWhole(path, recovery.description, "Compacting it")
        }
        let before = try storage.statistics()
        let snapshot = try storage.snapshot()
        let temporary = path + ".compacting"
        guard access(temporary, F_OK) != 0 else {
            // Never removed here: it may be a file of the user's, not a copy left by a compact
            // that stopped part-way (which leaves the file itself whole).
            throw ToolError(
                message:
                    "\(temporary) is in the way: compact writes its copy there. The file itself is whole; move that one away (or remove it, if a compact that stopped left it) and run compact again."
            )
        }
        do throws(StorageError) {
            try snapshot.copy(toPath: temporary)
            progress.show("compacting \(path): verifying the copy…")
            let copy = try Storage.open(path: temporary, options: StorageOptions(readOnly: true, create: false))
            let report = try copy.snapshot().verify()
            let after = try copy.statistics()
            copy.close()
            guard rename(temporary, path) == 0 else {
                throw StorageError.io(path: path, operation: "rename", errno: errno)
            }
            FileDevice.syncDirectory(of: path)
            progress.finish()
            print(
                "\(path): compacted from \(before.fileSize) to \(counted(after.fileSize, "byte")) (\(counted(report.entries, "entry")) in \(counted(report.trees, "tree")))."
            )
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
