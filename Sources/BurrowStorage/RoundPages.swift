/// The pages written after the durable version and freed by a later version, each with the two
/// versions (`CommitState.roundFreed`; see `CommitState.roundReusablePages` for why they matter).
///
/// Every commit looks up each page it frees and each page it writes here, so this is a list
/// sorted by page number and binary-searched rather than a `Dictionary`, whose hashing cost more
/// than the rest of the bookkeeping: it holds the pages of recently rewritten paths, a few in the
/// common case and never more than were written since the last sync round.
struct RoundFreedPages {
    struct Life: Equatable {
        var written: UInt64
        var freedBy: UInt64
    }

    /// In ascending page order.
    private var entries: [(page: PageNumber, life: Life)] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// The pages, in ascending order (for tests).
    var pages: [PageNumber] { entries.map(\.page) }

    subscript(page: PageNumber) -> Life? {
        let (i, found) = sortedPageIndex(of: page, in: entries) { $0.page }
        return found ? entries[i].life : nil
    }

    /// Records (or replaces) the versions that wrote and freed `page`.
    mutating func set(_ page: PageNumber, _ life: Life) {
        let (i, found) = sortedPageIndex(of: page, in: entries) { $0.page }
        if found { entries[i].life = life } else { entries.insert((page, life), at: i) }
    }

    /// Forgets `page`; returns what was recorded for it, if anything.
    @discardableResult
    mutating func remove(_ page: PageNumber) -> Life? {
        guard !entries.isEmpty else { return nil }
        let (i, found) = sortedPageIndex(of: page, in: entries) { $0.page }
        return found ? entries.remove(at: i).life : nil
    }

    /// Keeps only the pages written after `version`.
    mutating func keepWritten(after version: UInt64) {
        entries.removeAll { $0.life.written <= version }
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}

/// How many freed pages each version after the durable one holds back from reuse
/// (`CommitState.heldBack`), with their total. Versions only grow, so a commit's count is
/// appended (or added to the last entry); a list in version order replaces a `Dictionary`
/// that hashed on every commit.
struct HeldBackPages {
    /// In ascending version order, counts above 0.
    private(set) var entries: [(version: UInt64, pages: Int)] = []
    /// The sum of the counts.
    private(set) var total = 0

    var isEmpty: Bool { entries.isEmpty }

    /// Adds `pages` (> 0) held back by `version`.
    mutating func add(_ pages: Int, version: UInt64) {
        total += pages
        if let last = entries.last, last.version == version {
            entries[entries.count - 1].pages += pages
            return
        }
        if let last = entries.last, last.version > version {
            // Not expected (commits come in version order), but kept correct.
            let i = entries.firstIndex { $0.version >= version }!
            if entries[i].version == version { entries[i].pages += pages } else { entries.insert((version, pages), at: i) }
            return
        }
        entries.append((version, pages))
    }

    /// One page held back by `version` is no longer (it was written over within its round).
    mutating func releaseOne(version: UInt64) {
        guard let i = entries.lastIndex(where: { $0.version == version }) else { return }
        total -= 1
        if entries[i].pages > 1 { entries[i].pages -= 1 } else { entries.remove(at: i) }
    }

    /// Forgets the pages held back by versions up to `version` (now durable).
    mutating func removeVersions(upTo version: UInt64) {
        let dropped = entries.prefix { $0.version <= version }
        guard !dropped.isEmpty else { return }
        total -= dropped.reduce(0) { $0 + $1.pages }
        entries.removeFirst(dropped.count)
    }

    /// The count held back by `version` (0 if none), for tests.
    func pages(heldBy version: UInt64) -> Int {
        entries.first { $0.version == version }?.pages ?? 0
    }
}
