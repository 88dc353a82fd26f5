import Testing

// Checkers of the semantic requirements of `Sequence`, `Collection`, `BidirectionalCollection`,
// `RandomAccessCollection` and `MutableCollection`, after the conformance checkers of
// swift-collections (`_CollectionsTestSupport`), written for Swift Testing.
//
// Each checker compares a collection with `expectedContents`, a plain array of what it should
// hold. Elements are compared through `key`, which maps an element to something `Equatable`
// (an object to its name, a section to its key and names); collections of `Equatable` values
// have overloads that compare the elements themselves. A failure is recorded at the caller's
// `sourceLocation`, and its comment names the check and the positions involved.
//
// The collection is an autoclosure: it is evaluated anew where a fresh value matters. Burrow's
// live collections answer `first`, `count` and `isEmpty` by shortcuts before they are evaluated
// (an index probe, a tree's count), so those are asked of a fresh value first, then of one
// that has been read.

// MARK: A type's own members

/// What a collection type declares of its own under the name of a standard-library extension
/// member that is no protocol requirement (`first`, `last`, `map`): generic code, these
/// checkers included, calls the extension's and never the type's own. A type with such members
/// conforms (where it is checked), each requirement answering with the type's own member, and
/// the checkers compare those with the expected contents too: `ownFirst` and `ownLast` of a
/// fresh value first, as `first` is.
protocol OwnCollectionMembers {
    /// The type's own `first`.
    var ownFirst: Any? { get }
    /// The type's own `last`.
    var ownLast: Any? { get }
    /// The elements through the type's own `map`.
    var ownMapped: [Any] { get }
}

// MARK: Sequence

/// Checks `Sequence`'s requirements: `underestimatedCount` is at most the number of elements,
/// `withContiguousStorageIfAvailable` (if it gives storage) holds the elements, and the sequence
/// is multi-pass: iterators made from one value, run one after the other or interleaved, each
/// yield `expectedContents` and then nil, again and again.
func checkSequence<S: Sequence, Key: Equatable>(
    _ sequence: @autoclosure () throws -> S, expectedContents: [Key], by key: (S.Element) -> Key,
    sourceLocation: SourceLocation = #_sourceLocation
) rethrows {
    let sequence = try sequence()
    let underestimate = sequence.underestimatedCount
    #expect(underestimate >= 0 && underestimate <= expectedContents.count, "underestimatedCount \(underestimate)", sourceLocation: sourceLocation)
    // Whether the checks so far hold: the standard library's algorithms checked last trust
    // `underestimatedCount` and iteration, and trap on a sequence that breaks them.
    var sound = underestimate >= 0 && underestimate <= expectedContents.count

    let contiguous: [Key]? = sequence.withContiguousStorageIfAvailable { $0.map(key) }
    if let contiguous {
        #expect(contiguous == expectedContents, "withContiguousStorageIfAvailable", sourceLocation: sourceLocation)
    }

    for pass in 0..<2 {
        var iterator = sequence.makeIterator()
        var found: [Key] = []
        // Bounded, so that an iterator that never ends fails instead of hanging.
        while found.count <= expectedContents.count, let element = iterator.next() { found.append(key(element)) }
        #expect(found == expectedContents, "iteration, pass \(pass)", sourceLocation: sourceLocation)
        sound = sound && found == expectedContents
        #expect(iterator.next() == nil && iterator.next() == nil, "an ended iterator goes on giving nil", sourceLocation: sourceLocation)
    }

    // Two iterators of one value are independent of each other.
    var first = sequence.makeIterator()
    var second = sequence.makeIterator()
    var firstFound: [Key] = []
    var secondFound: [Key] = []
    for _ in 0...expectedContents.count {
        if let element = first.next() { firstFound.append(key(element)) }
        if let element = second.next() { secondFound.append(key(element)) }
    }
    #expect(firstFound == expectedContents && secondFound == expectedContents, "interleaved iterators", sourceLocation: sourceLocation)
    guard sound && firstFound == expectedContents && secondFound == expectedContents else { return }

    // What the standard library's algorithms build on: copying into an array, `map`, `reduce`.
    #expect(Array(sequence).map(key) == expectedContents, "Array(_:)", sourceLocation: sourceLocation)
    #expect(sequence.map(key) == expectedContents, "map", sourceLocation: sourceLocation)
    #expect(sequence.reduce(into: []) { $0.append(key($1)) } == expectedContents, "reduce", sourceLocation: sourceLocation)
}

