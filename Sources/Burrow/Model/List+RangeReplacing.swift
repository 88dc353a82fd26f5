import BurrowStorage
import Foundation

/// RealmSwift's range-replacing forms of a list's changes, and the offset forms SwiftUI's
/// `onDelete` and `onMove` hand over: each is a series of single inserts, removes and moves
/// (O(log n) each when managed), so a managed list needs a write transaction, as for `append`.
/// A range, count or offset out of bounds traps before anything changes, where RealmSwift
/// raises an exception.
extension List {
    /// Replaces the elements in `subrange` with `newElements` (which may be fewer or more).
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C)
    where C.Element == Element, R.Bound == Int {
        let range = checkedRange(subrange)
        // Copied first: `newElements` may be a slice of this very list.
        let replacements = Array(newElements)
        let kept = Swift.min(range.count, replacements.count)
        for offset in 0..<kept { self[range.lowerBound + offset] = replacements[offset] }
        for _ in kept..<range.count { remove(at: range.lowerBound + kept) }
        for offset in kept..<replacements.count { insert(replacements[offset], at: range.lowerBound + offset) }
    }

    /// Removes the elements in `bounds`.
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        let range = checkedRange(bounds)
        for _ in range { remove(at: range.lowerBound) }
    }

    /// Inserts `newElements` at `index` (0 through `count`), in their order.
    public func insert<C: Collection>(contentsOf newElements: C, at index: Int) where C.Element == Element {
        precondition(index >= 0 && index <= count, "Index \(index) is out of bounds (the list has \(counted(count, "element")))")
        for (offset, element) in Array(newElements).enumerated() { insert(element, at: index + offset) }
    }

    /// Removes the first `number` elements (one by default). Traps if the list has fewer.
    public func removeFirst(_ number: Int = 1) {
        checkRemovable(number)
        for _ in 0..<number { remove(at: 0) }
    }

    /// Removes the last `number` elements (one by default). Traps if the list has fewer.
    public func removeLast(_ number: Int = 1) {
        checkRemovable(number)
        for _ in 0..<number { remove(at: count - 1) }
    }

    /// Removes the elements at `offsets`, as `.onDelete(perform: person.dogs.remove)` asks.
    public func remove(atOffsets offsets: IndexSet) {
        checkOffsets(offsets, destination: nil)
        for offset in offsets.reversed() { remove(at: offset) }
    }

    /// Moves the elements at `offsets` to just before the element at `destination` (0 through
    /// `count`), keeping their order, as `.onMove(perform: person.dogs.move)` asks and
    /// `Array.move(fromOffsets:toOffset:)` does. The elements themselves move: an embedded
    /// object stays the same object.
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        checkOffsets(offsets, destination: destination)
        for (from, to) in QuickWriteOffsets.moves(of: offsets, to: destination) { move(from: from, to: to) }
    }

    private func checkedRange<R: RangeExpression>(_ bounds: R) -> Range<Int> where R.Bound == Int {
        let count = self.count
        let range = bounds.relative(to: 0..<count)
        precondition(
            range.lowerBound >= 0 && range.upperBound <= count,
            "Range \(range) is out of bounds (the list has \(counted(count, "element")))")
        return range
    }

    private func checkRemovable(_ number: Int) {
        let count = self.count
        precondition(number >= 0, "Cannot remove a negative number of elements (\(number))")
        precondition(number <= count, "Cannot remove \(counted(number, "element")) from a list of \(counted(count, "element"))")
    }

    private func checkOffsets(_ offsets: IndexSet, destination: Int?) {
        do {
            try QuickWriteOffsets.check(offsets, count: count, allowingEnd: destination)
        } catch {
            preconditionFailure(error.description)
        }
    }
}

extension List: Equatable {
    /// Whether two lists are equal, as RealmSwift's `==`: the same managed list (of the same
    /// object and property), or, both unmanaged, lists of equal elements in the same order.
    public static func == (lhs: List, rhs: List) -> Bool {
        lhs === rhs || lhs.sameness(as: rhs).isEqual { lhs.unmanagedElements == rhs.unmanagedElements }
    }

    /// Whether `object` is a list equal to this one (`==`), as RealmSwift's `isEqual(_:)`.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? List else { return false }
        return self == other
    }
}
