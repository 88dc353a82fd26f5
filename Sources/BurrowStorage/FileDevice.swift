#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A database file: `pwritev` for writes, `fdatasync` (`F_FULLFSYNC` on Darwin) for durability,
/// a read-only shared `mmap` for reads, and `flock`: exclusive, so that one process at a time has
/// it open, or shared, for processes that share it (each then also holds its `LockFile`).
///
/// State: `descriptor` is guarded by its mutex; it becomes -1 once closed.
package final class FileDevice: StorageDevice {
    package let name: String
    private let descriptor: Locked<Int32>

    /// Deletes the file at `path` after taking its lock, so that a file another process has
    /// open is left alone.
    static func deleteUnlocked(path: String) throws(StorageError) {
        let fd = path.withCString { open($0, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        defer { closeDescriptor(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { throw .fileLocked(path: path) }
        guard unlink(path) == 0 else { throw .io(path: path, operation: "unlink", errno: errno) }
    }

    /// Opens (creating if allowed) and locks the file at `path`: exclusively, or (`.shared`)
    /// together with other processes that share it.
    package init(path: String, readOnly: Bool, create: Bool, sharing: FileSharing = .exclusive) throws(StorageError) {
        name = path
        var flags = O_CLOEXEC | (readOnly ? O_RDONLY : O_RDWR)
        if create && !readOnly { flags |= O_CREAT }
        let fd = path.withCString { open($0, flags, 0o644) }
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        if flock(fd, (sharing == .shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            let code = errno
            closeDescriptor(fd)
            if code == EWOULDBLOCK { throw .fileLocked(path: path) }
            throw .io(path: path, operation: "flock", errno: code)
        }
        descriptor = Locked(fd)
    }

    deinit { close() }

    private func fd() throws(StorageError) -> Int32 {
        let fd = descriptor.withLock { $0 }
        guard fd >= 0 else { throw .closed(path: name) }
        return fd
    }

    package func size() throws(StorageError) -> Int {
        var info = stat()
        guard fstat(try fd(), &info) == 0 else { throw .io(path: name, operation: "fstat", errno: errno) }
        return Int(info.st_size)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(StorageError) -> Int {
        let fd = try fd()
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: name, operation: "read", errno: errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes pieces that follow each other in the file with one `pwritev` per run (a commit's
    /// pages are written in page order, and pages taken from the end of the file or from a run
    /// of free pages are consecutive), so a commit costs a system call per run, not per page.
    package func write(_ pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)]) throws(StorageError) {
        let fd = try fd()
        // The vectors of one run live on the stack: a commit writes a few runs of a few pages.
        try withUnsafeTemporaryAllocation(of: iovec.self, capacity: min(pieces.count, Self.maxVectors)) { vectors throws(StorageError) in
            var start = 0
            while start < pieces.count {
                // The run: pieces[start..<end], each starting where the previous one ends.
                var end = start + 1
                var runEnd = pieces[start].offset + pieces[start].bytes.count
                while end < pieces.count, end - start < Self.maxVectors, pieces[end].offset == runEnd {
                    runEnd += pieces[end].bytes.count
                    end += 1
                }
                for (i, piece) in pieces[start..<end].enumerated() {
                    vectors[i] = iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.bytes.baseAddress), iov_len: piece.bytes.count)
                }
                try writeRun(fd, UnsafeMutableBufferPointer(rebasing: vectors[..<(end - start)]), at: pieces[start].offset)
                start = end
            }
        }
    }

    /// The most buffers one `pwritev` takes (IOV_MAX on Linux and Darwin).
    private static let maxVectors = 1024

    /// Writes every byte `vectors` describe, starting at `offset`, resuming after short writes
    /// (which adjust `vectors`).
    private func writeRun(_ fd: Int32, _ vectors: UnsafeMutableBufferPointer<iovec>, at offset: Int) throws(StorageError) {
        var done = 0
        var first = 0
        while first < vectors.count {
            let n = pwritev(fd, vectors.baseAddress! + first, Int32(vectors.count - first), off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: name, operation: "write", errno: errno)
            }
            done += n
            // Skip the buffers written whole; trim the one written in part.
            var left = n
            while first < vectors.count, left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base = vectors[first].iov_base + left
                vectors[first].iov_len -= left
            }
        }
    }

    package func sync() throws(StorageError) {
        let fd = try fd()
        #if canImport(Darwin)
        let result = fcntl(fd, F_FULLFSYNC)
        #else
        let result = fdatasync(fd)
        #endif
        guard result == 0 else { throw .io(path: name, operation: "fsync", errno: errno) }
    }

    package func map(minimumLength: Int) throws(StorageError) -> any MappedRegion {
        let fd = try fd()
        // Reserve generously: mapping past the end of the file is allowed, and the engine never
        // touches a page the file does not yet hold. Fewer remaps mean fewer regions alive.
        let length = max(minimumLength, 1 << 26)
        let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0)
        guard let address, address != MAP_FAILED else { throw .io(path: name, operation: "mmap", errno: errno) }
        return FileRegion(base: UnsafeRawPointer(address), length: length)
    }

    /// Syncs the directory holding `path`, so that a newly created file's name is durable too.
    package static func syncDirectory(of path: String) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let fd = (directory.isEmpty ? "/" : directory).withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return }
        _ = fsync(fd)
        closeDescriptor(fd)
    }

    package func close() {
        descriptor.withLock { fd in
            if fd >= 0 {
                // Unlock explicitly: a mapping still alive keeps the open file, and with it
                // the lock, after the descriptor is closed.
                _ = flock(fd, LOCK_UN)
                closeDescriptor(fd)
                fd = -1
            }
        }
    }
}

/// A read-only shared mapping of a file, unmapped when the last snapshot using it is gone.
final class FileRegion: MappedRegion {
    // The mapping is PROT_READ and never unmapped before deinit, so sharing the address across
    // threads is safe; what the pages contain is governed by the engine's version pinning.
    nonisolated(unsafe) let base: UnsafeRawPointer
    let length: Int

    init(base: UnsafeRawPointer, length: Int) {
        self.base = base
        self.length = length
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), length) }
}

@inline(__always) func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}