// MARK: Collection

/// Checks `Collection`'s requirements (and `Sequence`'s): `count`, `isEmpty` and `first`; the
/// indices `index(after:)` and `formIndex(after:)` walk, and `indices`; subscripts; indices
/// ordered as the elements are; `index(_:offsetBy:)`, `index(_:offsetBy:limitedBy:)` and
/// `distance(from:to:)` for every pair of indices (and limits passed); slices of every range,
/// with the base's indices; `prefix`, `dropFirst` and the partial-range subscripts.
func checkCollection<C: Collection, Key: Equatable>(
    _ collection: @autoclosure () throws -> C, expectedContents: [Key], by key: (C.Element) -> Key,
    sourceLocation: SourceLocation = #_sourceLocation
) rethrows {
    let expected = expectedContents
    let (forOwnFirst, forFirst, forCount, forIsEmpty) = (try collection(), try collection(), try collection(), try collection())
    if let own = forOwnFirst as? any OwnCollectionMembers {
        #expect((own.ownFirst as? C.Element).map(key) == expected.first, "the type's own first (of a fresh value)", sourceLocation: sourceLocation)
    }
    #expect(forFirst.first.map(key) == expected.first, "first (of a fresh value)", sourceLocation: sourceLocation)
    #expect(forCount.count == expected.count, "count (of a fresh value)", sourceLocation: sourceLocation)
    #expect(forIsEmpty.isEmpty == expected.isEmpty, "isEmpty (of a fresh value)", sourceLocation: sourceLocation)

    let c = try collection()
    #expect(c.count == expected.count, "count", sourceLocation: sourceLocation)
    // The standard library's algorithms trust `count`, and trap on a collection whose count is
    // wrong: the checks stop here.
    guard c.count == expected.count else { return }
    checkSequence(c, expectedContents: expected, by: key, sourceLocation: sourceLocation)
    #expect(c.isEmpty == expected.isEmpty, "isEmpty", sourceLocation: sourceLocation)
    #expect(c.first.map(key) == expected.first, "first", sourceLocation: sourceLocation)
    if let own = c as? any OwnCollectionMembers {
        #expect((own.ownFirst as? C.Element).map(key) == expected.first, "the type's own first", sourceLocation: sourceLocation)
        #expect(own.ownMapped.compactMap { $0 as? C.Element }.map(key) == expected, "the type's own map", sourceLocation: sourceLocation)
    }
    #expect((c.startIndex == c.endIndex) == expected.isEmpty, "startIndex == endIndex exactly when empty", sourceLocation: sourceLocation)

    let forward = c.indicesWalkingForward(limit: expected.count)
    #expect(forward.count == expected.count, "index(after:) reaches endIndex in count steps", sourceLocation: sourceLocation)
    var formed: [C.Index] = []
    var position = c.startIndex
    while position != c.endIndex && formed.count <= expected.count {
        formed.append(position)
        c.formIndex(after: &position)
    }
    #expect(formed == forward, "formIndex(after:) walks as index(after:)", sourceLocation: sourceLocation)
    guard forward.count == expected.count else { return }

    #expect(forward.map { key(c[$0]) } == expected, "subscript at each index", sourceLocation: sourceLocation)
    #expect(Array(c.indices) == forward, "indices", sourceLocation: sourceLocation)
    #expect(c.indices.count == expected.count, "indices.count", sourceLocation: sourceLocation)

    let all = forward + [c.endIndex]
    for i in all.indices {
        for j in all.indices {
            let (a, b) = (all[i], all[j])
            let consistent = (a == b) == (i == j) && (a < b) == (i < j) && (a <= b) == (i <= j) && (a > b) == (i > j) && (a >= b) == (i >= j)
            #expect(consistent, "indices \(i) and \(j) compare as their positions", sourceLocation: sourceLocation)
        }
    }

    for i in all.indices {
        for j in i..<all.count {
            #expect(c.index(all[i], offsetBy: j - i) == all[j], "index(\(i), offsetBy: \(j - i))", sourceLocation: sourceLocation)
            #expect(c.distance(from: all[i], to: all[j]) == j - i, "distance(from: \(i), to: \(j))", sourceLocation: sourceLocation)
            var formedIndex = all[i]
            c.formIndex(&formedIndex, offsetBy: j - i)
            #expect(formedIndex == all[j], "formIndex(\(i), offsetBy: \(j - i))", sourceLocation: sourceLocation)
            checkSlice(of: c, from: i, to: j, all: all, expectedContents: expected, by: key, sourceLocation: sourceLocation)
        }
    }

    let limitsHold = checkLimitedOffsets(of: c, indices: all, backwards: false, sourceLocation: sourceLocation)

    // `prefix` and `dropFirst` past the end trust the limit, and trap if it is not kept.
    guard limitsHold else { return }
    for k in 0...(expected.count + 1) {
        #expect(c.prefix(k).map(key) == Array(expected.prefix(k)), "prefix(\(k))", sourceLocation: sourceLocation)
        #expect(c.dropFirst(k).map(key) == Array(expected.dropFirst(k)), "dropFirst(\(k))", sourceLocation: sourceLocation)
    }
    for i in all.indices {
        #expect(c[all[i]...].map(key) == Array(expected[i...]), "[\(i)...]", sourceLocation: sourceLocation)
        #expect(c[..<all[i]].map(key) == Array(expected[..<i]), "[..<\(i)]", sourceLocation: sourceLocation)
    }
}

