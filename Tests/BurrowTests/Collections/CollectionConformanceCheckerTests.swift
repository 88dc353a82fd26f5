import BurrowTestTraits
import Testing

/// An array that breaks one collection requirement, chosen by `flaw`, or none.
private struct FlawedCollection: RandomAccessCollection, MutableCollection {
    enum Flaw: CaseIterable, Sendable {
        case none, underestimateTooHigh, singlePassIterator, countOffByOne, firstWrong, lastWrong, limitIgnored, indexBeforeSkips
        case distanceWithoutSign, swapIgnored, subscriptSetIgnored
    }

    /// Where every iterator of one value reads: shared, so that a second pass finds nothing.
    final class SharedCursor {
        var position = 0
    }

    var elements: [Int]
    let flaw: Flaw
    let cursor = SharedCursor()

    var startIndex: Int { 0 }
    var endIndex: Int { elements.count }

    subscript(position: Int) -> Int {
        get { elements[position] }
        set { if flaw != .subscriptSetIgnored { elements[position] = newValue } }
    }

    var underestimatedCount: Int { flaw == .underestimateTooHigh ? elements.count + 1 : elements.count }
    var count: Int { flaw == .countOffByOne ? elements.count + 1 : elements.count }
    var first: Int? { flaw == .firstWrong ? elements.last : elements.first }
    var last: Int? { flaw == .lastWrong ? elements.first : elements.last }

    func index(before i: Int) -> Int { flaw == .indexBeforeSkips && i > 1 ? i - 2 : i - 1 }

    func index(_ i: Int, offsetBy distance: Int, limitedBy limit: Int) -> Int? {
        let j = i + distance
        let passesLimit = distance >= 0 ? limit >= i && j > limit : limit <= i && j < limit
        return passesLimit && flaw != .limitIgnored ? nil : j
    }

    func distance(from start: Int, to end: Int) -> Int { flaw == .distanceWithoutSign ? abs(end - start) : end - start }

    mutating func swapAt(_ i: Int, _ j: Int) {
        if flaw != .swapIgnored { elements.swapAt(i, j) }
    }

    struct Iterator: IteratorProtocol {
        let elements: [Int]
        let cursor: SharedCursor
        var position = 0
        let shared: Bool

        mutating func next() -> Int? {
            let at = shared ? cursor.position : position
            guard at < elements.count else { return nil }
            if shared { cursor.position += 1 } else { position += 1 }
            return elements[at]
        }
    }

    func makeIterator() -> Iterator { Iterator(elements: elements, cursor: cursor, shared: flaw == .singlePassIterator) }
}

extension FlawedCollection: OwnCollectionMembers {
    var ownFirst: Any? { first.map { $0 } }
    var ownLast: Any? { last.map { $0 } }
    var ownMapped: [Any] { map { $0 } }
}

/// The conformance checkers themselves: an array and a faithful collection pass them, and a
/// collection with any one flaw fails them.
@Suite(.temporaryDirectory) struct CollectionConformanceCheckerTests {
    static let contents = [3, 1, 4, 1, 5, 9]

    @Test func faithfulCollectionsPass() {
        checkMutableCollection(Self.contents, expectedContents: Self.contents, replacement: 7)
        checkMutableCollection(FlawedCollection(elements: Self.contents, flaw: .none), expectedContents: Self.contents, replacement: 7)
        checkMutableCollection(FlawedCollection(elements: [], flaw: .none), expectedContents: [], replacement: 7)
        checkRandomAccessCollection(Self.contents[2...], expectedContents: Array(Self.contents[2...]))
        checkSequence(Self.contents.lazy.map { $0 * 2 }, expectedContents: Self.contents.map { $0 * 2 })
    }

    @Test(arguments: FlawedCollection.Flaw.allCases.filter { $0 != .none })
    fileprivate func eachFlawIsCaught(flaw: FlawedCollection.Flaw) {
        withKnownIssue {
            checkMutableCollection(FlawedCollection(elements: [3, 1, 4], flaw: flaw), expectedContents: [3, 1, 4], replacement: 7)
        }
    }
}
