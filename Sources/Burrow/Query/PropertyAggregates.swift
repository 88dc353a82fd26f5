import BurrowStore

/// The aggregates of a collection or map by what a key path reaches in its elements
/// (`min(ofProperty: "age")`, or `"self"` for values), as RealmSwift's: for a managed one,
/// those of its live results, computed from the rows; for an unmanaged one, of its elements
/// read one by one. Each traps unless the key path reaches one number (or date, for `min` and
/// `max`) per element.
struct PropertyAggregates<Element: _Persistable> {
    /// The live results of a managed collection; nil for an unmanaged one.
    let results: Results<Element>?
    /// The elements of an unmanaged collection.
    let elements: () -> [Element]

    func min<T: MinMaxType>(_ property: String) -> T? {
        guard let results else { return unmanaged(.min, property, allowDates: true).converted() }
        return results.min(ofProperty: property)
    }

    func max<T: MinMaxType>(_ property: String) -> T? {
        guard let results else { return unmanaged(.max, property, allowDates: true).converted() }
        return results.max(ofProperty: property)
    }

    func sum<T: AddableType>(_ property: String) -> T {
        guard let results else { return unmanaged(.sum, property, allowDates: false).converted() ?? T._fromStored(.int(0)) }
        return results.sum(ofProperty: property)
    }

    func average<T: AddableType>(_ property: String) -> T? {
        guard let results else { return unmanaged(.avg, property, allowDates: false).converted() }
        return results.average(ofProperty: property)
    }

    private func unmanaged(_ aggregate: QueryAggregate, _ property: String, allowDates: Bool) -> QueryValue {
        if let objectType = Element._shape.objectType {
            Results<Element>.requireAggregatable(aggregate, property, allowDates: allowDates, in: ClassInfo.of(objectType))
        } else {
            precondition(
                property == "self",
                "Cannot compute \(aggregate.rawValue)(ofProperty: \"\(property)\") of \(Element.self) values: values have no properties; aggregate the values themselves (\"self\")."
            )
        }
        return elements().aggregate(aggregate, at: property)
    }
}