/// Checks `index(_:offsetBy:limitedBy:)` and `formIndex(_:offsetBy:limitedBy:)` from every index
/// of `all` (the indices and `endIndex`), with every one as the limit, by every offset in one
/// direction (backwards only for a bidirectional collection) to two past the ends: a limit at
/// or ahead of the start, in the offset's direction, stops an offset that would pass it (nil,
/// or false with the index at the limit); a limit behind does not apply. Returns whether every
/// check held.
private func checkLimitedOffsets<C: Collection>(
    of c: C, indices all: [C.Index], backwards: Bool, sourceLocation: SourceLocation
) -> Bool {
    var hold = true
    for limit in all.indices {
        for i in all.indices {
            let limitAhead = backwards ? limit <= i : limit >= i
            // The steps that stay inside, and two more where the limit stops them.
            let steps = (backwards ? i : all.count - 1 - i) + (limitAhead ? 2 : 0)
            for step in 0...steps {
                let delta = backwards ? -step : step
                let j = i + delta
                let shouldReach = !limitAhead || (backwards ? j >= limit : j <= limit)
                let actual = c.index(all[i], offsetBy: delta, limitedBy: all[limit])
                #expect(
                    actual == (shouldReach ? all[j] : nil), "index(\(i), offsetBy: \(delta), limitedBy: \(limit))", sourceLocation: sourceLocation)
                var formedIndex = all[i]
                let reached = c.formIndex(&formedIndex, offsetBy: delta, limitedBy: all[limit])
                #expect(
                    reached == shouldReach && formedIndex == (shouldReach ? all[j] : all[limit]),
                    "formIndex(\(i), offsetBy: \(delta), limitedBy: \(limit))", sourceLocation: sourceLocation)
                hold = hold && actual == (shouldReach ? all[j] : nil) && reached == shouldReach
            }
        }
    }
    return hold
}

