import BurrowStore
import CSQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A SQLite VFS that wraps the default one and counts `xSync` calls, so the benchmark can
/// report SQLite's syncs per commit as measured rather than as documented.
///
/// Each file it opens is laid out as our `sqlite3_file` header (pointing at `countingMethods`)
/// followed by the default VFS's own file object; every method forwards to the inner file.
/// Open a database through it with `SQLiteDatabase(path:vfs: SQLiteSyncCounter.vfsName)`.
enum SQLiteSyncCounter {
    static let vfsName = "burrow-bench-counting"

    /// `xSync` calls so far, on any file opened through the VFS (database, WAL, journal).
    static var syncs: Int { counter.load(ordering: .relaxed) }

    /// Registers the VFS (once); returns false if there is no default VFS to wrap.
    static func register() -> Bool { registered }

    fileprivate static let counter = Atomic<Int>(0)

    private static let registered: Bool = {
        guard let base = sqlite3_vfs_find(nil) else { return false }
        // Lives for the rest of the process, as SQLite requires of a registered VFS.
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: sqlite3_vfs())
        vfs.pointee.iVersion = 2
        vfs.pointee.szOsFile = Int32(MemoryLayout<sqlite3_file>.stride) + base.pointee.szOsFile
        vfs.pointee.mxPathname = base.pointee.mxPathname
        vfs.pointee.zName = UnsafePointer(strdup(vfsName))
        vfs.pointee.pAppData = UnsafeMutableRawPointer(base)
        vfs.pointee.xOpen = countingOpen
        vfs.pointee.xDelete = { v, name, dirSync in
            let b = baseVFS(v)
            return b.pointee.xDelete(b, name, dirSync)
        }
        vfs.pointee.xAccess = { v, name, flags, out in
            let b = baseVFS(v)
            return b.pointee.xAccess(b, name, flags, out)
        }
        vfs.pointee.xFullPathname = { v, name, n, out in
            let b = baseVFS(v)
            return b.pointee.xFullPathname(b, name, n, out)
        }
        vfs.pointee.xDlOpen = { v, name in
            let b = baseVFS(v)
            return b.pointee.xDlOpen(b, name)
        }
        vfs.pointee.xDlError = { v, n, out in
            let b = baseVFS(v)
            b.pointee.xDlError(b, n, out)
        }
        vfs.pointee.xDlSym = { v, handle, name in
            let b = baseVFS(v)
            return b.pointee.xDlSym(b, handle, name)
        }
        vfs.pointee.xDlClose = { v, handle in
            let b = baseVFS(v)
            b.pointee.xDlClose(b, handle)
        }
        vfs.pointee.xRandomness = { v, n, out in
            let b = baseVFS(v)
            return b.pointee.xRandomness(b, n, out)
        }
        vfs.pointee.xSleep = { v, micros in
            let b = baseVFS(v)
            return b.pointee.xSleep(b, micros)
        }
        vfs.pointee.xCurrentTime = { v, out in
            let b = baseVFS(v)
            return b.pointee.xCurrentTime(b, out)
        }
        vfs.pointee.xGetLastError = { v, n, out in
            let b = baseVFS(v)
            return b.pointee.xGetLastError(b, n, out)
        }
        vfs.pointee.xCurrentTimeInt64 = { v, out in
            let b = baseVFS(v)
            if let f = b.pointee.xCurrentTimeInt64, b.pointee.iVersion >= 2 { return f(b, out) }
            return SQLITE_ERROR
        }
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()

