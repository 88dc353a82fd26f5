/// What opening a file did when it could not take the file's newest meta as it is: the one
/// commit it fell back past, or the meta page it found damaged. `Storage.recovery` keeps it from
/// open on, so that the app (and `burrow verify`) can tell before the next commit makes the loss
/// permanent.
///
/// The rule (Architecture.md, "What a damaged file does"): opening may fall back past at most the
/// newest meta's commit, the versions after the one that meta's `listBase` names, and only when
/// the other meta holds exactly that version. A newest meta that opens whole beside a meta of
/// another version than the one it builds on is reported as a damaged meta page. Anything else
/// is a thrown `StorageError`.
package struct StorageRecovery: Sendable, Equatable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        /// A page the newest meta lists is not as its commit wrote it. `offset` is the page's
        /// first byte in the file.
        case damagedPage(page: PageNumber, offset: Int, detail: String)
        /// The file ends before the newest version's last page.
        case truncated(expectedBytes: Int, actualBytes: Int)
        /// A meta page fails its checks, or holds another version than the one the newest meta
        /// builds on (it was changed after it was written). It may have held a version newer than
        /// the one opened (then that version is lost), or an older one (then nothing is).
        case damagedMeta(slot: Int, offset: Int, detail: String)
    }

    /// The version that was not opened, or nil when the meta that would name it is unreadable,
    /// or (with `damagedPage`) when no version opened whole and a salvage opened the newest as it
    /// is (`StorageOptions.salvaging`).
    package var droppedVersion: UInt64?
    /// The version the file opened at.
    package var openedVersion: UInt64
    package var reason: Reason

    package var description: String {
        switch reason {
        case .damagedPage(let page, let offset, let detail) where droppedVersion == nil:
            return
                "no version opens whole: page \(page) at byte offset \(offset), which the newest commit (version \(openedVersion)) wrote, \(detail), and opening has no older version it may fall back to. Opened version \(openedVersion) as it is, to read what its sound pages hold."
        case .damagedPage(let page, let offset, let detail):
            return
                "the newest commit (version \(droppedVersion.map(String.init) ?? "?")) was dropped: page \(page) at byte offset \(offset), which it wrote, \(detail). Opened version \(openedVersion), which it was built on."
        case .truncated(let expected, let actual):
            return
                "the newest commit (version \(droppedVersion.map(String.init) ?? "?")) was dropped: the file is truncated to \(counted(actual, "byte")), and that version needs \(expected). Opened version \(openedVersion), which it was built on."
        case .damagedMeta(let slot, let offset, let detail):
            return
                "\(detail) (byte offset \(offset)). Opened version \(openedVersion) from meta page \(1 - slot); if meta page \(slot) held a newer commit, that commit is lost."
        }
    }
}
