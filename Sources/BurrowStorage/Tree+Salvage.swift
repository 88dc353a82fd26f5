/// One thing wrong with a version of a file, as `Snapshot.check` and the salvage walk find it:
/// a damaged page (its number, the tree it belongs to, what is wrong, and what it held as far as
/// its parent tells), or an inconsistency of the version as a whole (page 0, the meta).
package struct PageProblem: Sendable, Equatable, CustomStringConvertible {
    /// The page at fault; 0 for a problem of the version as a whole, which its meta describes.
    package var page: PageNumber
    /// The tree the page belongs to (`rows/3`, `index/3/1`), or nil for the catalog, the free
    /// tree and the meta.
    package var tree: String?
    /// What the page belongs to, in words: `tree "rows/3"`, `the catalog`, `the free tree`.
    package var owner: String
    /// What is wrong, as the end of a sentence that starts with "page *n*".
    package var detail: String
    /// Whether the entries under the page could not be read (the walk skipped them), as opposed
    /// to a page whose entries were read but whose bookkeeping disagrees.
    package var isUnreadable: Bool
    /// How many entries were recorded under the page when it was skipped: what its parent
    /// branch records for it, or for a tree's root the tree's count; for a damaged overflow
    /// page, 1 (the entry whose value it holds).
    package var lostEntries: UInt64?
    /// The keys the skipped entries lie within: from `lowerKey` (inclusive; nil for the tree's
    /// first key) up to `upperKey` (exclusive; nil for past its last), as the parent assigns them.
    package var lowerKey: [UInt8]?
    package var upperKey: [UInt8]?

    /// The error `Snapshot.verify()` throws for this problem.
    package func error(path: String) -> StorageError {
        .corruptPage(path: path, page: page, detail: detail)
    }

    /// How `detail` begins for a problem of the version as a whole (page 0).
    static let inconsistencyPrefix = "is the meta of a version in which "

    package var description: String {
        guard page == 0 else { return "page \(page) (\(owner)) \(detail)" }
        return "the version is inconsistent: "
            + (detail.hasPrefix(Self.inconsistencyPrefix) ? String(detail.dropFirst(Self.inconsistencyPrefix.count)) : detail)
    }
}

