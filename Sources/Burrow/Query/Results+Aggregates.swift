import BurrowStore
import Foundation

/// A type `min(ofProperty:)` and `max(ofProperty:)` can return: numbers and dates, their
/// optionals, and `AnyRealmValue`.
public protocol MinMaxType: _Persistable {}
/// A type `sum(ofProperty:)` and `average(ofProperty:)` can return: numbers, their optionals,
/// and `AnyRealmValue`.
public protocol AddableType: _Persistable {}

extension Int: MinMaxType, AddableType {}
extension Int8: MinMaxType, AddableType {}
extension Int16: MinMaxType, AddableType {}
extension Int32: MinMaxType, AddableType {}
extension Int64: MinMaxType, AddableType {}
extension Float: MinMaxType, AddableType {}
extension Double: MinMaxType, AddableType {}
extension Decimal128: MinMaxType, AddableType {}
extension Date: MinMaxType {}

/// Aggregates of one property over results, computed from the rows without creating objects.
/// The property must hold one number (or date, for `min`/`max`) per object; anything else
/// traps with the reason, as in RealmSwift.
extension Results {
    /// The smallest value of `property`, or nil if there are no objects (or all are nil).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        aggregate(.min, property, allowDates: true).converted()
    }

    /// The largest value of `property`, or nil if there are no objects (or all are nil).
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        aggregate(.max, property, allowDates: true).converted()
    }

    /// The sum of `property` over the objects (0 if there are none).
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        aggregate(.sum, property, allowDates: false).converted() ?? T._fromStored(.int(0))
    }

    /// The average of `property`, or nil if there are no objects (or all are nil).
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        aggregate(.avg, property, allowDates: false).converted()
    }

    private func aggregate(_ aggregate: QueryAggregate, _ property: String, allowDates: Bool) -> QueryValue {
        if query.source != nil {
            // Results of values: RealmSwift's `min(ofProperty: "self")`.
            precondition(
                property.lowercased() == "self",
                "Cannot compute \(aggregate.rawValue)(ofProperty: \"\(property)\") of \(Element.self) values: values have no properties; aggregate the values themselves (\"self\")."
            )
            return QueryValue.aggregate(aggregate, ofQueryValues: currentValues.compactMap { try? QueryValue($0) })
        }
        Self.requireAggregatable(aggregate, property, allowDates: allowDates, in: elementInfo)
        // Every object of a class in one scan of its rows; any other query over its keys, as
        // these results hold them (evaluated now if the realm changed).
        let plan = plan()
        return QueryExecutor.aggregate(aggregate, of: QueryPath(dotted: property), plan, in: owner) { current(planned: plan).keys }
    }

    /// Traps with the reason unless `property` of `info` (`Element`'s class) holds one number (or date, with
    /// `allowDates`) per object.
    static func requireAggregatable(_ aggregate: QueryAggregate, _ property: String, allowDates: Bool, in info: ClassInfo) {
        let type: PropertyType
        do {
            type = try QueryValidator.checkSingleValued(property, in: info, purpose: "aggregate").type
        } catch {
            preconditionFailure(error.description)
        }
        let allowed: Set<PropertyType> = allowDates ? [.int, .float, .double, .decimal128, .date, .any] : [.int, .float, .double, .decimal128, .any]
        precondition(
            allowed.contains(type), "Cannot compute \(aggregate.rawValue)(ofProperty: \"\(property)\") of \(Element.self): it holds \(type) values.")
    }
}

extension QueryValue {
    /// The aggregate as a `T`, converting between number types (an average of integers, a
    /// `Double`, read as `Int` is truncated); nil for null.
    func converted<T: _Persistable>() -> T? {
        if isNull { return nil }
        let result: _StoredValue
        switch T._shape.type {
        case .int:
            guard let d = doubleValue else { return nil }
            if case .int(let i) = self { result = .int(i) } else { result = .int(Int64(exactly: d.rounded(.towardZero)) ?? 0) }
        case .double: result = doubleValue.map { .double($0) } ?? .null
        case .float: result = doubleValue.map { .float(Float($0)) } ?? .null
        case .decimal128:
            switch self {
            case .decimal128(let d): result = .decimal128(d)
            case .int(let i): result = .decimal128(Decimal128(i))
            default: result = doubleValue.map { .decimal128(Decimal128($0)) } ?? .null
            }
        default: result = stored
        }
        if case .null = result { return nil }
        return T._fromStored(result)
    }
}
