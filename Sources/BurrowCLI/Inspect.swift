import Burrow
import BurrowStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `burrow info`, `dump` and `verify`: read-only looks at a file.
enum Inspect {
    static func open(_ path: String) throws(StorageError) -> Snapshot {
        try Storage.open(path: path, options: StorageOptions(readOnly: true, create: false)).snapshot()
    }

    /// Prints what opening did when it fell back past the newest commit or found a meta page
    /// damaged; the command then exits with status 1. Returns whether there was such a report.
    static func printRecovery(of snapshot: Snapshot, path: String) -> Bool {
        guard let recovery = snapshot.storage.recovery else { return false }
        printError("burrow: \(path) did not open whole: \(recovery.description)")
        return true
    }

    static func info(path: String) throws(StorageError) {
        let snapshot = try open(path)
        let recovered = printRecovery(of: snapshot, path: path)
        let stats = try snapshot.storage.statistics()
        print("""
            file:          \(path)
            format:        \(Meta.formatVersion)
            version:       \(stats.version)
            page size:     \(stats.pageSize) bytes
            pages:         \(stats.pageCount) (\(stats.usedPages) in use, \(stats.freePages) free)
            file size:     \(stats.fileSize) bytes
            """)
        for name in try snapshot.treeNames() {
            let count = try snapshot.tree(named: name)?.count ?? 0
            print("tree \"\(name)\": \(count) entries")
        }
        if recovered { exit(1) }
    }

    static func dump(path: String) throws(StorageError) {
        let snapshot = try open(path)
        for name in try snapshot.treeNames() {
            guard let tree = try snapshot.tree(named: name) else { continue }
            print("tree \"\(name)\" (\(tree.count) entries)")
            var cursor = tree.makeCursor()
            var more = try cursor.first()
            while more {
                print("  \(hex(cursor.key)) = \(hex(try cursor.value()))")
                more = try cursor.next()
            }
        }
    }

    static func verify(path: String) throws {
        let snapshot = try open(path)
        let recovered = printRecovery(of: snapshot, path: path)
        let report = try snapshot.verify()
        let objects = try ObjectVerifier.verify(snapshot)
        guard objects.isSound else {
            print("\(path): damaged objects in version \(objects.version):")
            for finding in objects.findings { print("  \(finding)") }
            if objects.unlistedFindings > 0 { print("  … and \(objects.unlistedFindings) more") }
            exit(1)
        }
        let counts = "\(report.trees) trees, \(report.entries) entries, \(report.reachablePages) pages in use, \(report.freePages) free of \(report.pageCount)"
        guard !recovered else {
            print("\(path): not sound: it did not open whole (above). Version \(report.version), the one it opened, is consistent: \(counts).")
            exit(1)
        }
        print("\(path): sound. Version \(report.version), \(counts).")
    }

    static func hex(_ bytes: UnsafeRawBufferPointer, limit: Int = 64) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes.prefix(limit) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return bytes.count > limit ? text + "… (\(bytes.count) bytes)" : text
    }
}
