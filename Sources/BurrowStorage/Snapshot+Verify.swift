/// What `check()` found in a version, and what `verify()` returns for a sound one.
package struct VerifyReport: Sendable, Equatable {
    package var version: UInt64
    package var trees: Int
    package var entries: UInt64
    /// Pages reachable from the version (tree pages, overflow pages, catalog and free tree),
    /// the two meta pages included.
    package var reachablePages: Int
    package var freePages: Int
    package var pageCount: Int
    /// The problems found, up to the limit the check was given, in the order met: every
    /// damaged page the walk reached, and every inconsistency.
    package var problems: [PageProblem] = []
    /// Problems found past the limit, counted but not listed.
    package var unlistedProblems = 0

    /// Whether nothing is wrong with the version.
    package var isSound: Bool { problems.isEmpty && unlistedProblems == 0 }
}

/// A full check of one version: every tree walked, every page's checksum and structure checked
/// afresh (not trusted from earlier reads), keys in order within and across pages, leaves all at
/// one depth, entry counts as recorded, and every page either reachable exactly once or listed
/// free exactly once, never both, none missing.
extension Snapshot {
    /// Checks the version and throws `corruptPage` for the first problem found; returns the
    /// report of a sound version.
    package func verify() throws(StorageError) -> VerifyReport {
        let report = check(problemLimit: 1)
        if let first = report.problems.first { throw first.error(path: storage.name) }
        return report
    }

    /// Checks the version and lists every problem (at most `problemLimit`, counting the rest):
    /// a damaged page does not end the check, its subtree is skipped and the walk goes on with
    /// the next. Reads nothing twice and never throws.
    package func check(problemLimit: Int = 100) -> VerifyReport {
        let walk = PageWalk(self, problemLimit: problemLimit)
        let trees = soundTrees(walk)
        // An inline catalog was checked when the meta was read (names in order, roots inside
        // the file, entries as counted).
        if meta.catalog.root == 0, UInt64(trees.count) != meta.catalog.count {
            walk.recordInconsistency("the inline catalog holds \(counted(trees.count, "entry")) but records \(meta.catalog.count)")
        }
        var entries: UInt64 = 0
        for (name, state) in trees {
            walk.walk(state, tree: name, owner: "tree \"\(name)\"") { _, _ in true }
            entries += state.count
        }
        var records: [[PageNumber]] = []
        if meta.free.root == 0 {
            records = meta.inlineFree.records.map(\.pages)
            if UInt64(records.count) != meta.free.count {
                walk.recordInconsistency("the inline free list holds \(records.count) records but records \(meta.free.count)")
            }
        } else {
            walk.walk(meta.free, tree: nil, owner: "the free tree") { key, value in
                guard key.count == WriteTransaction.freeKeySize, value.count % 4 == 0 else {
                    walk.recordInconsistency("the free tree has a record of impossible size")
                    return true
                }
                records.append((0..<(value.count / 4)).map { value.baseAddress!.u32(4 * $0) })
                return true
            }
        }
        let freeTreeWhole = !walk.skippedPages
        var freePages = 0
        for record in records {
            for number in record {
                guard number >= 2, number < meta.pageCount else {
                    walk.recordInconsistency("the free tree lists page \(number), outside the file's \(counted(meta.pageCount, "page"))")
                    continue
                }
                if walk.seen[Int(number)] {
                    walk.recordInconsistency("page \(number) is both in use and listed as free, or listed free twice")
                    continue
                }
                walk.markFree(number)
                freePages += 1
            }
        }
        // Pages below a skipped subtree were never reached: which of them are in use, and how
        // many free pages a damaged free tree lists, is not known then.
        if freeTreeWhole {
            if UInt64(freePages) != meta.freePageCount {
                walk.recordInconsistency("the free tree lists \(counted(freePages, "page")) but the meta page counts \(meta.freePageCount)")
            }
            if let leaked = walk.seen.indices.first(where: { !walk.seen[$0] }) {
                walk.recordInconsistency("page \(leaked) is neither in use nor free (leaked)")
            }
        }
        return VerifyReport(
            version: version, trees: trees.count, entries: entries, reachablePages: Int(meta.pageCount) - freePages,
            freePages: freePages, pageCount: Int(meta.pageCount), problems: walk.problems, unlistedProblems: walk.unlistedProblems)
    }
}