/// Checks the slice `c[all[i]..<all[j]]`: its count, its elements, and that its indices are the
/// base's (walked, listed, subscripted, sliced again).
private func checkSlice<C: Collection, Key: Equatable>(
    of c: C, from i: Int, to j: Int, all: [C.Index], expectedContents expected: [Key], by key: (C.Element) -> Key,
    sourceLocation: SourceLocation
) {
    let slice = c[all[i]..<all[j]]
    let what = "slice [\(i)..<\(j)]"
    #expect(slice.count == j - i && slice.isEmpty == (i == j), "\(what): count", sourceLocation: sourceLocation)
    #expect(slice.startIndex == all[i] && slice.endIndex == all[j], "\(what): bounds are the base's indices", sourceLocation: sourceLocation)
    #expect(slice.map(key) == Array(expected[i..<j]), "\(what): elements", sourceLocation: sourceLocation)
    #expect(slice.first.map(key) == expected[i..<j].first, "\(what): first", sourceLocation: sourceLocation)
    #expect(slice.indicesWalkingForward(limit: j - i) == Array(all[i..<j]), "\(what): index(after:)", sourceLocation: sourceLocation)
    #expect(Array(slice.indices) == Array(all[i..<j]), "\(what): indices", sourceLocation: sourceLocation)
    #expect((i..<j).allSatisfy { key(slice[all[$0]]) == expected[$0] }, "\(what): subscript", sourceLocation: sourceLocation)
    #expect(slice.distance(from: all[i], to: all[j]) == j - i, "\(what): distance", sourceLocation: sourceLocation)
    #expect(slice.index(all[i], offsetBy: j - i) == all[j], "\(what): index(_:offsetBy:)", sourceLocation: sourceLocation)
    #expect(slice[all[i]..<all[j]].map(key) == Array(expected[i..<j]), "\(what): sliced again", sourceLocation: sourceLocation)
    #expect(Array(slice).map(key) == Array(expected[i..<j]), "\(what): Array(_:)", sourceLocation: sourceLocation)
}

extension Collection {
    /// The indices from `startIndex` by `index(after:)` up to `endIndex`, or `limit + 1` of them
    /// if `endIndex` is not reached by then.
    fileprivate func indicesWalkingForward(limit: Int) -> [Index] {
        var result: [Index] = []
        var position = startIndex
        while position != endIndex && result.count <= limit {
            result.append(position)
            position = index(after: position)
        }
        return result
    }
}

// MARK: BidirectionalCollection

/// Checks `BidirectionalCollection`'s requirements (and `Collection`'s): `last`; `index(before:)`
/// and `formIndex(before:)` walk back over the indices `index(after:)` walks; negative offsets
/// and `distance(from:to:)` backwards for every pair; `index(_:offsetBy:limitedBy:)` backwards;
/// slices walked backwards; `reversed()`, `suffix` and `dropLast`.
func checkBidirectionalCollection<C: BidirectionalCollection, Key: Equatable>(
    _ collection: @autoclosure () throws -> C, expectedContents: [Key], by key: (C.Element) -> Key,
    sourceLocation: SourceLocation = #_sourceLocation
) rethrows {
    let expected = expectedContents
    let (forOwnLast, forLast) = (try collection(), try collection())
    if let own = forOwnLast as? any OwnCollectionMembers {
        #expect((own.ownLast as? C.Element).map(key) == expected.last, "the type's own last (of a fresh value)", sourceLocation: sourceLocation)
    }
    #expect(forLast.last.map(key) == expected.last, "last (of a fresh value)", sourceLocation: sourceLocation)
    try checkCollection(try collection(), expectedContents: expected, by: key, sourceLocation: sourceLocation)

    let c = try collection()
    #expect(c.last.map(key) == expected.last, "last", sourceLocation: sourceLocation)
    if let own = c as? any OwnCollectionMembers {
        #expect((own.ownLast as? C.Element).map(key) == expected.last, "the type's own last", sourceLocation: sourceLocation)
    }
    let forward = c.indicesWalkingForward(limit: expected.count)
    guard forward.count == expected.count, c.count == expected.count else { return }
    let all = forward + [c.endIndex]

    #expect(c.indicesWalkingBackward(limit: expected.count) == forward, "index(before:) walks back from endIndex", sourceLocation: sourceLocation)
    var formed: [C.Index] = []
    var position = c.endIndex
    while position != c.startIndex && formed.count <= expected.count {
        c.formIndex(before: &position)
        formed.append(position)
    }
    #expect(formed.reversed() == forward, "formIndex(before:) walks back from endIndex", sourceLocation: sourceLocation)
    // Slices and reversed views trust `index(before:)`, and trap if it leaves their bounds.
    guard c.indicesWalkingBackward(limit: expected.count) == forward else { return }
    #expect(c.reversed().map(key) == expected.reversed(), "reversed()", sourceLocation: sourceLocation)

    for i in all.indices {
        for j in i..<all.count {
            #expect(c.index(all[j], offsetBy: i - j) == all[i], "index(\(j), offsetBy: \(i - j))", sourceLocation: sourceLocation)
            #expect(c.distance(from: all[j], to: all[i]) == i - j, "distance(from: \(j), to: \(i))", sourceLocation: sourceLocation)
            let slice = c[all[i]..<all[j]]
            #expect(
                slice.indicesWalkingBackward(limit: j - i) == Array(all[i..<j]), "slice [\(i)..<\(j)]: index(before:)", sourceLocation: sourceLocation
            )
            #expect(slice.last.map(key) == expected[i..<j].last, "slice [\(i)..<\(j)]: last", sourceLocation: sourceLocation)
        }
    }

    let limitsHold = checkLimitedOffsets(of: c, indices: all, backwards: true, sourceLocation: sourceLocation)

    // `suffix` and `dropLast` past the start trust the limit, and trap if it is not kept.
    guard limitsHold else { return }
    for k in 0...(expected.count + 1) {
        #expect(c.suffix(k).map(key) == Array(expected.suffix(k)), "suffix(\(k))", sourceLocation: sourceLocation)
        #expect(c.dropLast(k).map(key) == Array(expected.dropLast(k)), "dropLast(\(k))", sourceLocation: sourceLocation)
    }
}

