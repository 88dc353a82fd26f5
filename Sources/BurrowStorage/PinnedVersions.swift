/// The versions live snapshots pin, each with how many snapshots pin it (`Storage.SharedState`).
///
/// Every commit pins and unpins a few versions (its transaction's base, the committing realm's
/// new snapshot), and every transaction asks for the oldest: a list in version order answers
/// that with its first entry, and a new pin, nearly always of the latest version, is appended,
/// where a `Dictionary` hashed on every pin and scanned its keys for the oldest.
struct PinnedVersions {
    /// In ascending version order, counts above 0.
    private var entries: [(version: UInt64, count: Int)] = []

    /// How many versions are pinned.
    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    /// The oldest pinned version, if any.
    var oldest: UInt64? { entries.first?.version }

    mutating func pin(_ version: UInt64) {
        var i = entries.count
        while i > 0, entries[i - 1].version > version { i -= 1 }
        if i > 0, entries[i - 1].version == version {
            entries[i - 1].count += 1
        } else {
            entries.insert((version, 1), at: i)
        }
    }

    mutating func unpin(_ version: UInt64) {
        guard let i = entries.lastIndex(where: { $0.version == version }) else { return }
        if entries[i].count > 1 { entries[i].count -= 1 } else { entries.remove(at: i) }
    }

    /// How many snapshots pin `version` (0 if none), for tests.
    func pins(of version: UInt64) -> Int {
        entries.first { $0.version == version }?.count ?? 0
    }
}
