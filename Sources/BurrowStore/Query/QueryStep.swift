/// One key a query sorts by: a dotted key path and the direction (the API's `SortDescriptor`).
package struct QuerySort: Sendable, Hashable {
    package let keyPath: String
    package let ascending: Bool

    package init(keyPath: String, ascending: Bool) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}

/// One operation of a query, applied in the order they were chained: `filter` narrows, `sort`
/// orders (stably), `distinct` keeps the first object of each combination of values, `limit`
/// keeps the first objects.
package enum QueryStep: Sendable {
    case filter(QueryPredicate)
    case sort([QuerySort])
    case distinct([String])
    case limit(Int)
}
