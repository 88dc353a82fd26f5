import BurrowStore

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

    /// The changes between two orderings of elements that may repeat (a list's values or
    /// links). The common beginning and end are kept as they are, so one insertion, removal or
    /// replacement is reported as just that. In between, the fewest deletions and insertions
    /// (a longest common subsequence) while that part is small (`exactLimit` pairs of
    /// positions); past that, the n-th of equal elements before and after the change are taken
    /// to be the same one, in O(n log n).
    init<Element: Hashable>(repeating old: [Element], _ new: [Element], isModified: (Element) -> Bool) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
            suffix += 1
        }
        let (a, b) = (old[prefix..<(old.count - suffix)], new[prefix..<(new.count - suffix)])
        let middle =
            a.count * b.count <= Self.exactLimit
            ? CollectionDiff(commonSubsequenceOf: a, b, isModified: isModified)
            : CollectionDiff(old: Occurrence.numbering(a), new: Occurrence.numbering(b)) { isModified($0.element) }
        deletions = middle.deletions.map { $0 + prefix }
        insertions = middle.insertions.map { $0 + prefix }
        modifications =
            (0..<prefix).filter { isModified(new[$0]) } + middle.modifications.map { $0 + prefix }
            + ((new.count - suffix)..<new.count).filter { isModified(new[$0]) }
    }

    /// Above this many pairs of positions, a list's changed middle is diffed by occurrence
    /// rather than exactly (the exact diff takes time and memory in their product).
    static let exactLimit = 1 << 20

    /// The changes that keep a longest common subsequence of `a` and `b` (indices from 0 in
    /// each), by dynamic programming over the two.
    private init<Element: Equatable>(commonSubsequenceOf a: ArraySlice<Element>, _ b: ArraySlice<Element>, isModified: (Element) -> Bool) {
        let (n, m) = (a.count, b.count)
        let (a, b) = (Array(a), Array(b))
        // lengths[i * (m + 1) + j]: the longest common subsequence of a[i...] and b[j...].
        var lengths = [Int32](repeating: 0, count: (n + 1) * (m + 1))
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i * (m + 1) + j] =
                    a[i] == b[j]
                    ? lengths[(i + 1) * (m + 1) + j + 1] + 1
                    : max(lengths[(i + 1) * (m + 1) + j], lengths[i * (m + 1) + j + 1])
            }
        }
        var (i, j) = (0, 0)
        while i < n && j < m {
            if a[i] == b[j] {
                if isModified(b[j]) { modifications.append(j) }
                i += 1
                j += 1
            } else if lengths[(i + 1) * (m + 1) + j] >= lengths[i * (m + 1) + j + 1] {
                deletions.append(i)
                i += 1
            } else {
                insertions.append(j)
                j += 1
            }
        }
        deletions += i..<n
        insertions += j..<m
    }

    /// An element told apart from equal ones by its occurrence (the n-th equal one).
    private struct Occurrence<Element: Hashable>: Hashable {
        let element: Element
        let n: Int

        static func numbering(_ elements: ArraySlice<Element>) -> [Occurrence] {
            var seen: [Element: Int] = [:]
            return elements.map { element in
                let n = seen[element, default: 0]
                seen[element] = n + 1
                return Occurrence(element: element, n: n)
            }
        }
    }

    /// The positions in `values` of a longest strictly increasing subsequence (patience sorting,
    /// O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // positions in `values` ending the best run of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
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
