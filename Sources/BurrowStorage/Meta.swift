/// The root and entry count of one B+tree. An empty tree has root 0.
package struct TreeState: Sendable, Equatable {
    package var root: PageNumber
    package var count: UInt64

    package static let empty = TreeState(root: 0, count: 0)

    /// The 16-byte form stored in meta pages and as catalog values.
    static let encodedSize = 16

    func encode(into p: UnsafeMutableRawPointer) {
        p.setU32(0, root)
        p.setU32(4, 0)
        p.setU64(8, count)
    }

    static func decode(_ p: UnsafeRawPointer) -> TreeState {
        TreeState(root: p.u32(0), count: p.u64(8))
    }
}

/// The pages a meta vouches for: every page its version reaches that was written after the
/// version in `base`, the newest one known durable when the meta was written, with the checksum
/// each was written with. Opening takes a meta with a list only if every listed page is intact,
/// which is what lets a commit write its pages and its meta and then sync once.
struct WrittenPages: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var page: PageNumber
        var checksum: UInt64
    }

    var base: UInt64
    var entries: [Entry]

    static let none = WrittenPages(base: 0, entries: [])
}

/// One committed version of the database, as a meta page records it.
///
/// Two meta pages, 0 and 1: the newest durable version's meta stays in its slot while newer
/// versions' metas go to the other one, so a torn or unsynced meta never costs the durable one.
/// Layout (little-endian):
///
///     0  checksum       UInt64  XXH64 of bytes 8..<pageSize, seeded with the slot (0 or 1)
///     8  magic          8 bytes "BURROWDB"
///     16 formatVersion  UInt32
///     20 pageSize       UInt32
///     24 version        UInt64  the transaction id; the newest valid meta wins on open
///     32 pageCount      UInt32  pages in use, including both meta pages
///     36 catalog        root UInt32 (0: inline), inline bytes UInt32, entry count UInt64
///     52 free           root UInt32 (0: inline), inline bytes UInt32, record count UInt64
///     68 freePageCount  UInt64  pages listed in the free tree
///     76 listBase       UInt64  the durable version the written-page list starts after
///     84 listCount      UInt32  entries in the list; 0 = nothing to check
///     88 (zero)         UInt32
///     92 list           listCount x (page UInt32, checksum UInt64)
///     .. inline catalog (InlineCatalog), when the catalog root is 0
///     .. inline free list (InlineFreeList), when the free tree's root is 0
///     .. zero
package struct Meta: Sendable, Equatable {
    /// The bytes at offset 8 of a meta page, which mark a Burrow database.
    package static let magic: [UInt8] = Array("BURROWDB".utf8)
    /// Format 7: leaves are written in the compact form (entry lengths in one or two bytes, a
    /// key of up to eight bytes in its slot alone); leaves of the first form, all a file of an
    /// older format holds, are still read, and each becomes compact when a write copies it.
    /// Format 6: the object layer's rows keep strings and data without their lengths and no
    /// offset for their last field. Formats 6, 5 (rows with narrow offsets and integers) and 4
    /// (a small catalog and a short free list live in the meta page; rows of 8-byte integers and
    /// offsets) are still read. A write transaction on a file of format 6 writes format 7; the
    /// object layer rewrites the rows of a file of format 4 or 5 in its first write transaction,
    /// whose meta then says 7. (Format 3: branch entries count the entries below them; format 2:
    /// metas list the pages written since the durable version.) Other formats are refused by
    /// name.
    package static let formatVersion: UInt32 = 7
    /// The first format whose leaves may be compact.
    package static let firstCompactFormat: UInt32 = 7

    /// The format a write on a version of `format` records: the current one from format 6 on
    /// (the engine's change needs nothing rewritten), else `format` itself, which the object
    /// layer's upgrade raises once it has rewritten the rows.
    package static func writtenFormat(from format: UInt32) -> UInt32 {
        format >= 6 ? formatVersion : format
    }
    /// The oldest format the engine opens.
    package static let oldestReadableFormat: UInt32 = 4
    static let listOffset = 92
    static let listEntrySize = 12
    /// The most pages the engine lists in one meta. Opening reads and checks every listed page,
    /// so the limit bounds the cost of opening; a commit (or round) that wrote more takes two
    /// syncs.
    static let listLimit = 64

    package var version: UInt64
    /// The file format this version is written in: `formatVersion`, or an older one the engine
    /// still reads (`oldestReadableFormat` and up). A write transaction keeps its base's format
    /// unless it upgrades (`WriteTransaction.upgradeFormat()`).
    package var format: UInt32 = Meta.formatVersion
    package var pageSize: Int
    package var pageCount: PageNumber
    /// The catalog tree, or, when its root is 0, the root 0 and the number of entries of
    /// `inlineCatalog`.
    var catalog: TreeState
    /// The catalog while it fits in the meta page (empty when `catalog` is a tree).
    var inlineCatalog: InlineCatalog = .empty
    /// The free tree, or, when its root is 0, the root 0 and the number of records of
    /// `inlineFree`.
    var free: TreeState
    /// The free tree's records while they fit in the meta page (empty when `free` is a tree).
    var inlineFree: InlineFreeList = .empty
    package var freePageCount: UInt64

    static func initial(pageSize: Int) -> Meta {
        Meta(version: 0, pageSize: pageSize, pageCount: 2, catalog: .empty, free: .empty, freePageCount: 0)
    }

    /// The most pages one meta can list, with no inline catalog.
    static func listCapacity(pageSize: Int) -> Int { (pageSize - listOffset) / listEntrySize }

    /// The most bytes of inline catalog and free list together a meta holds: what is left once
    /// the longest list the engine writes is in place (3,236 bytes at 4 KiB pages).
    static func inlineRoom(pageSize: Int) -> Int {
        pageSize - listOffset - listEntrySize * min(listLimit, listCapacity(pageSize: pageSize))
    }

    func encode(into p: UnsafeMutableRawPointer, slot: Int, written: WrittenPages = .none) {
        let inlineBytes = catalog.root == 0 ? inlineCatalog.encodedSize : 0
        let freeBytes = free.root == 0 ? inlineFree.encodedSize : 0
        let listEnd = Self.listOffset + Self.listEntrySize * written.entries.count
        precondition(listEnd + inlineBytes + freeBytes <= pageSize, "the written-page list and the inline catalog and free list do not fit")
        p.initializeMemory(as: UInt8.self, repeating: 0, count: pageSize)
        for (i, byte) in Self.magic.enumerated() { p.setU8(8 + i, byte) }
        p.setU32(16, format)
        p.setU32(20, UInt32(pageSize))
        p.setU64(24, version)
        p.setU32(32, pageCount)
        catalog.encode(into: p + 36)
        p.setU32(40, UInt32(inlineBytes))
        if inlineBytes > 0 { inlineCatalog.encode(into: p + listEnd) }
        free.encode(into: p + 52)
        p.setU32(56, UInt32(freeBytes))
        if freeBytes > 0 { inlineFree.encode(into: p + listEnd + inlineBytes) }
        p.setU64(68, freePageCount)
        p.setU64(76, written.base)
        p.setU32(84, UInt32(written.entries.count))
        for (i, entry) in written.entries.enumerated() {
            let at = Self.listOffset + Self.listEntrySize * i
            p.setU32(at, entry.page)
            p.setU64(at + 4, entry.checksum)
        }
        p.setU64(0, Checksum.page(UnsafeRawPointer(p), length: pageSize, pageNumber: UInt32(slot)))
    }

    enum Reading {
        case valid(Meta, WrittenPages)
        case foreign
        /// A Burrow meta of another format version (the file is Burrow's, but not readable here).
        case otherFormat(UInt32)
        case damaged(String)
    }

    /// Reads the meta in `bytes` (which must start at the page) for the given slot.
    static func read(_ bytes: UnsafeRawBufferPointer, slot: Int) -> Reading {
        guard bytes.count >= 16, let p = bytes.baseAddress else { return .foreign }
        for (i, byte) in magic.enumerated() where p.u8(8 + i) != byte { return .foreign }
        guard bytes.count >= 80 else { return .damaged("meta page \(slot) is cut short") }
        let format = p.u32(16)
        if !(oldestReadableFormat...formatVersion).contains(format), format != 0 { return .otherFormat(format) }
        let pageSize = Int(p.u32(20))
        guard format != 0, PageLayout.isValidPageSize(pageSize) else {
            return .damaged("meta page \(slot) records an impossible format or page size")
        }
        guard bytes.count >= pageSize else { return .damaged("meta page \(slot) is cut short") }
        guard p.u64(0) == Checksum.page(p, length: pageSize, pageNumber: UInt32(slot)) else {
            return .damaged("meta page \(slot) fails its checksum")
        }
        var meta = Meta(
            version: p.u64(24), format: format, pageSize: pageSize, pageCount: p.u32(32),
            catalog: TreeState.decode(p + 36), free: TreeState.decode(p + 52), freePageCount: p.u64(68))
        guard meta.pageCount >= 2, meta.catalog.root < meta.pageCount, meta.free.root < meta.pageCount,
            meta.catalog.root != 1, meta.free.root != 1,
            meta.freePageCount <= UInt64(meta.pageCount)
        else {
            return .damaged("meta page \(slot) describes impossible page numbers")
        }
        let count = Int(p.u32(84))
        guard count <= listCapacity(pageSize: pageSize), p.u64(76) <= meta.version else {
            return .damaged("meta page \(slot) records an impossible written-page list")
        }
        var written = WrittenPages(base: p.u64(76), entries: [])
        written.entries.reserveCapacity(count)
        for i in 0..<count {
            let at = listOffset + listEntrySize * i
            let page = p.u32(at)
            guard page >= 2, page < meta.pageCount else {
                return .damaged("meta page \(slot) lists page \(page), outside the file")
            }
            written.entries.append(.init(page: page, checksum: p.u64(at + 4)))
        }
        let inlineBytes = Int(p.u32(40))
        let listEnd = listOffset + listEntrySize * count
        if meta.catalog.root == 0 {
            guard inlineBytes <= pageSize - listEnd, meta.catalog.count <= UInt64(inlineBytes / InlineCatalog.entryHeader),
                let inline = InlineCatalog.decode(
                    UnsafeRawBufferPointer(start: p + listEnd, count: inlineBytes), count: Int(meta.catalog.count),
                    maxKeySize: PageLayout(pageSize: pageSize).maxKeySize, pageCount: meta.pageCount)
            else {
                return .damaged("meta page \(slot) holds an impossible inline catalog")
            }
            meta.inlineCatalog = inline
        } else if inlineBytes != 0 {
            return .damaged("meta page \(slot) holds an inline catalog beside a catalog tree")
        }
        let freeBytes = Int(p.u32(56))
        let freeStart = listEnd + (meta.catalog.root == 0 ? inlineBytes : 0)
        if meta.free.root == 0 {
            guard freeBytes <= pageSize - freeStart, meta.free.count <= UInt64(freeBytes / InlineFreeList.recordHeader),
                let inline = InlineFreeList.decode(
                    UnsafeRawBufferPointer(start: p + freeStart, count: freeBytes), count: Int(meta.free.count),
                    pageCount: meta.pageCount)
            else {
                return .damaged("meta page \(slot) holds an impossible inline free list")
            }
            meta.inlineFree = inline
        } else if freeBytes != 0 {
            return .damaged("meta page \(slot) holds an inline free list beside a free tree")
        }
        return .valid(meta, written)
    }
}
