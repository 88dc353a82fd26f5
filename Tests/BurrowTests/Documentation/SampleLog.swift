import Burrow
import BurrowTestSupport
import Foundation

/// Lines written by a change stream's consumer or a migration block, read by the test.
final class SampleLog: Sendable {
    private let entries = LockedBox<[String]>([])

    func appendLine(_ line: String) { entries.withLock { $0.append(line) } }

    func append<T>(_ change: RealmCollectionChange<FrozenResults<T>>) {
        switch change {
        case .initial(let results): appendLine("initial \(results.count)")
        case .update(let results, let deletions, let insertions, let modifications):
            appendLine("update \(results.count) \(deletions) \(insertions) \(modifications)")
        case .error(let error): appendLine("error \(error)")
        }
    }

    var lines: [String] { entries.value }

    var count: Int { lines.count }
}
