import BurrowStore

/// Key-value coding over collections and along key paths, as RealmSwift's collections and
/// objects offer it through Foundation: `value(forKey:)` gives one value per element,
/// `value(forKeyPath:)` follows dotted paths and the collection operators `@count`, `@min`,
/// `@max`, `@sum`, `@avg` and `@unionOfObjects`.
extension RealmCollection {
    /// An array of the value of `key` on each element, in order: the value of property `key` of
    /// each object (nil for an unknown property), or with `key` `"self"` the elements
    /// themselves. Reads each element; confined to the collection's isolation.
    public func value(forKey key: String) -> Any? {
        map { element -> Any in Self.value(of: element, at: key) }
    }

    /// The value at `keyPath` over the collection: with a collection operator first, an
    /// aggregate of what the rest of the path reaches in each element (`"@count"`,
    /// `"@max.age"`, `"@avg.owner.age"`; `@sum` of nothing is 0, `@min`, `@max` and `@avg` of
    /// nothing are nil; `"@unionOfObjects.name"` is the array of names); otherwise the array
    /// of what `keyPath` reaches in each element, as `value(forKey:)`. Nil for an unknown
    /// operator. Reads each element; confined to the collection's isolation.
    public func value(forKeyPath keyPath: String) -> Any? {
        guard keyPath.hasPrefix("@") else { return value(forKey: keyPath) }
        let (name, rest) = KeyValuePath.split(keyPath)
        if name == "@count" { return count }
        guard let rest else { return nil }
        if name == "@unionOfObjects" { return map { element -> Any in Self.value(of: element, at: String(rest)) } }
        guard let aggregate = QueryAggregate(rawValue: String(name.dropFirst())), aggregate != .count else { return nil }
        return self.aggregate(aggregate, at: String(rest)).stored.plainValue
    }
}

extension Sequence where Element: _Persistable {
    /// The aggregate of what `keyPath` reaches in each element, read from the elements (not
    /// queried), so that an unmanaged collection aggregates too. A value a query cannot compare
    /// (an object, a collection) takes no part.
    func aggregate(_ aggregate: QueryAggregate, at keyPath: String) -> QueryValue {
        var arguments: [QueryValue] = []
        for element in self {
            if let argument = try? QueryValue.argument(Self.value(of: element, at: keyPath)) { arguments.append(argument) }
        }
        return QueryExecutor.aggregate(aggregate, of: arguments)
    }

    /// What `keyPath` reaches in `element`: the element itself for `"self"`, else for an object
    /// its value at `keyPath`.
    static func value(of element: Element, at keyPath: String) -> Any {
        if keyPath == "self" { return element }
        guard case .object(let object) = element._stored else { return Optional<Any>.none as Any }
        return object.value(forKeyPath: keyPath) as Any
    }
}

extension ObjectBase {
    /// The value at a dotted key path (`"owner.address.city"`): each step reads a property of
    /// the object the previous one reached. A step that reaches a collection (a `List`,
    /// `MutableSet`, `LinkingObjects` of objects) applies the rest of the path to it, as
    /// `RealmCollection.value(forKeyPath:)`. Nil where a step reaches nil or an unknown
    /// property. Confined to the object's isolation.
    public func value(forKeyPath keyPath: String) -> Any? {
        var object = self
        var path = Substring(keyPath)
        while true {
            let (name, rest) = KeyValuePath.split(path)
            let value = object.value(forKey: String(name))
            guard let rest else { return value }
            switch value {
            case let next as ObjectBase:
                object = next
                path = rest
            case let collection as any RealmCollection:
                return collection.value(forKeyPath: String(rest))
            default:
                return nil
            }
        }
    }
}

/// Splitting key paths at their first dot.
enum KeyValuePath {
    /// The first component of `path` and the rest after its dot (nil if it has none).
    static func split<S: StringProtocol>(_ path: S) -> (first: S.SubSequence, rest: S.SubSequence?) {
        guard let dot = path.firstIndex(of: ".") else { return (path[...], nil) }
        return (path[..<dot], path[path.index(after: dot)...])
    }
}
