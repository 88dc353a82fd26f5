import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How hard a commit works to survive failures.
package enum Durability: Sendable, Equatable {
    /// The commit survives power loss: `commit` returns once it is durable. A commit whose
    /// written pages fit the meta's list costs one sync; a larger one two (pages, then meta).
    /// Commits waiting together share their sync (see `commitPendingSync` and
    /// `waitUntilDurable`).
    case full
    /// The commit survives a crash of the process but not of the machine: nothing is synced.
    case normal
}

/// How to open a database.
package struct StorageOptions: Sendable {
    /// The page size of a newly created file (a power of two from 4096 to 32768); an existing
    /// file keeps the size it was created with.
    package var pageSize: Int
    /// Refuse writes, and never create the file.
    package var readOnly: Bool
    /// Create the file if it does not exist.
    package var create: Bool
    /// Whether other processes may open the file at the same time (see `FileSharing`).
    package var sharing: FileSharing
    /// Read-only: when no version opens whole because pages its commit wrote are damaged, open
    /// the newest version as it is (`StorageRecovery` says which page), so that a salvage can
    /// read what its sound pages hold. Every page a salvage reads is checked as it is read.
    package var salvaging: Bool

    package init(
        pageSize: Int = 4096, readOnly: Bool = false, create: Bool = true, sharing: FileSharing = .exclusive, salvaging: Bool = false
    ) {
        self.pageSize = pageSize
        self.readOnly = readOnly
        self.create = create
        self.sharing = sharing
        self.salvaging = salvaging && readOnly
    }
}

/// Counts that describe a database at its latest version.
package struct StorageStatistics: Sendable, Equatable {
    package var version: UInt64
    package var pageSize: Int
    /// Pages the latest version accounts for, both meta pages included.
    package var pageCount: Int
    /// Pages listed as free (reusable once no snapshot needs them).
    package var freePages: Int
    /// Pages reachable from the latest version, meta pages included.
    package var usedPages: Int
    /// Distinct versions held by live snapshots (each keeps its pages from being reused).
    package var pinnedVersions: Int
    package var oldestPinnedVersion: UInt64?
    /// The file's length in bytes; it may exceed `pageCount * pageSize` after an interrupted commit.
    package var fileSize: Int
}

