import BurrowStore

extension Optional: MinMaxType where Wrapped: MinMaxType & _OptionalPersistable {}
extension Optional: AddableType where Wrapped: AddableType & _OptionalPersistable {}
extension AnyRealmValue: MinMaxType, AddableType {}

/// A collection whose values have RealmSwift's aggregates (`min()`, `max()`, `sum()`,
/// `average()`): every `RealmCollection`, and the frozen collections of values (`FrozenList`,
/// `FrozenMutableSet`, `FrozenValueResults`). For Burrow's own use; not meant to be adopted
/// elsewhere.
public protocol _ValueAggregatable: Sequence where Element: RealmCollectionValue {}

extension FrozenList: _ValueAggregatable {}
extension FrozenMutableSet: _ValueAggregatable {}
extension FrozenValueResults: _ValueAggregatable {}

/// The aggregates of a collection of values (`List<Int>`, `MutableSet<Double?>`,
/// `List<AnyRealmValue>`, frozen ones) over the values themselves, as RealmSwift's `min()`,
/// `max()`, `sum()` and `average()`. Nil values are left out, and so are `AnyRealmValue`s that
/// are not numbers (or dates, for `min` and `max`); each reads the collection once.
extension _ValueAggregatable where Element: MinMaxType {
    /// The smallest value, or nil if the collection holds none.
    public func min() -> Element? {
        QueryValue.aggregate(.min, ofValues: Array(self)).converted()
    }

    /// The largest value, or nil if the collection holds none.
    public func max() -> Element? {
        QueryValue.aggregate(.max, ofValues: Array(self)).converted()
    }
}

extension _ValueAggregatable where Element: AddableType {
    /// The sum of the values (0 if the collection holds none).
    public func sum() -> Element {
        QueryValue.aggregate(.sum, ofValues: Array(self)).converted() ?? Element._fromStored(.int(0))
    }

    /// The average of the values, as a `T` (`Double`, `Decimal128`, or the element's own
    /// type), or nil if the collection holds none.
    public func average<T: AddableType>() -> T? {
        QueryValue.aggregate(.avg, ofValues: Array(self)).converted()
    }
}

extension QueryValue {
    /// The aggregate of `values`, values of a collection or map: `min` and `max` compare the
    /// numbers and dates, `sum` and `avg` add the numbers; nil and any other value (a string or
    /// a link an `AnyRealmValue` holds) is left out wherever it stands.
    static func aggregate<V: _Persistable>(_ aggregate: QueryAggregate, ofValues values: [V]) -> QueryValue {
        Self.aggregate(aggregate, ofQueryValues: values.compactMap { try? QueryValue($0._stored) })
    }

    /// The aggregate of `values` (see `aggregate(_:ofValues:)`), in their query form.
    static func aggregate(_ aggregate: QueryAggregate, ofQueryValues arguments: [QueryValue]) -> QueryValue {
        guard aggregate == .min || aggregate == .max else { return QueryExecutor.aggregate(aggregate, of: arguments) }
        return QueryExecutor.aggregate(
            aggregate,
            of: arguments.filter {
                switch $0 {
                case .int, .float, .double, .decimal128, .date: true
                default: false
                }
            })
    }
}