extension BidirectionalCollection {
    /// The indices from `endIndex` back by `index(before:)` to `startIndex`, in increasing
    /// order, or the last `limit + 1` of them if `startIndex` is not reached by then.
    fileprivate func indicesWalkingBackward(limit: Int) -> [Index] {
        var result: [Index] = []
        var position = endIndex
        while position != startIndex && result.count <= limit {
            position = index(before: position)
            result.append(position)
        }
        return result.reversed()
    }
}

// MARK: RandomAccessCollection

/// Checks `RandomAccessCollection`'s requirements that a test can see (and
/// `BidirectionalCollection`'s): elements read by subscript in any order (backwards, in strides)
/// are the elements at those positions, and offsets of any length, in either direction, from
/// every index land where stepping does. (That they take constant time is not checked.)
func checkRandomAccessCollection<C: RandomAccessCollection, Key: Equatable>(
    _ collection: @autoclosure () throws -> C, expectedContents: [Key], by key: (C.Element) -> Key,
    sourceLocation: SourceLocation = #_sourceLocation
) rethrows {
    let expected = expectedContents
    try checkBidirectionalCollection(try collection(), expectedContents: expected, by: key, sourceLocation: sourceLocation)

    let c = try collection()
    let forward = c.indicesWalkingForward(limit: expected.count)
    guard forward.count == expected.count, c.count == expected.count, !expected.isEmpty else { return }
    // Every position visited once, in an order that jumps around: backwards, then by a stride
    // coprime with the count.
    var order = Array(expected.indices.reversed())
    let stride = expected.count % 3 == 0 ? 2 : 3
    order += (0..<expected.count).map { ($0 * stride) % expected.count }
    for p in order {
        #expect(key(c[forward[p]]) == expected[p], "subscript at \(p), read out of order", sourceLocation: sourceLocation)
        #expect(
            key(c[c.index(c.startIndex, offsetBy: p)]) == expected[p] && key(c[c.index(c.endIndex, offsetBy: p - expected.count)]) == expected[p],
            "subscript at \(p), reached by one offset from either end", sourceLocation: sourceLocation)
    }
}

// MARK: MutableCollection