/// An open database: one per file per process, shared by every opener in the process.
///
/// Readers take `Snapshot`s, which never wait; writers take turns through `beginWrite`.
///
/// State: `shared` holds the latest committed meta and the mapping new snapshots use, the count
/// of snapshots per pinned version, and whether the handle has failed or been closed. The
/// device is written only by the holder of `writeLock`.
package final class Storage: Sendable {
    package let name: String
    package let isReadOnly: Bool
    /// What opening reported when it could not take the file's newest meta as it is (it fell
    /// back past the newest commit, or found a meta page damaged), or nil. Set once, at open;
    /// commits made since do not clear it.
    package let recovery: StorageRecovery?
    let device: any StorageDevice
    let layout: PageLayout
    let writeLock = WriteLock()
    /// Buffers for dirty pages and meta pages, reused from commit to commit.
    let pageBuffers: PageBufferStash
    let shared: Locked<SharedState>
    /// Which versions are durable, which meta sits where, the pages written since the last
    /// durable version, and who waits for a sync (Storage+GroupCommit.swift). Lock order: this
    /// one, then `shared`.
    let commitState: Locked<CommitState>
    /// Who holds the write lock, as the layer above names its callers (a task or a thread; 0
    /// for nobody or unknown): set and read by that layer alone, so that a caller about to wait
    /// for a lock it holds itself can throw instead of waiting forever.
    package let writerToken = Atomic<Int>(0)
    /// Whether `commitState.droppedMetaCover` is still to be written: read without the lock by
    /// every commit, so that a handle that did not fall back pays one atomic load for it. Set
    /// at open and cleared under `commitState`'s lock together with `droppedMetaCover`, so it
    /// is true whenever the cover is still to be written.
    let droppedMetaPending: Atomic<Bool>
    /// Where sync rounds run for async waiters, so that no cooperative thread blocks in fsync.
    let syncQueue: DispatchQueue
    /// The lock file the processes sharing the file coordinate through; nil in exclusive use.
    let lockFile: LockFile?
    /// Where the writer lock is tried again for an async writer waiting for another process's
    /// writer (`beginTransactionTurn`); nil in exclusive use.
    let fileLockQueue: DispatchQueue?
    /// Work sent to a queue that has yet to run or end (`inBackground`).
    let backgroundWork = Atomic<Int>(0)
    /// The async writer of this process waiting for another process's writer, if any (at most
    /// one: the process's transactions take turns before they wait for the file).
    let fileLockWaiter = Locked<CheckedContinuation<Void, Never>?>(nil)
    /// Whether other processes may have the file open.
    package var sharing: FileSharing { lockFile == nil ? .exclusive : .shared }
    /// Sharing the file: who is told of other processes' commits, and the versions they
    /// committed that this handle read but did not report yet.
    let otherCommits = Locked<(observer: (@Sendable (ClosedRange<UInt64>) -> Void)?, pending: ClosedRange<UInt64>?)>((nil, nil))

    struct SharedState {
        var meta: Meta
        var mapping: Mapping
        var pins = PinnedVersions()
        /// The `handleFailed` error of a handle that failed (see `fail`).
        var failure: StorageError?
        var isClosed = false
        /// Whether the device (and the file lock) has been released.
        var isDeviceClosed = false
        /// Sync rounds under way: the device must stay open for them.
        var activeRounds = 0

        /// Closed or failed, with no snapshot left that could read pages a new handle might
        /// reuse: the moment to release the device and its lock.
        mutating func shouldCloseDevice() -> Bool {
            guard isClosed || failure != nil, pins.isEmpty, activeRounds == 0, !isDeviceClosed else { return false }
            isDeviceClosed = true
            return true
        }
    }

    package var pageSize: Int { layout.pageSize }
    /// The longest key a tree accepts.
    package var maxKeySize: Int { layout.maxKeySize }

    // MARK: Opening

    /// Opens the database file at `path`, creating it if `options` allow. Opening the same file
    /// twice in one process returns the same handle.
    ///
    /// Throws `StorageError` when the file is locked by another process, is not a Burrow file,
    /// uses a newer format, is truncated, or has no valid meta page. An open that throws leaves
    /// no file it made beside the file (`FilesBeforeOpen`).
    package static func open(path: String, options: StorageOptions = StorageOptions()) throws(StorageError) -> Storage {
        guard PageLayout.isValidPageSize(options.pageSize) else {
            throw .invalidOption("The page size must be a power of two from 4096 to 32768, not \(options.pageSize).")
        }
        return try Registry.shared.open(key: { Registry.fileKey(path: path) }, readOnly: options.readOnly, sharing: options.sharing) {
            () throws(StorageError) -> Storage in
            let before = FilesBeforeOpen(path: path, sharing: options.sharing)
            do throws(StorageError) {
                return try openFile(path: path, options: options, existed: before.database)
            } catch {
                before.removeWhatFailedOpenMade()
                throw error
            }
        } registerAs: {
            Registry.fileKey(path: path)
        }
    }

    /// Opens the database file at `path` for `open`, which registers it. Whatever it opened is
    /// let go of when it throws.
    private static func openFile(path: String, options: StorageOptions, existed: Bool) throws(StorageError) -> Storage {
        let created = !existed && options.create && !options.readOnly && Self.createFile(path: path, pageSize: options.pageSize)
        let device = try FileDevice(path: path, readOnly: options.readOnly, create: options.create, sharing: options.sharing)
        // No lock file is made beside a file that is not Burrow's.
        if options.sharing == .shared, try !Self.mayBeDatabase(device) { throw .notADatabase(path: path) }
        let lockFile = options.sharing == .shared ? try Self.lockFile(path: path, readOnly: options.readOnly) : nil
        let storage = try Storage(device: device, options: options, lockFile: lockFile, created: created)
        if !existed && !options.readOnly { FileDevice.syncDirectory(of: path) }
        return storage
    }

    /// Opens (or creates) the in-memory database called `identifier`. It lives while any handle
    /// or snapshot of it does.
    /// Deletes the database file at `path`, which no handle may have open. Returns false if
    /// there was no file.
    package static func deleteFile(path: String) throws(StorageError) -> Bool {
        try Registry.shared.deleteFile(path: path)
    }

    /// The handle this process has open on the file at `path`, if any.
    package static func openHandle(path: String) -> Storage? {
        Registry.shared.openHandle(path: path)
    }

    package static func inMemory(identifier: String, options: StorageOptions = StorageOptions()) throws(StorageError) -> Storage {
        try Registry.shared.open(key: { .memory(identifier) }, readOnly: options.readOnly, sharing: .exclusive) {
            () throws(StorageError) -> Storage in
            try Storage(device: MemoryDevice(name: MemoryDevice.namePrefix + "\"\(identifier)\""), options: options)
        } registerAs: {
            .memory(identifier)
        }
    }

    /// Opens a database on any device. Tests use this to run the engine on a simulated disk.
    package convenience init(device: any StorageDevice, options: StorageOptions = StorageOptions()) throws(StorageError) {
        try self.init(device: device, options: options, lockFile: nil)
    }

    /// Opens a database on `device`, shared with other processes through `lockFile` if given.
    /// `created`: this opener has just made the file, its first version synced
    /// (`createFile`).
    init(device: any StorageDevice, options: StorageOptions, lockFile: LockFile?, created: Bool = false) throws(StorageError) {
        self.device = device
        self.lockFile = lockFile
        fileLockQueue = lockFile.map { _ in DispatchQueue(label: "burrow.writer \(device.name)") }
        name = device.name
        isReadOnly = options.readOnly
        var (opened, writerTurn) = try Self.readOrCreate(device: device, options: options, lockFile: lockFile)
        // The first version of a file this opener made is synced (no other opener writes it again).
        if created, opened.meta.version == 0, opened.recovery == nil { opened.isKnownDurable = true }
        let current = opened.meta
        layout = PageLayout(pageSize: current.pageSize)
        pageBuffers = PageBufferStash(pageSize: current.pageSize)
        let region = try device.map(minimumLength: Int(current.pageCount) * current.pageSize)
        shared = Locked(SharedState(meta: current, mapping: Mapping(region: region, pageSize: current.pageSize)))
        var commit = CommitState(opened: opened)
        commit.lastWriterTurn = writerTurn
        commitState = Locked(commit)
        droppedMetaPending = Atomic(opened.fellBack)
        recovery = opened.recovery
        syncQueue = DispatchQueue(label: "burrow.sync \(device.name)")
        lockFile?.listen { [weak self] in self?.otherProcessWoke() }
    }

    deinit { device.close() }

    /// The lock file of the shared database at `path`. A read-only opener that may not make or
    /// write it (a file on read-only media, such as one shipped inside an app) reads without
    /// one: nobody can write such a file, so no page it reads can be reused under it. The
    /// shared lock it holds on the database still keeps out a process that wants it alone.
    private static func lockFile(path: String, readOnly: Bool) throws(StorageError) -> LockFile? {
        do {
            return try LockFile(databasePath: path)
        } catch .io(_, _, let code) where readOnly && (code == EACCES || code == EROFS || code == EPERM) {
            return nil
        }
    }

    /// Whether the file on `device` is empty, starts with a Burrow meta page's magic, or starts
    /// with zeros (a creation that was interrupted): what opening may take for a database.
    private static func mayBeDatabase(_ device: any StorageDevice) throws(StorageError) -> Bool {
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 8)
        defer { head.deallocate() }
        let read = try device.read(into: head, at: 0)
        if read == 0 { return true }
        let bytes = UnsafeRawBufferPointer(rebasing: head[..<read])
        if bytes.allSatisfy({ $0 == 0 }) { return true }
        guard read == 16 else { return false }
        return bytes[8..<16].elementsEqual(Meta.magic.prefix(8))
    }

    /// The newest meta of the file on `device`, making the file first if it is empty (or its
    /// creation was interrupted).
    ///
    /// Sharing the file (`lockFile`), the metas are read without the writer lock, so that
    /// opening never waits for another process's transaction; a read that finds anything
    /// amiss (a meta that another process may be writing at that moment reads torn) is made
    /// again under the writer lock, where no meta is being written, and so is the making of a
    /// new file. Also returns the writer lock's turn when the read was made under it: until
    /// another turn, the read is still the file (see `adoptFileForNewTurn`); otherwise nil.
    private static func readOrCreate(
        device: any StorageDevice, options: StorageOptions, lockFile: LockFile?
    ) throws(StorageError) -> (OpenedMeta, writerTurn: UInt64?) {
        if let lockFile, try device.size() > 0, let opened = try? readNewestMeta(device: device), opened.recovery == nil {
            // Alone with the file, the lock file may be left from another file of this name.
            if lockFile.tryLockWriter() {
                lockFile.startOverIfAlone(fileVersion: opened.meta.version)
                lockFile.unlockWriter()
            }
            return (opened, nil)
        }
        try lockFile?.lockWriter()
        defer { lockFile?.unlockWriter() }
        var opened = try readNewestMeta(device: device, salvaging: options.salvaging && options.readOnly)
        if opened == nil {
            // An empty file, or one whose creation was interrupted: (re)create it.
            guard !options.readOnly else { throw .notADatabase(path: device.name) }
            let meta = try initialize(device: device, pageSize: options.pageSize)
            opened = OpenedMeta(meta: meta, slot: 0, olderVersion: 0, isKnownDurable: true, recovery: nil)
        }
        lockFile?.startOverIfAlone(fileVersion: opened!.meta.version)
        return (opened!, lockFile?.writerTurns)
    }

    /// Makes a new database file at `path`, whole: its first version is written and synced
    /// under a temporary name beside it, then linked to `path`. A process opening the path
    /// meanwhile (another app process, or the `burrow` tool) finds no file or a whole one, never
    /// an empty file it would take for something that is not a database. If another process
    /// made the file first, its file is kept.
    ///
    /// Where this cannot be done (a file system without hard links, a name too long for the
    /// suffix, a directory this process may not write), nothing is made here: opening creates
    /// the file in place, under the writer lock, and says what stops it. Returns whether this
    /// call made the file.
    private static func createFile(path: String, pageSize: Int) -> Bool {
        let temporary = "\(path).new-\(getpid())"
        _ = temporary.withCString { unlink($0) }
        defer { _ = temporary.withCString { unlink($0) } }
        do {
            let device = try FileDevice(path: temporary, readOnly: false, create: true)
            defer { device.close() }
            _ = try initialize(device: device, pageSize: pageSize)
        } catch {
            return false
        }
        return link(temporary, path) == 0
    }

    /// Writes the first version of a new file: both meta slots, so either can stand alone.
    private static func initialize(device: any StorageDevice, pageSize: Int) throws(StorageError) -> Meta {
        let meta = Meta.initial(pageSize: pageSize)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 2 * pageSize, alignment: 4096)
        defer { buffer.deallocate() }
        meta.encode(into: buffer, slot: 0)
        meta.encode(into: buffer + pageSize, slot: 1)
        try device.write([(0, UnsafeRawBufferPointer(start: buffer, count: 2 * pageSize))])
        try device.sync()
        return meta
    }

    /// The meta opening chose, and what is known of its durability.
    struct OpenedMeta {
        var meta: Meta
        var slot: Int
        /// The other slot's version if it holds a valid older meta, else this meta's version.
        var olderVersion: UInt64
        /// Whether this meta is known to be synced (true only for a file just created).
        var isKnownDurable: Bool
        /// What opening reported, if it could not take the newest meta as it is.
        var recovery: StorageRecovery?
        /// Whether opening fell back past the newest meta, which then still lies in the other
        /// slot (the pending one): the first commit writes `meta` over it before anything else.
        var fellBack = false
    }

    /// The meta to open, or nil for a device with nothing to lose: empty, or left by a creation
    /// that was interrupted. The newest valid meta is taken if the file covers its page count and
    /// every page it lists is intact; otherwise the other meta only if it holds exactly the
    /// version the newest one builds on (its `listBase`), with a `StorageRecovery` that says so.
    /// A newest meta taken beside a damaged meta, or beside a meta of another version than the
    /// one it builds on (`unexpectedPartner`), comes with a report too. Anything else throws. Reads two pages plus the pages the two metas list, whatever the
    /// file's size.
    /// `salvaging`: see `StorageOptions.salvaging`.
    static func readNewestMeta(device: any StorageDevice, salvaging: Bool = false) throws(StorageError) -> OpenedMeta? {
        let size = try device.size()
        if size == 0 { return nil }
        do {
            return try readNewestMeta(device: device, size: size, salvaging: salvaging)
        } catch {
            if try isInterruptedCreation(device: device, size: size) { return nil }
            throw error
        }
    }

    /// Whether the file is what an interrupted creation leaves: shorter than three pages of the
    /// largest size, every meta slot either still zero or a (possibly torn) meta of the empty
    /// version 0 with two pages. A database that ever committed has a meta of a later version in
    /// one of its slots, so it never matches, truncated or not; nor does anyone else's file.
    /// Creating such a file again loses nothing.
    private static func isInterruptedCreation(device: any StorageDevice, size: Int) throws(StorageError) -> Bool {
        guard size < 3 * PageLayout.maximumPageSize else { return false }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        let read = try device.read(into: buffer, at: 0)
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<read])
        var slotStart = 0
        while slotStart < read {
            let head = bytes[slotStart..<min(read, slotStart + 40)]
            if !head.allSatisfy({ $0 == 0 }) {
                let field = { (offset: Int, length: Int) -> ArraySlice<UInt8>? in
                    slotStart + offset + length <= read ? ArraySlice(bytes[(slotStart + offset)..<(slotStart + offset + length)]) : nil
                }
                let magic = bytes[min(read, slotStart + 8)..<min(read, slotStart + 16)]
                guard !magic.isEmpty, magic.elementsEqual(Meta.magic.prefix(magic.count)) else { return false }
                if let version = field(24, 8), !version.allSatisfy({ $0 == 0 }) { return false }
                if let pageCount = field(32, 4), !pageCount.elementsEqual([2, 0, 0, 0]) { return false }
            }
            slotStart = slotStart == 0 ? PageLayout.minimumPageSize : slotStart * 2
        }
        return true
    }

    private static func readNewestMeta(device: any StorageDevice, size: Int, salvaging: Bool) throws(StorageError) -> OpenedMeta? {
        let bufferSize = min(size, 2 * PageLayout.maximumPageSize)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 4096)
        defer { buffer.deallocate() }
        let read = try device.read(into: buffer, at: 0)
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<read])

        var readings = [Meta.read(bytes, slot: 0)]
        var slot1Offsets: [Int] = []
        if case .valid(let meta, _) = readings[0] {
            slot1Offsets = [meta.pageSize]
        } else {
            var size = PageLayout.minimumPageSize
            while size <= PageLayout.maximumPageSize {
                slot1Offsets.append(size)
                size *= 2
            }
        }
        for offset in slot1Offsets where offset < bytes.count {
            readings.append(Meta.read(UnsafeRawBufferPointer(rebasing: bytes[offset...]), slot: 1))
        }

        var valid: [MetaCandidate] = []
        var problems: [String] = []
        var slotProblems: [Int: String] = [:]
        for (index, reading) in readings.enumerated() {
            let slot = min(index, 1)
            switch reading {
            case .valid(let meta, let written):
                // Slot 1 is tried at several offsets only when slot 0 gave no page size; keep one.
                if !valid.contains(where: { $0.slot == slot }) { valid.append(MetaCandidate(meta: meta, written: written, slot: slot)) }
            case .otherFormat(let version):
                throw .unsupportedFormat(path: device.name, version: version, supported: Meta.formatVersion)
            case .damaged(let detail):
                problems.append(detail)
                if slotProblems[slot] == nil { slotProblems[slot] = detail }
            case .foreign:
                if slotProblems[slot] == nil { slotProblems[slot] = "meta page \(slot) holds no Burrow meta header" }
            }
        }
        valid.sort { $0.meta.version > $1.meta.version }
        guard let newest = valid.first else {
            if problems.isEmpty { throw .notADatabase(path: device.name) }
            throw .damagedMeta(path: device.name, detail: problems.joined(separator: "; "))
        }
        let other = valid.count > 1 ? valid[1] : nil
        let pageSize = newest.meta.pageSize
        guard let problem = try unreadablePart(of: newest, device: device, size: size) else {
            // The newest meta holds. A damaged other meta is reported all the same: it may have
            // held a newer commit, torn or damaged since.
            // So is another meta than the one a crash or a power loss leaves beside it: the
            // newest commit's meta may have been written over by an older copy.
            var recovery: StorageRecovery?
            if let other {
                if let detail = unexpectedPartner(of: newest, other: other) {
                    recovery = StorageRecovery(
                        droppedVersion: nil, openedVersion: newest.meta.version,
                        reason: .damagedMeta(slot: other.slot, offset: other.slot * pageSize, detail: detail))
                }
            } else {
                let slot = 1 - newest.slot
                recovery = StorageRecovery(
                    droppedVersion: nil, openedVersion: newest.meta.version,
                    reason: .damagedMeta(
                        slot: slot, offset: slot * pageSize,
                        detail: slotProblems[slot] ?? "meta page \(slot) is missing (the file has \(counted(size, "byte")))"))
            }
            return OpenedMeta(
                meta: newest.meta, slot: newest.slot, olderVersion: other?.meta.version ?? newest.meta.version,
                isKnownDurable: false, recovery: recovery)
        }
        // The newest meta's commit cannot be read whole. Fall back past it only to the version it
        // builds on: the other meta must hold exactly the version its list starts after. (A
        // commit cut off by a crash or a power loss leaves exactly that; anything else is damage
        // to more than the newest commit.)
        // For a salvage, the newest version as it is, when its pages all lie inside the file.
        let asIs = OpenedMeta(
            meta: newest.meta, slot: newest.slot, olderVersion: other?.meta.version ?? newest.meta.version, isKnownDurable: false,
            recovery: StorageRecovery(droppedVersion: nil, openedVersion: newest.meta.version, reason: problem.reason(pageSize: pageSize)))
        let salvageable = salvaging && size >= Int(newest.meta.pageCount) * pageSize
        guard let other, other.meta.version < newest.meta.version, other.meta.version == newest.written.base else {
            if salvageable { return asIs }
            throw problem.error(path: device.name, meta: newest, why: UnreadablePart.noFallback(newest: newest, other: other))
        }
        if let otherProblem = try unreadablePart(of: other, device: device, size: size) {
            if salvageable { return asIs }
            let why = "version \(other.meta.version) before it cannot be opened either"
            if case .truncated = problem { throw problem.error(path: device.name, meta: newest, why: why) }
            throw otherProblem.error(
                path: device.name, meta: other,
                why: "the newest commit (version \(newest.meta.version)) cannot be opened either, so there is nothing to fall back to")
        }
        return OpenedMeta(
            meta: other.meta, slot: other.slot, olderVersion: other.meta.version, isKnownDurable: false,
            recovery: StorageRecovery(
                droppedVersion: newest.meta.version, openedVersion: other.meta.version, reason: problem.reason(pageSize: pageSize)),
            fellBack: true)
    }

    // MARK: Reading

    /// A read-only view of the latest committed version. It never waits for a writer and stays
    /// on its version however many commits follow; its pages are not reused while it lives.
    package func snapshot() throws(StorageError) -> Snapshot {
        guard let lockFile else {
            let (meta, mapping) = try shared.withLock { s throws(StorageError) in try s.pinLatest(name: name) }
            return Snapshot(storage: self, meta: meta, mapping: mapping)
        }
        // The pin is published before the version is used, and the version taken again if a
        // newer one appeared meanwhile (see Storage+Sharing.swift).
        while true {
            let pinned = try shared.withLock { s throws(StorageError) -> (Meta, Mapping)? in
                guard lockFile.latestVersion <= s.meta.version else { return nil }
                let pinned = try s.pinLatest(name: name)
                publishPins(s)
                return pinned
            }
            guard let (meta, mapping) = pinned else {
                // Read the newer version; if it cannot be read (yet), pin the one known.
                if try !adoptNewerVersion(lockFile) { return try pinKnownVersion() }
                continue
            }
            if lockFile.latestVersion <= meta.version { return Snapshot(storage: self, meta: meta, mapping: mapping) }
            unpin(meta.version)
        }
    }

    /// A snapshot of the latest version this handle knows, its pin published.
    private func pinKnownVersion() throws(StorageError) -> Snapshot {
        let (meta, mapping) = try shared.withLock { s throws(StorageError) in
            let pinned = try s.pinLatest(name: name)
            publishPins(s)
            return pinned
        }
        return Snapshot(storage: self, meta: meta, mapping: mapping)
    }

    func unpin(_ version: UInt64) {
        let closeDevice = shared.withLock { s in
            s.pins.unpin(version)
            publishPins(s)
            return s.shouldCloseDevice()
        }
        if closeDevice { device.close() }
    }

    /// The latest committed (published) version; it may not be durable yet (see
    /// `waitUntilDurable`).
    package var version: UInt64 {
        // Another process's newer version is read if its meta reads whole; otherwise the
        // version known stays (a later call reads it).
        if let lockFile { _ = try? adoptNewerVersion(lockFile) }
        return shared.withLock { $0.meta.version }
    }

    /// How many versions snapshots of this handle pin now (a closed handle's too).
    package var pinnedVersionCount: Int { shared.withLock { $0.pins.count } }

    package func statistics() throws(StorageError) -> StorageStatistics {
        try checkUsable()
        let fileSize = try device.size()
        return shared.withLock { s in
            StorageStatistics(
                version: s.meta.version, pageSize: s.meta.pageSize, pageCount: Int(s.meta.pageCount),
                freePages: Int(s.meta.freePageCount), usedPages: Int(s.meta.pageCount) - Int(s.meta.freePageCount),
                pinnedVersions: s.pins.count, oldestPinnedVersion: s.pins.oldest, fileSize: fileSize)
        }
    }

    // MARK: Writing

    /// How many transactions of this process wait for the file's write lock now (read-only, for
    /// tests that must see a writer queued before they go on).
    package var writeLockWaiterCount: Int { writeLock.waiterCount }

    /// Waits, without blocking a thread, until this task may write, then starts a transaction.
    /// Throws `CancellationError` if the task is cancelled while waiting (nothing is held then),
    /// or `StorageError` if the handle is read-only, closed or failed. Runs on the caller's
    /// executor (`isolation`): the transaction belongs to the caller, and no hop is made.
    package func beginWrite(isolation: isolated (any Actor)? = #isolation) async throws -> WriteTransaction {
        try await writeLock.acquire()
        do {
            try await beginTransactionTurn()
        } catch {
            writeLock.release()
            throw error
        }
        return try startTransaction()
    }

    /// Blocks the calling thread until it may write, then starts a transaction.
    package func beginWriteBlocking() throws(StorageError) -> WriteTransaction {
        writeLock.acquireBlocking()
        do {
            try beginTransactionTurnBlocking()
        } catch {
            writeLock.release()
            throw error
        }
        return try startTransaction()
    }

    private func startTransaction() throws(StorageError) -> WriteTransaction {
        do throws(StorageError) {
            if isReadOnly { throw .readOnly(path: name) }
            // The base snapshot and the oldest pinned version, under one lock.
            let (meta, mapping, oldestPin) = try shared.withLock { s throws(StorageError) in
                let (meta, mapping) = try s.pinLatest(name: name)
                return (meta, mapping, s.pins.oldest ?? meta.version)
            }
            let base = Snapshot(storage: self, meta: meta, mapping: mapping)
            // Sharing the file, readers of other processes pin versions too.
            let oldest = min(oldestPin, base.meta.version, oldestPinOfOtherProcesses ?? .max)
            // Pages freed by a version that is not durable yet stay put: the durable meta, which
            // a power loss falls back to, may still reach them. Except those written after it,
            // which neither it nor the meta in the pending slot reaches.
            let (reuseFloor, roundPages, runs) = commitState.withLock {
                ($0.durableVersion, $0.roundReusablePages(pinLimit: oldest), $0.pageRuns)
            }
            return WriteTransaction(
                storage: self, base: base, reclaimLimit: min(oldest, reuseFloor), roundReusable: roundPages,
                expectedPages: runs.lastRunPages, mayGrowForRun: runs.mayGrow(from: meta))
        } catch {
            noteTransactionEnded()
            writeLock.release()
            releaseFileWriterLockIfIdle()
            throw error
        }
    }

    /// Makes `meta` the latest version, read through `mapping` from now on.
    func publish(_ meta: Meta, mapping: Mapping) {
        shared.withLock { s in
            s.meta = meta
            s.mapping = mapping
        }
    }

    var currentMapping: Mapping { shared.withLock { $0.mapping } }

    /// A mapping of at least `pages` pages that shows every write made so far, for the writer
    /// to read pages it wrote through: the current mapping if it is that large, otherwise a new
    /// one (twice as large at least), which becomes the current mapping at once.
    ///
    /// Installing it at once keeps the current mapping one that shows every write, even on a
    /// device whose older regions stop showing writes once it grows (an in-memory database):
    /// a writer that grew the device without committing must not leave the next commit
    /// reading its pages through a region that no longer shows them. Snapshots of the latest
    /// version read the same pages through either region.
    func mapping(covering pages: Int) throws(StorageError) -> Mapping {
        let current = currentMapping
        if current.pageCapacity >= pages { return current }
        let length = max(pages, 2 * current.pageCapacity) * pageSize
        let mapping = Mapping(region: try device.map(minimumLength: length), pageSize: pageSize)
        shared.withLock { s in
            if s.mapping.pageCapacity < mapping.pageCapacity { s.mapping = mapping }
        }
        return mapping
    }

    /// A sync failed (`error` is the `handleFailed` error to report): from now on this handle
    /// refuses work, with that error. Once its last snapshot is gone the file's lock is
    /// released, so that the file can be opened again from what is on disk.
    func fail(_ error: StorageError) {
        let closeDevice = shared.withLock { s in
            s.failure = error
            return s.shouldCloseDevice()
        }
        if closeDevice { device.close() }
    }

    /// Closes the handle: later calls throw `closed`. Snapshots taken before stay readable, and
    /// the file stays locked until the last of them is released, because a new handle could
    /// otherwise reuse the pages they read. Opening the file again in this process before then
    /// reopens this handle.
    package func close() {
        let closeDevice = shared.withLock { s in
            s.isClosed = true
            return s.shouldCloseDevice()
        }
        if closeDevice { device.close() }
    }

    /// Whether another opener of this file in the process may have this handle. A closed handle
    /// whose snapshots still hold the file is reopened (it holds the file lock, and a new handle
    /// could reuse pages those snapshots read); a failed one that still holds the file refuses;
    /// one that has let go of its file is replaced.
    func claimForReopen(readOnly: Bool, sharing: FileSharing) -> ReopenClaim {
        shared.withLock { s in
            if s.isDeviceClosed { return .released }
            if readOnly != isReadOnly || sharing != self.sharing { return .modeMismatch }
            if s.failure != nil { return .failedButHeld }
            s.isClosed = false
            return .reopened
        }
    }

    enum ReopenClaim { case reopened, modeMismatch, failedButHeld, released }

    /// Runs `work` on `queue` (after `delay`, if given), unless the handle is gone by then. The
    /// work does not keep the handle alive while it waits in the queue, only while it runs, and
    /// `backgroundWork` counts it until it has run: reopening the file in another mode waits
    /// for it, rather than taking a handle whose last user let go for one still in use.
    func inBackground(on queue: DispatchQueue, after delay: DispatchTimeInterval? = nil, _ work: @escaping @Sendable (Storage) -> Void) {
        backgroundWork.add(1, ordering: .sequentiallyConsistent)
        let run: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            work(self)
            self.backgroundWork.subtract(1, ordering: .sequentiallyConsistent)
        }
        if let delay { queue.asyncAfter(deadline: .now() + delay, execute: run) } else { queue.async(execute: run) }
    }

    /// Whether work sent to a queue by `inBackground` has yet to run or end.
    var hasBackgroundWork: Bool { backgroundWork.load(ordering: .sequentiallyConsistent) > 0 }

    /// Throws unless the handle may still be used.
    func checkUsable() throws(StorageError) {
        try shared.withLock { s throws(StorageError) in try s.checkUsable(name: name) }
    }
}

