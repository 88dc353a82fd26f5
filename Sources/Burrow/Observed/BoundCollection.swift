import Foundation

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
        if let last = offsets.last, last >= count || offsets.first! < 0 {
            throw RealmError(.invalidArgument, "Offset \(last < count ? offsets.first! : last) is out of bounds (the collection has \(count) elements); nothing was changed.")
        }
        if let destination, destination < 0 || destination > count {
            throw RealmError(.invalidArgument, "Destination \(destination) is out of bounds (the collection has \(count) elements); nothing was changed.")
        }
    }

    static func check(_ index: Int, count: Int) throws(RealmError) {
        try check(IndexSet(integer: index), count: count)
    }

    /// The order of a collection's elements (as their old indices) after moving those at
    /// `offsets` to just before `destination`, keeping their order, as SwiftUI's
    /// `move(fromOffsets:toOffset:)` does.
    static func order(count: Int, moving offsets: IndexSet, to destination: Int) -> [Int] {
        let moved = offsets.map { $0 }
        let staying = (0..<count).filter { !offsets.contains($0) }
        let insertAt = staying.filter { $0 < destination }.count
        return Array(staying[..<insertAt]) + moved + Array(staying[insertAt...])
    }
}

// MARK: Results

extension ObservedResults {
    /// Adds `object` to the realm, in one write transaction: an unmanaged object becomes
    /// managed; a managed one is already there. If the query filters it out, it is added but
    /// not shown, as in RealmSwift. A failure (a duplicate primary key) changes nothing and
    /// sets `error`.
    public func append(_ object: Element) {
        let results = storage.results
        storage.quickWrite(in: results.realm) { try results.realm?.add(QuickWrite.thawed(object, into: results.realm)) }
    }

    /// Adds the live object of `frozen` (already in the realm, unless deleted since, which
    /// sets `error`).
    public func append(_ frozen: Frozen<Element>) {
        let results = storage.results
        storage.quickWrite(in: results.realm) {
            guard let realm = results.realm else { return }
            guard let object = realm.thaw(frozen) else { throw RealmError.deletedSince(Element.self) }
            try realm.add(object)
        }
    }

    /// Deletes `object` from the realm if the results show it, in one write transaction.
    public func remove(_ object: Element) {
        let results = storage.results
        storage.quickWrite(in: results.realm) {
            guard let object = try? QuickWrite.thawed(object, into: results.realm), results.index(of: object) != nil else { return }
            try results.realm?.delete(object)
        }
    }

    /// Deletes the live object of `frozen` if the results show it.
    public func remove(_ frozen: Frozen<Element>) {
        let results = storage.results
        storage.quickWrite(in: results.realm) {
            guard let object = results.realm?.thaw(frozen), results.index(of: object) != nil else { return }
            try results.realm?.delete(object)
        }
    }

    /// Deletes the objects at `offsets` of the results, in one write transaction, as
    /// `.onDelete(perform: $dogs.remove)` asks. An offset out of bounds changes nothing and
    /// sets `error`.
    public func remove(atOffsets offsets: IndexSet) {
        let results = storage.results
        storage.quickWrite(in: results.realm) {
            try QuickWriteOffsets.check(offsets, count: results.count)
            try results.realm?.delete(offsets.map { results[$0] })
        }
    }
}

extension RealmError {
    /// The error of a quick write given a frozen object deleted since it was frozen.
    static func deletedSince(_ type: Any.Type) -> RealmError {
        RealmError(.invalidObject, "The \(type) was deleted after it was frozen; nothing was changed.")
    }
}
