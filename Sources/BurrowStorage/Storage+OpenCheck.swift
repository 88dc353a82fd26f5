extension Storage {
    /// A valid meta page and the slot it was read from.
    struct MetaCandidate {
        var meta: Meta
        var written: WrittenPages
        var slot: Int
    }

    /// Why a valid meta's version cannot be opened as it is.
    enum UnreadablePart {
        case truncated(expectedBytes: Int, actualBytes: Int)
        case listedPage(page: PageNumber, detail: String)

        func reason(pageSize: Int) -> StorageRecovery.Reason {
            switch self {
            case .truncated(let expected, let actual): return .truncated(expectedBytes: expected, actualBytes: actual)
            case .listedPage(let page, let detail): return .damagedPage(page: page, offset: Int(page) * pageSize, detail: detail)
            }
        }

        /// Why opening cannot fall back past `newest` to `other`.
        static func noFallback(newest: MetaCandidate, other: MetaCandidate?) -> String {
            guard let other else { return "the other meta page is damaged too, so there is nothing to fall back to" }
            if other.meta.version == newest.meta.version {
                return "both meta pages hold version \(newest.meta.version), so there is no older version to fall back to"
            }
            return
                "the other meta page holds version \(other.meta.version), not version \(newest.written.base) that this commit builds on, so falling back would lose more than one commit"
        }

        /// The error opening throws for `meta`'s version, which cannot be opened (`why` says why
        /// nothing else can be either).
        func error(path: String, meta: MetaCandidate, why: String) -> StorageError {
            switch self {
            case .truncated(let expected, let actual):
                return .truncated(path: path, expectedBytes: expected, actualBytes: actual)
            case .listedPage(let page, let detail):
                return .corruptPage(
                    path: path, page: page,
                    detail:
                        "(byte offset \(Int(page) * meta.meta.pageSize)), written by the commit of version \(meta.meta.version), \(detail); \(why)")
            }
        }
    }

    /// Why `other` is not the meta that a crash or a power loss leaves beside `newest`, or nil
    /// when it is (Architecture.md, "What a damaged file does"). Every meta is written into the
    /// pending slot while the durable slot holds the version it records as `listBase`, and the
    /// durable slot is not written until that meta is synced; so the other slot holds exactly
    /// `listBase` unless the file changed after it was written, for example an older copy of a
    /// meta page written over the newest one. Nothing is checked for a meta whose pages were
    /// synced before it (`listBase` is its own version), nor for one with an empty list and
    /// `listBase` 0, which a file may hold from an engine that left it 0 there (the engine
    /// writes it only while the other slot holds version 0). A file written whole holds one
    /// version in both slots.
    static func unexpectedPartner(of newest: MetaCandidate, other: MetaCandidate) -> String? {
        let base = newest.written.base
        let version = newest.meta.version
        guard base < version, base != 0 || !newest.written.entries.isEmpty else { return nil }
        if other.meta.version == base || other.meta.version == version { return nil }
        return "meta page \(other.slot) holds version \(other.meta.version), but version \(version) builds on version \(base): "
            + "the page was changed after it was written"
    }

    /// What keeps `candidate`'s version from being opened as it is, or nil: a file shorter than
    /// its page count, or a page its meta lists that is not exactly as the commit wrote it
    /// (outside the file, checksum invalid or not the listed one, stamped by a version at or
    /// before the list's base or after the meta's). An overflow run is checked whole. Reads only
    /// the listed pages.
    static func unreadablePart(
        of candidate: MetaCandidate, device: any StorageDevice, size: Int
    ) throws(StorageError) -> UnreadablePart? {
        let meta = candidate.meta
        let written = candidate.written
        let pageSize = meta.pageSize
        let needed = Int(meta.pageCount) * pageSize
        guard size >= needed else { return .truncated(expectedBytes: needed, actualBytes: size) }
        var capacity = pageSize
        var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 4096)
        defer { buffer.deallocate() }
        for entry in written.entries {
            let offset = Int(entry.page) * pageSize
            guard try device.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: pageSize), at: offset) == pageSize
            else { return .listedPage(page: entry.page, detail: "lies past the end of the file") }
            var length = pageSize
            if PageHeader.kind(UnsafeRawPointer(buffer)) == PageKind.overflow.rawValue {
                let pages = PageHeader.overflowPages(UnsafeRawPointer(buffer))
                guard pages >= 1, UInt64(entry.page) + UInt64(pages) <= UInt64(meta.pageCount) else {
                    return .listedPage(page: entry.page, detail: "is an overflow run whose length runs past the version's pages")
                }
                length = pages * pageSize
                if length > capacity {
                    buffer.deallocate()
                    capacity = length
                    buffer = .allocate(byteCount: capacity, alignment: 4096)
                }
                guard try device.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length), at: offset) == length
                else { return .listedPage(page: entry.page, detail: "runs past the end of the file") }
            }
            let p = UnsafeRawPointer(buffer)
            let stamp = PageHeader.version(p)
            if p.u64(0) != entry.checksum {
                return .listedPage(page: entry.page, detail: "does not hold the checksum its meta lists (it is not the page the commit wrote)")
            }
            if Checksum.page(p, length: length, pageNumber: entry.page) != entry.checksum {
                return .listedPage(page: entry.page, detail: "fails its checksum")
            }
            if stamp <= written.base || stamp > meta.version {
                return .listedPage(
                    page: entry.page, detail: "is stamped by version \(stamp), not by one of versions \(written.base + 1) to \(meta.version)")
            }
        }
        return nil
    }
}
