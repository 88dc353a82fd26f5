/// The index changes between two orderings of distinct elements (object keys, or a list's
/// elements told apart by occurrence), as collection change streams report them: deletions as
/// indices in the old collection, insertions and modifications as indices in the new one. An
/// element in both whose position moved relative to the others is reported as deleted and
/// inserted; the elements that keep their relative order are the longest such run.
struct CollectionDiff: Equatable, Sendable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    init(deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []) {
        self.deletions = deletions
        self.insertions = insertions
        self.modifications = modifications
    }

    init<Element: Hashable>(old: [Element], new: [Element], isModified: (Element) -> Bool) {
        if old == new {
            modifications = new.indices.filter { isModified(new[$0]) }
            return
        }
        var oldIndex: [Element: Int] = [:]
        oldIndex.reserveCapacity(old.count)
        for (index, key) in old.enumerated() { oldIndex[key] = index }
        // Objects in both, in new order, with their old index.
        var kept: [(old: Int, new: Int)] = []
        for (index, key) in new.enumerated() {
            if let before = oldIndex[key] { kept.append((before, index)) } else { insertions.append(index) }
        }
        let stays = Self.longestIncreasingRun(kept.map(\.old))
        var inNew = Set<Int>()
        for (position, pair) in kept.enumerated() {
            inNew.insert(pair.old)
            if stays.contains(position) {
                if isModified(new[pair.new]) { modifications.append(pair.new) }
            } else {
                deletions.append(pair.old)
                insertions.append(pair.new)
            }
        }
        deletions += old.indices.filter { !inNew.contains($0) }
        deletions.sort()
        insertions.sort()
    }

    /// The positions in `values` of a longest strictly increasing subsequence (patience sorting,
    /// O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // positions in `values` ending the best run of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run = Set<Int>()
        var position = tails.last ?? -1
        while position >= 0 {
            run.insert(position)
            position = previous[position]
        }
        return run
    }
}
