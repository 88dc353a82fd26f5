/// Page-sized buffers kept between write transactions, so that a commit does not allocate and
/// free a buffer for every page it writes (dirty pages, and the meta page).
///
/// State: `buffers`, guarded by its mutex. A buffer is either in `buffers` or owned by exactly
/// one user until given back: a write transaction (which takes them all when it begins, for its
/// dirty pages and its scratch page), or a sync round writing a meta page.
final class PageBufferStash: @unchecked Sendable {
    // Unchecked because raw pointers are not Sendable; the buffers they point to are: each is
    // in `buffers`, reached only under its lock, or owned by exactly one user (see above).
    let pageSize: Int
    private let buffers = Locked<[UnsafeMutableRawPointer]>([])
    /// Buffers kept at most; more are freed when given back.
    static let capacity = 64

    init(pageSize: Int) {
        self.pageSize = pageSize
    }

    deinit {
        buffers.withLock { list in
            for buffer in list { buffer.deallocate() }
            list.removeAll()
        }
    }

    /// A buffer of `pageSize` bytes with undefined contents.
    func take() -> UnsafeMutableRawPointer {
        if let buffer = buffers.withLock({ $0.popLast() }) { return buffer }
        return Self.allocate(byteCount: pageSize)
    }

    /// A new buffer for `byteCount` bytes of pages (one page, or an overflow run).
    ///
    /// Aligned to 16 bytes, which every load and store of a page needs, and not to the page
    /// size: the C allocator places a 4,096-aligned block of 4,096 bytes in a span of about
    /// twice that, and the header it writes in the gap makes the gap's memory resident too. A
    /// transaction holding a million `Dog`s' 125 MiB of dirty pages raised the process's peak
    /// resident set by 268 MiB with page-aligned buffers and by 156 MiB with these.
    static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        .allocate(byteCount: byteCount, alignment: 16)
    }

    /// Every buffer kept, for a write transaction to draw on without locking (it gives them
    /// back with `give(all:)` when it ends): one lock per transaction instead of two per page.
    func takeAll() -> [UnsafeMutableRawPointer] {
        buffers.withLock { list in
            let all = list
            list = []
            return all
        }
    }

    /// Gives back buffers `take` or `takeAll` handed out; nobody may use them afterwards. The
    /// array itself is kept when the stash is empty, so that its storage is reused too.
    func give(all returned: [UnsafeMutableRawPointer]) {
        guard !returned.isEmpty else { return }
        let excess = buffers.withLock { list -> [UnsafeMutableRawPointer] in
            if list.isEmpty { list = returned } else { list.append(contentsOf: returned) }
            guard list.count > Self.capacity else { return [] }
            let excess = Array(list[Self.capacity...])
            list.removeLast(list.count - Self.capacity)
            return excess
        }
        for buffer in excess { buffer.deallocate() }
    }

    /// Gives back a buffer `take` handed out; nobody may use it afterwards.
    func give(_ buffer: UnsafeMutableRawPointer) {
        let kept = buffers.withLock { list in
            guard list.count < Self.capacity else { return false }
            list.append(buffer)
            return true
        }
        if !kept { buffer.deallocate() }
    }
}