/// Checks `MutableCollection`'s requirements (and `RandomAccessCollection`'s): setting an
/// element by subscript replaces that element alone; `swapAt` of every pair exchanges the two;
/// `reverse()` of the whole and of every slice (written back through the range subscript).
/// Each change is undone and checked undone, so the collection ends as it began. A managed
/// collection must be checked inside a write transaction.
///
/// `replacement` is an element to set in place of each element in turn; its key must differ
/// from every key of `expectedContents`.
func checkMutableCollection<C: MutableCollection & RandomAccessCollection, Key: Equatable>(
    _ collection: C, expectedContents: [Key], replacement: C.Element, by key: (C.Element) -> Key,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let expected = expectedContents
    checkRandomAccessCollection(collection, expectedContents: expected, by: key, sourceLocation: sourceLocation)
    var c = collection
    let all = Array(c.indices)
    guard all.count == expected.count, c.count == expected.count else { return }
    func contentsMatch(_ contents: [Key], _ what: String) {
        #expect(c.map(key) == contents, "\(what)", sourceLocation: sourceLocation)
    }

    for p in all.indices {
        let original = c[all[p]]
        c[all[p]] = replacement
        var changed = expected
        changed[p] = key(replacement)
        contentsMatch(changed, "subscript set at \(p)")
        #expect(key(c[all[p]]) == key(replacement), "subscript set at \(p), read back", sourceLocation: sourceLocation)
        c[all[p]] = original
        contentsMatch(expected, "subscript set at \(p), undone")
    }

    for i in all.indices {
        for j in all.indices {
            c.swapAt(all[i], all[j])
            var swapped = expected
            swapped.swapAt(i, j)
            contentsMatch(swapped, "swapAt(\(i), \(j))")
            c.swapAt(all[j], all[i])
            contentsMatch(expected, "swapAt(\(i), \(j)), undone")
        }
    }

    c.reverse()
    contentsMatch(expected.reversed(), "reverse()")
    c.reverse()
    contentsMatch(expected, "reverse(), undone")

    let bounds = all + [c.endIndex]
    for i in bounds.indices {
        for j in i..<bounds.count {
            c[bounds[i]..<bounds[j]].reverse()
            var reversed = expected
            reversed[i..<j].reverse()
            contentsMatch(reversed, "[\(i)..<\(j)].reverse()")
            c[bounds[i]..<bounds[j]].reverse()
            contentsMatch(expected, "[\(i)..<\(j)].reverse(), undone")
        }
    }

    let storage: [Key]? = c.withContiguousMutableStorageIfAvailable { $0.map(key) }
    if let storage {
        #expect(storage == expected, "withContiguousMutableStorageIfAvailable", sourceLocation: sourceLocation)
    }
}

// MARK: Equatable elements

// The checkers the tests call on collections of values, comparing the elements themselves.

/// `checkSequence(_:expectedContents:by:)`, comparing the elements themselves.
func checkSequence<S: Sequence>(
    _ sequence: @autoclosure () throws -> S, expectedContents: [S.Element], sourceLocation: SourceLocation = #_sourceLocation
) rethrows where S.Element: Equatable {
    try checkSequence(try sequence(), expectedContents: expectedContents, by: { $0 }, sourceLocation: sourceLocation)
}

/// `checkRandomAccessCollection(_:expectedContents:by:)`, comparing the elements themselves.
func checkRandomAccessCollection<C: RandomAccessCollection>(
    _ collection: @autoclosure () throws -> C, expectedContents: [C.Element], sourceLocation: SourceLocation = #_sourceLocation
) rethrows where C.Element: Equatable {
    try checkRandomAccessCollection(try collection(), expectedContents: expectedContents, by: { $0 }, sourceLocation: sourceLocation)
}

/// `checkMutableCollection(_:expectedContents:replacement:by:)`, comparing the elements
/// themselves.
func checkMutableCollection<C: MutableCollection & RandomAccessCollection>(
    _ collection: C, expectedContents: [C.Element], replacement: C.Element, sourceLocation: SourceLocation = #_sourceLocation
) where C.Element: Equatable {
    checkMutableCollection(collection, expectedContents: expectedContents, replacement: replacement, by: { $0 }, sourceLocation: sourceLocation)
}
