import Burrow
import Foundation

/// Lines written by a change stream's consumer or a migration block, read by the test.
final class SampleLog: @unchecked Sendable {
    // Every access to `entries` holds `lock`.
    private let lock = NSLock()
    private var entries: [String] = []

    func appendLine(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        entries.append(line)
    }

    func append<T>(_ change: RealmCollectionChange<FrozenResults<T>>) {
        switch change {
        case .initial(let results): appendLine("initial \(results.count)")
        case .update(let results, let deletions, let insertions, let modifications):
            appendLine("update \(results.count) \(deletions) \(insertions) \(modifications)")
        case .error(let error): appendLine("error \(error)")
        }
    }

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    var count: Int { lines.count }
}