    /// Forwards every method to the inner file; `xSync` also counts.
    // Written once, then only read (by SQLite).
    nonisolated(unsafe) fileprivate static let countingMethods: UnsafePointer<sqlite3_io_methods> = {
        var m = sqlite3_io_methods()
        m.iVersion = 3
        m.xClose = { f in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xClose(i)
        }
        m.xRead = { f, buffer, n, offset in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xRead(i, buffer, n, offset)
        }
        m.xWrite = { f, buffer, n, offset in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xWrite(i, buffer, n, offset)
        }
        m.xTruncate = { f, size in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xTruncate(i, size)
        }
        m.xSync = { f, flags in
            SQLiteSyncCounter.counter.add(1, ordering: .relaxed)
            let i = inner(f)
            return i.pointee.pMethods.pointee.xSync(i, flags)
        }
        m.xFileSize = { f, out in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xFileSize(i, out)
        }
        m.xLock = { f, level in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xLock(i, level)
        }
        m.xUnlock = { f, level in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xUnlock(i, level)
        }
        m.xCheckReservedLock = { f, out in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xCheckReservedLock(i, out)
        }
        m.xFileControl = { f, op, arg in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xFileControl(i, op, arg)
        }
        m.xSectorSize = { f in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xSectorSize(i)
        }
        m.xDeviceCharacteristics = { f in
            let i = inner(f)
            return i.pointee.pMethods.pointee.xDeviceCharacteristics(i)
        }
        m.xShmMap = { f, page, size, extend, out in
            let i = inner(f)
            guard let method = i.pointee.pMethods.pointee.xShmMap, i.pointee.pMethods.pointee.iVersion >= 2 else { return SQLITE_IOERR }
            return method(i, page, size, extend, out)
        }
        m.xShmLock = { f, offset, n, flags in
            let i = inner(f)
            guard let method = i.pointee.pMethods.pointee.xShmLock, i.pointee.pMethods.pointee.iVersion >= 2 else { return SQLITE_IOERR }
            return method(i, offset, n, flags)
        }
        m.xShmBarrier = { f in
            let i = inner(f)
            if let method = i.pointee.pMethods.pointee.xShmBarrier, i.pointee.pMethods.pointee.iVersion >= 2 { method(i) }
        }
        m.xShmUnmap = { f, delete in
            let i = inner(f)
            guard let method = i.pointee.pMethods.pointee.xShmUnmap, i.pointee.pMethods.pointee.iVersion >= 2 else { return SQLITE_OK }
            return method(i, delete)
        }
        m.xFetch = { f, offset, n, out in
            let i = inner(f)
            guard let method = i.pointee.pMethods.pointee.xFetch, i.pointee.pMethods.pointee.iVersion >= 3 else {
                out?.pointee = nil
                return SQLITE_OK
            }
            return method(i, offset, n, out)
        }
        m.xUnfetch = { f, offset, p in
            let i = inner(f)
            guard let method = i.pointee.pMethods.pointee.xUnfetch, i.pointee.pMethods.pointee.iVersion >= 3 else { return SQLITE_OK }
            return method(i, offset, p)
        }
        let table = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        table.initialize(to: m)
        return UnsafePointer(table)
    }()
}

/// The default VFS this one wraps (kept in `pAppData`).
private func baseVFS(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs> {
    vfs!.pointee.pAppData.assumingMemoryBound(to: sqlite3_vfs.self)
}

/// The default VFS's file object, which follows our header.
private func inner(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file> {
    (UnsafeMutableRawPointer(file!) + MemoryLayout<sqlite3_file>.stride).assumingMemoryBound(to: sqlite3_file.self)
}

private func countingOpen(
    _ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ name: UnsafePointer<CChar>?, _ file: UnsafeMutablePointer<sqlite3_file>?,
    _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?
) -> Int32 {
    let base = baseVFS(vfs)
    let innerFile = inner(file)
    file!.pointee.pMethods = nil
    innerFile.pointee.pMethods = nil
    let rc = base.pointee.xOpen(base, name, innerFile, flags, outFlags)
    // SQLite expects pMethods to be set, or nil, whether or not the open succeeded.
    if innerFile.pointee.pMethods != nil { file!.pointee.pMethods = SQLiteSyncCounter.countingMethods }
    return rc
}