extension Storage.SharedState {
    func checkUsable(name: String) throws(StorageError) {
        if isClosed { throw .closed(path: name) }
        if let failure { throw failure }
    }

    /// Pins the latest version for a new snapshot and returns what the snapshot reads.
    mutating func pinLatest(name: String) throws(StorageError) -> (Meta, Mapping) {
        try checkUsable(name: name)
        pins.pin(meta.version)
        return (meta, mapping)
    }
}

/// The process-wide table of open databases, so that every opener of a file shares one handle
/// (and so one write lock and one file lock).
///
/// State: the table, guarded by its mutex. Entries are weak: a handle closes its file when the
/// last user lets go, and a dead entry is replaced on the next open.
final class Registry: Sendable {
    static let shared = Registry()

    enum Key: Hashable {
        case file(device: UInt64, inode: UInt64)
        case path(String)
        case memory(String)
    }

    private struct Entry: Sendable {
        weak var storage: Storage?
        init(_ storage: Storage) { self.storage = storage }
    }

    private let table = Locked<[Key: Entry]>([:])

    static func fileKey(path: String) -> Key {
        var info = stat()
        guard stat(path, &info) == 0 else { return .path(path) }
        return .file(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Deletes the file at `path` if no handle has it open, in this process (the table:
    /// `openInThisProcess`) or in another (its lock: `fileLocked`). Returns false if there was
    /// no file.
    func deleteFile(path: String) throws(StorageError) -> Bool {
        try table.withLock { table throws(StorageError) -> Bool in
            let key = Self.fileKey(path: path)
            guard case .file = key else { return false }
            if table[key]?.storage != nil { throw .openInThisProcess(path: path) }
            try FileDevice.deleteUnlocked(path: path)
            LockFile.removeFiles(databasePath: path)
            return true
        }
    }

    /// The live handle of the file at `path`, if this process has one.
    func openHandle(path: String) -> Storage? {
        table.withLock { $0[Self.fileKey(path: path)]?.storage }
    }

    /// The live handle registered under the key `key` gives, or a new one from `make`, registered
    /// under the key `registerAs` gives once it exists (a new file's device and inode are known
    /// only then). The key is asked for again at each attempt: a file another opener has just
    /// created has a key now that it did not have before.
    func open(
        key: () -> Key, readOnly: Bool, sharing: FileSharing, make: () throws(StorageError) -> Storage, registerAs finalKey: () -> Key
    ) throws(StorageError) -> Storage {
        var attempts = 0
        var backgroundWaits = 0
        while true {
            do {
                let opened = try table.withLock { table throws(StorageError) -> Storage? in
                    let key = key()
                    if let existing = table[key]?.storage {
                        switch existing.claimForReopen(readOnly: readOnly, sharing: sharing) {
                        case .reopened:
                            return existing
                        case .modeMismatch:
                            // Work of the handle's own (a sync round) keeps it alive while it
                            // runs, also after its last user let go: wait for that work (up to
                            // two seconds), and a moment more for the handle to go, before
                            // taking it for a handle in use.
                            if backgroundWaits < 5 || (existing.hasBackgroundWork && backgroundWaits < 2_000) { return nil }
                            throw .modeConflict(
                                path: existing.name,
                                detail: existing.sharing != sharing
                                    ? (existing.sharing == .shared
                                        ? "shared with other processes; close it before opening it for exclusive use"
                                        : "for exclusive use; close it before opening it shared with other processes")
                                    : existing.isReadOnly
                                        ? "read-only; close it before opening it writable" : "writable; use that handle instead of a read-only one")
                        case .failedButHeld:
                            throw .modeConflict(
                                path: existing.name,
                                detail: "by a handle whose sync failed and whose snapshots are still alive; release them before reopening")
                        case .released:
                            break
                        }
                    }
                    let storage = try make()
                    table[finalKey()] = Entry(storage)
                    table = table.filter { $0.value.storage != nil }
                    return storage
                }
                if let opened { return opened }
                backgroundWaits += 1
                usleep(1_000)
            } catch .fileLocked(let path) {
                // A handle of this process whose last user just let go may not have closed its
                // file yet (its entry is still in the table, with no handle): give its thread up
                // to two seconds to get there, however loaded the machine. With no such handle,
                // wait only briefly before blaming another process.
                attempts += 1
                let releasedHere = table.withLock { $0[key()] != nil }
                if attempts > (releasedHere ? 400 : 20) { throw .fileLocked(path: path) }
                usleep(5_000)
            }
        }
    }
}