/// A walk of a version's trees that checks every page it reaches afresh (checksum, structure,
/// keys within the range the parent assigns, depth) and goes on past a page that fails: the
/// page's subtree is skipped and recorded as a `PageProblem`, and the entries of every sound
/// page are visited, in key order, exactly once. A page reached a second time (from another
/// tree, or by a loop) is a problem too and is not read again, so no entry is visited twice.
///
/// `Snapshot.check` builds on it to list every problem of a version; the salvage of a damaged
/// file reads through it. Descents are bounded by `BTree.maxDepth`, so the recursion is as deep
/// as a sound tree at most, whatever the file holds.
package final class PageWalk {
    package let snapshot: Snapshot
    /// Which pages the walk has reached (the two meta pages from the start).
    private(set) var seen: [Bool]
    /// The problems found, up to `problemLimit`, in the order met.
    package private(set) var problems: [PageProblem] = []
    /// Problems found past the limit, counted but not listed.
    package private(set) var unlistedProblems = 0
    /// Whether some subtree was skipped: pages below it were never reached, so the walk cannot
    /// tell which pages are in use.
    package private(set) var skippedPages = false
    private let problemLimit: Int

    /// A walk of `snapshot` that lists at most `problemLimit` problems and counts the rest.
    package init(_ snapshot: Snapshot, problemLimit: Int = 100) {
        self.snapshot = snapshot
        self.problemLimit = max(1, problemLimit)
        seen = [Bool](repeating: false, count: Int(snapshot.meta.pageCount))
        seen[0] = true
        seen[1] = true
    }

    /// Records `problem`.
    func record(_ problem: PageProblem) {
        if problem.isUnreadable { skippedPages = true }
        if problems.count < problemLimit {
            problems.append(problem)
        } else {
            unlistedProblems += 1
        }
    }

    /// Records an inconsistency of the version as a whole (page 0).
    func recordInconsistency(_ detail: String, tree: String? = nil) {
        record(PageProblem(page: 0, tree: tree, owner: "the meta", detail: PageProblem.inconsistencyPrefix + detail, isUnreadable: false))
    }

    /// Marks page `number` reached. Records a problem and returns false when it lies outside
    /// the file or was reached before.
    func claim(_ number: PageNumber, tree: String?, owner: String) -> Bool {
        guard number >= 2, number < snapshot.meta.pageCount else {
            recordInconsistency("\(owner) points at page \(number), outside the file", tree: tree)
            skippedPages = true
            return false
        }
        guard !seen[Int(number)] else {
            recordInconsistency("page \(number) is reachable twice (from \(owner))", tree: tree)
            return false
        }
        seen[Int(number)] = true
        return true
    }

    /// Marks page `number`, which is not in use, as accounted for (a page listed free).
    func markFree(_ number: PageNumber) {
        seen[Int(number)] = true
    }

    /// Walks the tree `state` (called `tree`, nil for the catalog and the free tree; `owner`
    /// names it in problems) and calls `visit` with every entry of its sound pages in key order,
    /// until `visit` returns false. Returns how many entries it visited.
    @discardableResult
    package func walk(
        _ state: TreeState, tree: String?, owner: String,
        _ visit: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool
    ) -> UInt64 {
        var context = Context(tree: tree, owner: owner)
        if state.root != 0 {
            walkPage(state.root, depth: 0, lower: nil, upper: nil, recorded: state.count, &context, visit)
        }
        if !context.stopped, context.count != state.count {
            recordInconsistency("\(owner) holds \(counted(context.count, "entry")) but records \(state.count)", tree: tree)
        }
        return context.visited
    }

    /// What one tree's walk carries from page to page.
    private struct Context {
        let tree: String?
        let owner: String
        var leafDepth: Int?
        /// Entries read, plus those the parents record under skipped pages.
        var count: UInt64 = 0
        /// Entries passed to `visit`.
        var visited: UInt64 = 0
        /// Whether `visit` asked to stop.
        var stopped = false
    }

    private func skip(
        _ number: PageNumber, _ detail: String, recorded: UInt64?, lower: [UInt8]?, upper: [UInt8]?, _ context: inout Context
    ) {
        record(
            PageProblem(
                page: number, tree: context.tree, owner: context.owner, detail: detail, isUnreadable: true, lostEntries: recorded,
                lowerKey: lower, upperKey: upper))
        context.count += recorded ?? 0
    }

    private func walkPage(
        _ number: PageNumber, depth: Int, lower: [UInt8]?, upper: [UInt8]?, recorded: UInt64?, _ context: inout Context,
        _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool
    ) {
        guard claim(number, tree: context.tree, owner: context.owner) else {
            context.count += recorded ?? 0
            return
        }
        guard depth <= BTree.maxDepth else {
            return skip(number, "lies deeper than any sound tree reaches", recorded: recorded, lower: lower, upper: upper, &context)
        }
        let p = snapshot.mapping.page(number)
        if let problem = PageCheck.problem(
            p, number: number, layout: snapshot.layout, pageCount: snapshot.meta.pageCount, maxVersion: snapshot.version,
            format: snapshot.meta.format)
        {
            return skip(number, problem, recorded: recorded, lower: lower, upper: upper, &context)
        }
        guard PageHeader.isLeaf(p) || PageHeader.kind(p) == PageKind.branch.rawValue else {
            return skip(number, "is reached as a tree page but is an overflow page", recorded: recorded, lower: lower, upper: upper, &context)
        }
        let entries = PageHeader.count(p)
        func inBounds(_ key: UnsafeRawBufferPointer) -> Bool {
            if let lower, compareKeys(key, lower.withUnsafeBytes { $0 }) < 0 { return false }
            if let upper, compareKeys(key, upper.withUnsafeBytes { $0 }) >= 0 { return false }
            return true
        }
        if PageHeader.isLeaf(p) {
            for i in 0..<entries where !PageHeader.withLeafKey(p, i, inBounds) {
                return skip(
                    number, "holds a key outside the range its parent assigns", recorded: recorded, lower: lower, upper: upper, &context)
            }
            if let expected = context.leafDepth, expected != depth {
                recordInconsistency("\(context.owner) has leaves at depths \(expected) and \(depth)", tree: context.tree)
            }
            context.leafDepth = depth
            for i in 0..<entries {
                context.count += 1
                guard let value = overflowChecked(p, i, &context) else { continue }
                context.visited += 1
                guard PageHeader.withLeafKey(p, i, { visit($0, value) }) else {
                    context.stopped = true
                    return
                }
            }
            return
        }
        for i in 1..<max(1, entries) where !inBounds(PageHeader.branchKey(p, i)) {
            return skip(
                number, "holds a separator outside the range its parent assigns", recorded: recorded, lower: lower, upper: upper, &context)
        }
        for i in 0..<entries {
            let childLower = i == 0 ? lower : Array(PageHeader.branchKey(p, i))
            let childUpper = i + 1 < entries ? Array(PageHeader.branchKey(p, i + 1)) : upper
            let childRecorded = PageHeader.childEntries(p, i)
            let before = context.count
            walkPage(
                PageHeader.child(p, i), depth: depth + 1, lower: childLower, upper: childUpper, recorded: childRecorded, &context, visit)
            if context.stopped { return }
            if context.count - before != childRecorded {
                record(
                    PageProblem(
                        page: number, tree: context.tree, owner: context.owner,
                        detail: "says child \(i) holds \(counted(childRecorded, "entry")), but it holds \(context.count - before)",
                        isUnreadable: false))
            }
        }
    }

    /// The value of entry `i` of leaf `p`, its overflow run claimed and checked; nil, with the
    /// run recorded as a problem, when the run is damaged.
    private func overflowChecked(_ p: UnsafeRawPointer, _ i: Int, _ context: inout Context) -> UnsafeRawBufferPointer? {
        guard PageHeader.leafIsOverflow(p, i) else { return PageHeader.leafStored(p, i) }
        let key = PageHeader.leafKeyBytes(p, i)
        let first = PageHeader.leafStored(p, i).baseAddress!.u32(0)
        func lost(_ detail: String) -> UnsafeRawBufferPointer? {
            record(
                PageProblem(
                    page: first, tree: context.tree, owner: context.owner, detail: detail, isUnreadable: true, lostEntries: 1,
                    lowerKey: key, upperKey: key + [0]))
            return nil
        }
        guard claim(first, tree: context.tree, owner: context.owner) else { return nil }
        let run = snapshot.mapping.page(first)
        if let problem = PageCheck.problem(
            run, number: first, layout: snapshot.layout, pageCount: snapshot.meta.pageCount, maxVersion: snapshot.version,
            format: snapshot.meta.format)
        {
            return lost(problem)
        }
        for extra in 1..<max(1, PageHeader.overflowPages(run)) {
            guard claim(first + PageNumber(extra), tree: context.tree, owner: context.owner) else { return nil }
        }
        do {
            return try BTree.value(snapshot, leaf: p, index: i)
        } catch {
            return lost("holds a value that does not fit its overflow run")
        }
    }
}

extension Snapshot {
    /// The trees of this version by name, in byte order, as far as the catalog can be read:
    /// a catalog entry on a damaged page is missing, and recorded in `walk`.
    package func soundTrees(_ walk: PageWalk) -> [(name: String, state: TreeState)] {
        if meta.catalog.root == 0 {
            return meta.inlineCatalog.entries.map { (String(decoding: $0.name, as: UTF8.self), $0.state) }
        }
        var trees: [(name: String, state: TreeState)] = []
        walk.walk(meta.catalog, tree: nil, owner: "the catalog") { key, value in
            let name = String(decoding: key, as: UTF8.self)
            if value.count == TreeState.encodedSize {
                trees.append((name, TreeState.decode(value.baseAddress!)))
            } else {
                walk.recordInconsistency("the catalog entry \"\(name)\" has \(counted(value.count, "byte"))")
            }
            return true
        }
        return trees
    }
}
