/// A region of memory through which committed pages are read: a read-only `mmap` of a file, or
/// the buffer of an in-memory database. It stays valid, and unchanged for every page that a live
/// snapshot can reach, until the last reference to it goes away.
package protocol MappedRegion: AnyObject, Sendable {
    var base: UnsafeRawPointer { get }
    var length: Int { get }
}

/// Where a database's bytes live. The engine writes pages only through `write` and reads
/// committed pages only through a `MappedRegion`, so a test can substitute a device that
/// forgets unsynced writes to simulate a power loss.
///
/// `write` calls come from one writer at a time (the engine serialises them). `sync` may run on
/// another thread (a group-commit round) while a writer writes: it must make durable at least
/// every write that completed before it started. `map` and `size` may also be called while
/// opening.
package protocol StorageDevice: AnyObject, Sendable {
    /// A name for messages: the file's path, or a description of an in-memory store.
    var name: String { get }
    /// The current length in bytes.
    func size() throws(StorageError) -> Int
    /// Reads exactly `buffer.count` bytes at `offset`, or fewer if the device ends first; returns the count read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(StorageError) -> Int
    /// Writes each buffer at its offset. The device may extend itself.
    func write(_ pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)]) throws(StorageError)
    /// Makes every write so far durable. Failure is reported, never retried.
    func sync() throws(StorageError)
    /// A region covering at least `minimumLength` bytes that reflects all writes made so far.
    func map(minimumLength: Int) throws(StorageError) -> any MappedRegion
    /// Releases the device (and its lock). Regions already handed out stay valid.
    func close()
    /// Whether the device's bytes are process memory (an in-memory database), so that writing
    /// pages to it early saves no memory.
    var isInMemory: Bool { get }
}

extension StorageDevice {
    package var isInMemory: Bool { false }
}
