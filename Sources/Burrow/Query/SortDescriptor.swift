import BurrowStore

/// A key path to sort results by, and the direction, as RealmSwift's `SortDescriptor`:
///
///     dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name")])
///
/// The key path may follow links (`"favoriteToy.name"`) but not collections: it must reach one
/// value per object. Nulls sort before every value in ascending order.
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The key path sorted by, dotted (`"owner.name"`).
    public let keyPath: String
    /// Whether smaller values come first.
    public let ascending: Bool

    /// Sorts by `keyPath`, ascending unless `ascending` is false.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Sorts by the `@Persisted` property `keyPath` names (`\Dog.age`), ascending unless
    /// `ascending` is false. Traps for a key path that names no `@Persisted` property.
    public init<Root: ObjectBase>(keyPath: PartialKeyPath<Root>, ascending: Bool = true) {
        self.init(keyPath: KeyPathName.sortPath(ofPartial: keyPath), ascending: ascending)
    }

    /// The same key path in the other direction.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }

    public var description: String { "\(keyPath) \(ascending ? "ASC" : "DESC")" }
}

extension SortDescriptor: ExpressibleByStringLiteral {
    /// Sorts by the key path the literal spells, ascending: `["name", "age"]` as an array of
    /// descriptors.
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }
}

extension SortDescriptor {
    /// The sort key a query step holds.
    var querySort: QuerySort { QuerySort(keyPath: keyPath, ascending: ascending) }
}
