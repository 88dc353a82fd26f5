import Burrow
import BurrowStorage

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
        let path = arguments.operands[0]
        _ = try Inspect.open(path)  // the errors a person can act on, for a file that cannot be opened
        var progress = ProgressLine()
        progress.show("compacting \(path)…")
        defer { progress.finish() }
        let storage = try Storage.open(path: path, options: StorageOptions(create: false))
        if let recovery = storage.recovery {
            // The compacted file replaces this one and keeps only the version opened: say so first.
            printError("burrow: \(path) did not open whole: \(recovery.description) Compacting keeps version \(recovery.openedVersion).")
        }
        let before = try storage.statistics()
        let snapshot = try storage.snapshot()
        let temporary = path + ".compacting"
        unlink(temporary)
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
            print("\(path): compacted from \(before.fileSize) to \(after.fileSize) bytes (\(report.entries) entries in \(report.trees) trees).")
        } catch {
            unlink(temporary)
            throw error
        }
        storage.close()
    }
}
