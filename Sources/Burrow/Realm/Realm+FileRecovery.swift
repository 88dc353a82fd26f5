import BurrowStorage
import BurrowStore

extension Realm {
    /// What opening the file did when it could not open the file's newest commit as it is.
    ///
    /// A newest commit whose pages are missing or damaged may be a commit that a crash or a
    /// power loss cut off before it was acknowledged, or damage to one that was. Burrow then
    /// opens the version that commit was built on, and never more than that one commit back,
    /// and says so here; any other damage is a thrown `RealmError` (`.corruptFile`). A meta page
    /// found damaged while the other is sound is reported too: it may have held a newer commit.
    ///
    /// The realm stays writable. The next commit builds on the version opened, after which the
    /// dropped commit cannot be recovered from this file: read `Realm.recovery` (it is there from
    /// open on) and decide before writing, for example by keeping a copy of the file.
    /// RealmSwift has no counterpart.
    public struct FileRecovery: Sendable, Equatable, CustomStringConvertible {
        /// Why the newest commit was not opened.
        public enum Reason: Sendable, Equatable {
            /// A page the newest commit wrote is missing or fails its checksum. `offset` is the
            /// page's first byte in the file.
            case damagedPage(page: UInt32, offset: Int)
            /// The file is `actualBytes` long, and the newest commit needs `expectedBytes`.
            case truncated(expectedBytes: Int, actualBytes: Int)
            /// Meta page `slot` (0 or 1, at byte `offset`) is damaged, or holds another version
            /// than the one the newest commit builds on (it was changed after it was written); if
            /// it held a newer commit than the one opened, that commit is lost.
            case damagedMeta(slot: Int, offset: Int)
        }

        /// The version that was dropped, or nil when the damaged meta page that would name it
        /// cannot be read.
        public let droppedVersion: UInt64?
        /// The version the realm opened at.
        public let openedVersion: UInt64
        public let reason: Reason
        /// A sentence for a person: what was dropped, why, and what was opened.
        public let description: String

        init(_ recovery: StorageRecovery) {
            droppedVersion = recovery.droppedVersion
            openedVersion = recovery.openedVersion
            description = recovery.description
            switch recovery.reason {
            case .damagedPage(let page, let offset, _): reason = .damagedPage(page: page, offset: offset)
            case .truncated(let expected, let actual): reason = .truncated(expectedBytes: expected, actualBytes: actual)
            case .damagedMeta(let slot, let offset, _): reason = .damagedMeta(slot: slot, offset: offset)
            }
        }
    }

    /// What opening the file did when it could not open its newest commit as it is (see
    /// `FileRecovery`), or nil when the file opened whole. The same for every realm of the file
    /// in this process, from the moment it was first opened; later commits do not clear it.
    /// Read it where the realm is isolated, like the realm's other properties; frozen realms
    /// report it too.
    public var recovery: FileRecovery? { storage.recovery.map(FileRecovery.init) }
}

extension RealmActor {
    /// What opening the file did when it could not open its newest commit as it is; see
    /// `Realm.recovery`.
    public var recovery: Realm.FileRecovery? { realm.recovery }
}
