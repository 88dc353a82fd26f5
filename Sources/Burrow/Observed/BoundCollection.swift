import BurrowStorage
import BurrowStore
import Foundation

#if canImport(SwiftUI)
import SwiftUI
#endif

/// What a quick write can change through: an observed wrapper (`$dogs` of `@ObservedResults`)
/// or a binding to a collection (`$person.dogs`). Its `wrappedValue` is the collection the
/// quick writes change, each in one write transaction of the collection's realm (or directly,
/// for an unmanaged collection), as RealmSwift's `BoundCollection`.
@MainActor
public protocol BoundCollection {
    /// The collection.
    associatedtype Value
    /// What the collection holds.
    associatedtype Element: RealmCollectionValue
    /// The collection the quick writes change.
    var wrappedValue: Value { get }
}

extension Binding: BoundCollection where Value: RealmCollection {
    public typealias Element = Value.Element
}

/// Checks quick-write offsets against a collection's `count`: a bad offset is an error the
/// wrapper reports, never a trap.
enum QuickWriteOffsets {
    static func check(_ offsets: IndexSet, count: Int, allowingEnd destination: Int? = nil) throws(RealmError) {
        if let first = offsets.first, let last = offsets.last, first < 0 || last >= count {
            throw outOfBounds(first < 0 ? first : last, count: count)
        }
        if let destination, destination < 0 || destination > count {
            throw RealmError(
                .invalidArgument,
                "Destination \(destination) is out of bounds (the collection has \(counted(count, "element"))); nothing was changed.")
        }
    }

    static func check(_ index: Int, count: Int) throws(RealmError) {
        if index < 0 || index >= count { throw outOfBounds(index, count: count) }
    }

    private static func outOfBounds(_ offset: Int, count: Int) -> RealmError {
        RealmError(.invalidArgument, "Offset \(offset) is out of bounds (the collection has \(counted(count, "element"))); nothing was changed.")
    }

    /// The single moves (`List.move(from:to:)`, applied in order) that move the elements at
    /// `offsets` to just before the element at `destination`, keeping their order, as SwiftUI's
    /// `move(fromOffsets:toOffset:)` does: one move per element, whatever the list's length.
    ///
    /// Those before the destination go first, from the last: each lands just before the one
    /// moved before it, and none of them shifts the ones still to move. Then those at or after
    /// it, from the first: each lands just after the one moved before it.
    static func moves(of offsets: IndexSet, to destination: Int) -> [(from: Int, to: Int)] {
        let before = offsets.filter { $0 < destination }
        let after = offsets.filter { $0 >= destination }
        let landing = destination - before.count
        var moves: [(from: Int, to: Int)] = []
        for (position, offset) in before.enumerated().reversed() { moves.append((offset, landing + position)) }
        for (position, offset) in after.enumerated() { moves.append((offset, destination + position)) }
        return moves
    }
}

// MARK: Results

extension ObservedResults where ResultType: Object {
    /// Adds `object` to the realm, in one write transaction: an unmanaged object becomes
    /// managed; a managed one is already there. If the query filters it out, it is added but
    /// not shown, as in RealmSwift. A failure (a duplicate primary key) changes nothing and
    /// sets `error`.
    public func append(_ object: Element) {
        appendObject(object)
    }

    /// Adds the live object of `frozen` (already in the realm, unless deleted since, which
    /// sets `error`).
    public func append(_ frozen: Frozen<Element>) {
        append(frozen.frozenObject)
    }

    /// Deletes `object` from the realm if the results show it, in one write transaction. An
    /// unmanaged object, which no realm holds, changes nothing and sets `error` (RealmSwift
    /// throws).
    public func remove(_ object: Element) {
        removeObject(object)
    }

    /// Deletes the live object of `frozen` if the results show it.
    public func remove(_ frozen: Frozen<Element>) {
        remove(frozen.frozenObject)
    }
}

extension ObservedResults {
    /// Adds the object `projection` projects to the realm, as `append` does an object.
    public func append<Root: Object>(_ projection: Element) where Element: Projection<Root> {
        appendObject(projection.rootObject)
    }

    /// Deletes the object `projection` projects if the results show it, as `remove` does an
    /// object.
    public func remove<Root: Object>(_ projection: Element) where Element: Projection<Root> {
        removeObject(projection.rootObject)
    }

    /// Deletes the objects at `offsets` of the results (those their projections project, for
    /// projections), in one write transaction, as `.onDelete(perform: $dogs.remove)` asks. An
    /// offset out of bounds changes nothing and sets `error`.
    public func remove(atOffsets offsets: IndexSet) {
        let results = storage.results
        storage.quickWrite(in: results.realm) {
            try QuickWriteOffsets.check(offsets, count: results.count)
            try results.realm?.delete(offsets.map { results[$0].shownObject })
        }
    }

    private func appendObject<O: Object>(_ object: O) {
        let results = storage.results
        storage.quickWrite(in: results.realm) { try results.realm?.add(try QuickWrite.thawingFrozen(object, into: results.realm)) }
    }

    private func removeObject<O: Object>(_ object: O) {
        let results = storage.results
        storage.quickWrite(in: results.realm) {
            guard object._state != nil else {
                throw RealmError(
                    .invalidObject,
                    "The \(O.self) to remove is unmanaged: it was never added to a realm, so the results cannot hold it; nothing was changed.")
            }
            let object = try QuickWrite.thawingFrozen(object, into: results.realm)
            if Results<O>(rebinding: results).index(of: object) != nil { try results.realm?.delete(object) }
        }
    }
}

extension RealmError {
    /// The error of a quick write given a frozen object deleted since it was frozen.
    static func deletedSince(_ type: Any.Type) -> RealmError {
        RealmError(.invalidObject, "The \(type) was deleted after it was frozen; nothing was changed.")
    }
}
