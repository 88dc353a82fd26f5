#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Storage {
    /// Which of the files an open of `path` may make were there before it began, so that an
    /// open that fails removes what it made, and nothing else: a refused file (empty, cut
    /// short, not Burrow's, of a newer format) is left with nothing new beside it.
    struct FilesBeforeOpen {
        let path: String
        let database: Bool
        let lockFile: Bool
        let slotsFile: Bool

        /// What is beside `path` now; an open for exclusive use (`sharing`) makes no lock file,
        /// so none counts as its own.
        init(path: String, sharing: FileSharing) {
            self.path = path
            let lockPath = path + ".lock"
            database = Self.exists(path)
            lockFile = sharing == .exclusive || Self.exists(lockPath)
            slotsFile = sharing == .exclusive || Self.exists(LockFileSlots.extensionPath(lockPath))
        }

        private static func exists(_ path: String) -> Bool {
            path.withCString { access($0, F_OK) } == 0
        }

        /// Called once an open of `path` failed and let go of everything it opened: removes the
        /// lock file if the open made it (with its slots file, if that is new too), and the
        /// database file if the open made it and it holds no commit. Only while no process has
        /// the database open (an exclusive lock on it, taken without waiting): a process that
        /// shares the file holds a shared lock on it from before it opens the lock file, so a
        /// lock file another opener uses (it may have opened the one this open made) is never
        /// removed. A slots file made beside a lock file that was there before stays: that lock
        /// file counts its slots, and without the file they could not be read, so that every
        /// later process would take them for a live process's (pinning every version).
        func removeWhatFailedOpenMade() {
            let lockPath = path + ".lock"
            let made = lockFile ? [] : [lockPath] + (slotsFile ? [] : [LockFileSlots.extensionPath(lockPath)])
            guard !made.isEmpty || !database, Self.exists(path) else { return }
            guard let device = try? FileDevice(path: path, readOnly: true, create: false, sharing: .exclusive) else { return }
            defer { device.close() }
            for name in made { _ = name.withCString { unlink($0) } }
            if !database, Self.holdsNoCommit(device) { _ = path.withCString { unlink($0) } }
        }

        /// Whether the file on `device` is empty, left by a creation that was interrupted, or
        /// holds only the first version a creation writes.
        private static func holdsNoCommit(_ device: FileDevice) -> Bool {
            do {
                guard let opened = try Storage.readNewestMeta(device: device) else { return true }
                return opened.meta.version == 0
            } catch {
                return false
            }
        }
    }
}
