import BurrowStorage
import BurrowStore
import Synchronization

/// A `StorageDevice` that forwards to a `FileDevice` and counts `sync()` calls, so that the
/// commit workloads report Burrow's syncs per commit as measured.
final class CountingDevice: StorageDevice {
    let base: FileDevice
    private let syncCount = Atomic<Int>(0)

    init(path: String) throws(StorageError) {
        base = try FileDevice(path: path, readOnly: false, create: true)
    }

    /// `sync()` calls so far.
    var syncs: Int { syncCount.load(ordering: .relaxed) }

    var name: String { base.name }
    func size() throws(StorageError) -> Int { try base.size() }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(StorageError) -> Int {
        try base.read(into: buffer, at: offset)
    }
    func write(_ pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)]) throws(StorageError) { try base.write(pieces) }
    func sync() throws(StorageError) {
        syncCount.add(1, ordering: .relaxed)
        try base.sync()
    }
    func map(minimumLength: Int) throws(StorageError) -> any MappedRegion { try base.map(minimumLength: minimumLength) }
    func close() { base.close() }
}
