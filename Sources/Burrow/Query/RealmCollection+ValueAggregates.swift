import BurrowStore

extension Optional: MinMaxType where Wrapped: MinMaxType & _OptionalPersistable {}
extension Optional: AddableType where Wrapped: AddableType & _OptionalPersistable {}
extension AnyRealmValue: MinMaxType, AddableType {}

/// The aggregates of a collection of values (`List<Int>`, `MutableSet<Double?>`,
/// `List<AnyRealmValue>`) over the values themselves, as RealmSwift's `min()`, `max()`, `sum()`
/// and `average()`. Nil values are left out, and so are `AnyRealmValue`s that are not numbers
/// (or dates, for `min` and `max`); each reads the collection once.
extension RealmCollection where Element: MinMaxType {
    /// The smallest value, or nil if the collection holds none.
    public func min() -> Element? {
        aggregate(.min, at: "self").converted()
    }

    /// The largest value, or nil if the collection holds none.
    public func max() -> Element? {
        aggregate(.max, at: "self").converted()
    }
}

extension RealmCollection where Element: AddableType {
    /// The sum of the values (0 if the collection holds none).
    public func sum() -> Element {
        aggregate(.sum, at: "self").converted() ?? Element._fromStored(.int(0))
    }

    /// The average of the values, as a `T` (`Double`, `Decimal128`, or the element's own
    /// type), or nil if the collection holds none.
    public func average<T: AddableType>() -> T? {
        aggregate(.avg, at: "self").converted()
    }
}
