/// What `verify()` found in a sound file.
package struct VerifyReport: Sendable, Equatable {
    package var version: UInt64
    package var trees: Int
    package var entries: UInt64
    /// Pages reachable from the version (tree pages, overflow pages, catalog and free tree),
    /// the two meta pages included.
    package var reachablePages: Int
    package var freePages: Int
    package var pageCount: Int
}

/// A full check of one version: every tree walked, every page's checksum and structure checked
/// afresh (not trusted from earlier reads), keys in order within and across pages, leaves all at
/// one depth, entry counts as recorded, and every page either reachable exactly once or listed
/// free exactly once, never both, none missing.
extension Snapshot {
    package func verify() throws(StorageError) -> VerifyReport {
        var walk = VerifyWalk(snapshot: self)
        let inconsistent = { (detail: String) in VerifyWalk.inconsistent(self, detail) }
        // An inline catalog was checked when the meta was read (names in order, roots inside
        // the file, entries as counted); a catalog tree is walked like any tree.
        let treeNames =
            meta.catalog.root == 0
            ? meta.inlineCatalog.entries.map { (String(decoding: $0.name, as: UTF8.self), $0.state) }
            : try walk.walk(meta.catalog, what: "the catalog") { key, value throws(StorageError) in
                guard value.count == TreeState.encodedSize else {
                    throw inconsistent("the catalog entry \"\(String(decoding: key, as: UTF8.self))\" has \(value.count) bytes")
                }
                return (String(decoding: key, as: UTF8.self), TreeState.decode(value.baseAddress!))
            }
        guard meta.catalog.root != 0 || UInt64(treeNames.count) == meta.catalog.count else {
            throw inconsistent("the inline catalog holds \(treeNames.count) entries but records \(meta.catalog.count)")
        }
        var entries: UInt64 = 0
        for (name, state) in treeNames {
            _ = try walk.walk(state, what: "tree \"\(name)\"") { _, _ throws(StorageError) in () }
            entries += state.count
        }
        let records =
            meta.free.root == 0
            ? meta.inlineFree.records.map(\.pages)
            : try walk.walk(meta.free, what: "the free tree") { key, value throws(StorageError) in
                guard key.count == WriteTransaction.freeKeySize, value.count % 4 == 0 else {
                    throw inconsistent("the free tree has a record of impossible size")
                }
                return (0..<(value.count / 4)).map { value.baseAddress!.u32(4 * $0) }
            }
        guard meta.free.root != 0 || UInt64(records.count) == meta.free.count else {
            throw inconsistent("the inline free list holds \(records.count) records but records \(meta.free.count)")
        }
        var freePages = 0
        for record in records {
            for number in record {
                guard number >= 2, number < meta.pageCount else {
                    throw inconsistent("the free tree lists page \(number), outside the file's \(meta.pageCount) pages")
                }
                if walk.seen[Int(number)] {
                    throw inconsistent("page \(number) is both in use and listed as free, or listed free twice")
                }
                walk.seen[Int(number)] = true
                freePages += 1
            }
        }
        guard UInt64(freePages) == meta.freePageCount else {
            throw inconsistent("the free tree lists \(freePages) pages but the meta page counts \(meta.freePageCount)")
        }
        if let leaked = walk.seen.indices.first(where: { !walk.seen[$0] }) {
            throw inconsistent("page \(leaked) is neither in use nor free (leaked)")
        }
        return VerifyReport(
            version: version, trees: treeNames.count, entries: entries,
            reachablePages: Int(meta.pageCount) - freePages, freePages: freePages, pageCount: Int(meta.pageCount))
    }
}

private struct VerifyWalk {
    let snapshot: Snapshot
    var seen: [Bool]

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
        seen = [Bool](repeating: false, count: Int(snapshot.meta.pageCount))
        seen[0] = true
        seen[1] = true
    }

    static func inconsistent(_ snapshot: Snapshot, _ detail: String) -> StorageError {
        .corruptPage(path: snapshot.storage.name, page: 0, detail: "is the meta of a version in which \(detail)")
    }

    func inconsistent(_ detail: String) -> StorageError { Self.inconsistent(snapshot, detail) }

    /// Walks a tree, checking it, and returns `visit` of every entry in key order.
    mutating func walk<T>(
        _ state: TreeState, what: String, _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(StorageError) -> T
    ) throws(StorageError) -> [T] {
        var results: [T] = []
        var leafDepth: Int?
        var count: UInt64 = 0
        if state.root != 0 {
            try walkPage(
                state.root, depth: 0, lower: nil, upper: nil, leafDepth: &leafDepth, count: &count, what: what,
                results: &results, visit)
        }
        guard count == state.count else {
            throw inconsistent("\(what) holds \(count) entries but records \(state.count)")
        }
        return results
    }

    private mutating func claim(_ number: PageNumber, what: String) throws(StorageError) {
        guard number >= 2, number < snapshot.meta.pageCount else {
            throw inconsistent("\(what) points at page \(number), outside the file")
        }
        guard !seen[Int(number)] else { throw inconsistent("page \(number) is reachable twice (from \(what))") }
        seen[Int(number)] = true
    }

    private mutating func walkPage<T>(
        _ number: PageNumber, depth: Int, lower: [UInt8]?, upper: [UInt8]?, leafDepth: inout Int?, count: inout UInt64,
        what: String, results: inout [T], _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(StorageError) -> T
    ) throws(StorageError) {
        try claim(number, what: what)
        guard depth <= BTree.maxDepth else { throw inconsistent("\(what) is deeper than any sound tree") }
        let p = snapshot.mapping.page(number)
        if let problem = PageCheck.problem(
            p, number: number, layout: snapshot.layout, pageCount: snapshot.meta.pageCount, maxVersion: snapshot.version)
        {
            throw .corruptPage(path: snapshot.storage.name, page: number, detail: problem)
        }
        try BTree.checkTreePage(snapshot, p, number)
        let entries = PageHeader.count(p)
        func inBounds(_ key: UnsafeRawBufferPointer) -> Bool {
            if let lower, compareKeys(key, lower.withUnsafeBytes { $0 }) < 0 { return false }
            if let upper, compareKeys(key, upper.withUnsafeBytes { $0 }) >= 0 { return false }
            return true
        }
        if PageHeader.isLeaf(p) {
            if let expected = leafDepth, expected != depth { throw inconsistent("\(what) has leaves at depths \(expected) and \(depth)") }
            leafDepth = depth
            for i in 0..<entries {
                let key = PageHeader.leafKey(p, i)
                guard inBounds(key) else {
                    throw .corruptPage(path: snapshot.storage.name, page: number, detail: "holds a key outside the range its parent assigns")
                }
                if PageHeader.leafValueField(p, i) == PageLayout.overflowMarker {
                    let first = PageHeader.leafStored(p, i).baseAddress!.u32(0)
                    let run = snapshot.mapping.page(first)
                    try claim(first, what: what)
                    if let problem = PageCheck.problem(
                        run, number: first, layout: snapshot.layout, pageCount: snapshot.meta.pageCount, maxVersion: snapshot.version)
                    {
                        throw .corruptPage(path: snapshot.storage.name, page: first, detail: problem)
                    }
                    for extra in 1..<max(1, PageHeader.overflowPages(run)) { try claim(first + PageNumber(extra), what: what) }
                }
                results.append(try visit(key, try BTree.value(snapshot, leaf: p, index: i)))
                count += 1
            }
            return
        }
        for i in 0..<entries {
            let childLower = i == 0 ? lower : Array(PageHeader.branchKey(p, i))
            let childUpper = i + 1 < entries ? Array(PageHeader.branchKey(p, i + 1)) : upper
            if i > 0, let key = childLower {
                guard key.withUnsafeBytes({ inBounds($0) }) else {
                    throw .corruptPage(path: snapshot.storage.name, page: number, detail: "holds a separator outside the range its parent assigns")
                }
            }
            let before = count
            try walkPage(
                PageHeader.child(p, i), depth: depth + 1, lower: childLower, upper: childUpper, leafDepth: &leafDepth,
                count: &count, what: what, results: &results, visit)
            guard count - before == PageHeader.childEntries(p, i) else {
                throw .corruptPage(
                    path: snapshot.storage.name, page: number,
                    detail: "says child \(i) holds \(PageHeader.childEntries(p, i)) entries, but it holds \(count - before)")
            }
        }
    }
}
