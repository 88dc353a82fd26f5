import BurrowStorage
import BurrowStore

/// Checks predicates, sort keys and aggregate properties against a class's schema before they
/// run, so that a misspelled property or a comparison that can never be meaningful is a thrown
/// `RealmError` naming the property and the class, not an empty result.
enum QueryValidator {
    /// What a path reaches, as the schema says.
    struct PathInfo {
        /// The type of the values reached (for a collection, of its elements).
        var type: PropertyType
        var isOptional: Bool
        /// Whether the path passes through a collection (so it reaches many values).
        var isMany: Bool
        /// The class of the linked objects, for link values.
        var linkedClass: ClassInfo?
        /// The last property on the path.
        var property: Property
        /// The class declaring `property`; nil for the values of a collection of values
        /// queried themselves (`PathInfo.values`).
        var owner: ClassInfo?

        var what: String {
            guard let owner else { return "the collection of \(property.name) values" }
            return "property '\(property.name)' of \(owner.name)"
        }

        /// The element of a collection of values of `shape` queried itself (`self`): what the
        /// queries of `List<Int>`, `MutableSet<String?>` or a `Map`'s values test.
        static func values(_ shape: _PropertyShape) -> PathInfo {
            let element = Property(
                name: shape.type.description + (shape.isOptional ? "?" : ""), type: shape.type, isOptional: shape.isOptional,
                collection: .single, objectClassName: nil, linkOriginPropertyName: nil, isPrimary: false, isIndexed: false)
            return PathInfo(type: shape.type, isOptional: shape.isOptional, isMany: false, linkedClass: nil, property: element, owner: nil)
        }
    }

    /// What `path` reaches from an object of `info`'s class. Throws for an unknown property,
    /// a step past a property that is not a link, or a map step on a property that is not a map.
    static func resolve(_ path: QueryPath, in info: ClassInfo) throws(RealmError) -> PathInfo {
        // The executor follows a key path one step per stack frame: a path of thousands of
        // steps would overflow the stack where it should be an error.
        guard path.components.count <= QueryPath.maximumSteps else {
            let start = path.components.prefix(3).map { "\(QueryPath([$0]))" }.joined(separator: ".")
            throw RealmError(
                .invalidArgument,
                "Invalid key path '\(start)…': it has \(path.components.count) steps; at most \(QueryPath.maximumSteps) are allowed.")
        }
        var current = info
        var result: PathInfo?
        var isMany = false
        var pendingMap = false
        var manyBeforeMap = false
        for component in path.components {
            switch component {
            case .property, .backlinks:
                let name: String
                switch component {
                case .property(let propertyName): name = propertyName
                case .backlinks(let className, let propertyName): name = "@links.\(className).\(propertyName)"
                default: preconditionFailure("internal error: not a property step")
                }
                if var previous = result {
                    if pendingMap, case .property = component {
                        // `map.key` reads as `map['key']`.
                        pendingMap = false
                        previous.isOptional = true
                        isMany = manyBeforeMap
                        previous.isMany = isMany
                        result = previous
                        continue
                    }
                    guard !pendingMap, previous.type == .object || previous.type == .linkingObjects, let next = previous.linkedClass else {
                        throw RealmError(
                            .invalidArgument,
                            "Invalid key path '\(path)': \(previous.what) is \(describe(previous.property)), not a link, so '\(name)' cannot follow it."
                        )
                    }
                    current = next
                }
                let property: Property
                let linked: ClassInfo?
                if case .backlinks(let className, let propertyName) = component {
                    (property, linked) = try current.backlinks(from: className, property: propertyName, in: path)
                } else if let index = current.propertyIndex[name] {
                    property = current.properties[index]
                    linked = current.linkedInfo(index)
                } else if let recorded = current.recordedLinkingObjects(named: name) {
                    property = recorded
                    linked = recorded.objectClassName.flatMap(current.queriedClass(named:))
                } else {
                    let recorded = current.isDynamic ? current.schema.computedProperties : []
                    let known = (current.properties + recorded).map(\.name).joined(separator: ", ")
                    throw RealmError(
                        .invalidArgument, "Invalid key path '\(path)': \(current.name) has no property '\(name)' (its properties: \(known)).")
                }
                manyBeforeMap = isMany
                if property.collection != .single || property.type == .linkingObjects { isMany = true }
                result = PathInfo(
                    type: property.type, isOptional: property.isOptional || property.type == .object, isMany: isMany, linkedClass: linked,
                    property: property, owner: current)
                pendingMap = property.collection == .map
                if property.collection == .map { isMany = true }
            case .allBacklinks:
                // Only counted (`@links.@count`), which the parser makes sure of.
                if let previous = result {
                    guard !pendingMap, previous.type == .object || previous.type == .linkingObjects, let next = previous.linkedClass else {
                        throw RealmError(
                            .invalidArgument,
                            "Invalid key path '\(path)': \(previous.what) is \(describe(previous.property)), not a link, so '@links' cannot follow it."
                        )
                    }
                    current = next
                }
                let links = Property(
                    name: "@links", type: .linkingObjects, isOptional: false, collection: .single, objectClassName: nil,
                    linkOriginPropertyName: nil, isPrimary: false, isIndexed: false)
                isMany = true
                result = PathInfo(type: .linkingObjects, isOptional: false, isMany: true, linkedClass: nil, property: links, owner: current)
            case .mapKey, .keys, .values:
                guard var previous = result, previous.property.collection == .map, pendingMap else {
                    throw RealmError(
                        .invalidArgument,
                        "Invalid key path '\(path)': \(component == .keys ? "@keys" : component == .values ? "@values" : "a [key] subscript") applies to a Map property, and \(result.map { $0.what } ?? "the object") is not one."
                    )
                }
                pendingMap = false
                switch component {
                case .mapKey:
                    previous.isOptional = true
                    // One value per object, unless an earlier step reached many.
                    isMany = manyBeforeMap
                    previous.isMany = isMany
                case .keys:
                    previous.type = .string
                    previous.isOptional = false
                    previous.linkedClass = nil
                default:
                    break
                }
                result = previous
            }
        }
        guard let result else {
            // The empty path is the object itself (`SELF`).
            let itself = Property(
                name: "SELF", type: .object, isOptional: false, collection: .single, objectClassName: info.name,
                linkOriginPropertyName: nil, isPrimary: false, isIndexed: false)
            return PathInfo(type: .object, isOptional: false, isMany: false, linkedClass: info, property: itself, owner: info)
        }
        return result
    }

    static func describe(_ property: Property) -> String {
        let element =
            property.type == .object || property.type == .linkingObjects ? (property.objectClassName ?? "object") : property.type.description
        switch property.collection {
        case .single: return property.type == .linkingObjects ? "LinkingObjects<\(element)>" : "\(element)\(property.isOptional ? "?" : "")"
        case .list: return "List<\(element)>"
        case .set: return "MutableSet<\(element)>"
        case .map: return "Map<String, \(element)>"
        }
    }

    /// What the key paths of a predicate start from: an object of a class, (inside a
    /// SUBQUERY over a collection of values) the element, which only the variable names, or
    /// (in a query of a collection of values) the element, which only `self` names.
    enum Scope {
        case object(ClassInfo)
        case element(PathInfo)
        case values(PathInfo)
    }

    /// Checks every comparison of `predicate` against `info`'s class.
    static func validate(_ predicate: QueryPredicate, for info: ClassInfo) throws(RealmError) {
        // A predicate of a shape that passed for this class passes again (`ThreadMemo`).
        let memo = ThreadMemo.current
        let id = ObjectIdentifier(info)
        if memo.validatedShapes.contains(id, where: { predicate.hasShape(of: $0) }) { return }
        try validate(predicate, in: .object(info))
        memo.validatedShapes.add(id, predicate.shape)
    }

    static func validate(_ predicate: QueryPredicate, in scope: Scope) throws(RealmError) {
        switch predicate {
        case .constant: return
        case .and(let conditions), .or(let conditions):
            for condition in conditions { try validate(condition, in: scope) }
        case .not(let a): try validate(a, in: scope)
        case .comparison(let c): try validate(c, in: scope)
        }
    }

    /// What `path` reaches in `scope`: in a value SUBQUERY, only the variable itself.
    private static func resolve(_ path: QueryPath, in scope: Scope) throws(RealmError) -> PathInfo {
        switch scope {
        case .object(let info):
            return try resolve(path, in: info)
        case .element(let element), .values(let element):
            guard path.components.isEmpty else {
                let reason =
                    if case .element = scope {
                        " in SUBQUERY: its variable stands for one \(element.type) value of \(element.what), which has no properties; compare the variable itself."
                    } else {
                        ": the query is of \(element.property.name) values, which have no properties; compare the value itself, 'self'."
                    }
                throw RealmError(.invalidArgument, "Invalid key path '\(path)'\(reason)")
            }
            return element
        }
    }

    /// The type an expression's values have, or nil for constants (checked against the other side).
    private static func side(_ expression: QueryExpression, _ scope: Scope) throws(RealmError) -> (PathInfo, PropertyType)? {
        switch expression {
        case .constant, .list: return nil
        case .path(let path):
            let resolved = try resolve(path, in: scope)
            return (resolved, resolved.type == .linkingObjects ? .object : resolved.type)
        case .subquery(let path, let predicate):
            let resolved = try resolve(path, in: scope)
            guard resolved.isMany else {
                throw RealmError(
                    .invalidArgument,
                    "Invalid SUBQUERY over '\(path)': SUBQUERY needs a collection of objects or values (a List, MutableSet, Map or LinkingObjects), and \(resolved.what) is \(describe(resolved.property))."
                )
            }
            if resolved.type == .object || resolved.type == .linkingObjects, let element = resolved.linkedClass {
                try validate(predicate, in: .object(element))
            } else {
                var element = resolved
                element.isMany = false
                try validate(predicate, in: .element(element))
            }
            return (resolved, .int)
        case .aggregate(let path, let aggregate):
            let resolved = try resolve(path, in: scope)
            guard resolved.isMany else {
                throw RealmError(
                    .invalidArgument,
                    "Invalid aggregate '\(expression)': @\(aggregate.rawValue) applies to a collection, and \(resolved.what) is \(describe(resolved.property))."
                )
            }
            switch aggregate {
            case .count: return (resolved, .int)
            case .sum, .avg:
                guard [.int, .float, .double, .decimal128, .any].contains(resolved.type) else {
                    throw RealmError(
                        .invalidArgument,
                        "Invalid aggregate '\(expression)': @\(aggregate.rawValue) needs numbers, and \(resolved.what) holds \(resolved.type) values."
                    )
                }
                return (resolved, aggregate == .avg && resolved.type == .int ? .double : resolved.type)
            case .min, .max:
                guard [.int, .float, .double, .decimal128, .date, .any].contains(resolved.type) else {
                    throw RealmError(
                        .invalidArgument,
                        "Invalid aggregate '\(expression)': @\(aggregate.rawValue) needs numbers or dates, and \(resolved.what) holds \(resolved.type) values."
                    )
                }
                return (resolved, resolved.type)
            }
        }
    }

    private static func validate(_ c: QueryComparison, in scope: Scope) throws(RealmError) {
        let left = try side(c.lhs, scope)
        let right = try side(c.rhs, scope)
        if c.op == .between {
            guard case .list(let bounds) = c.rhs, bounds.count == 2 else {
                throw RealmError(.invalidArgument, "Invalid comparison '\(c)': BETWEEN needs a list of two values, {low, high}.")
            }
        }
        if c.quantifier != .any, !(left?.0.isMany ?? false) {
            throw RealmError(
                .invalidArgument,
                "Invalid comparison '\(c)': \(c.quantifier.rawValue) applies to a key path through a collection, and '\(c.lhs)' is not one.")
        }
        switch (left, right) {
        case (let l?, let r?):
            try check(c, l.0, l.1, against: r.1, description: "\(r.0.what) (\(r.1))")
        case (let l?, nil):
            try checkConstants(of: c.rhs) { constant throws(RealmError) in try check(c, l.0, l.1, against: constant) }
        case (nil, let r?):
            try checkConstants(of: c.lhs) { constant throws(RealmError) in try check(c, r.0, r.1, against: constant) }
        case (nil, nil):
            break
        }
    }

    /// Calls `check` with each constant of `expression` (one, a list's, or none).
    private static func checkConstants(of expression: QueryExpression, _ check: (QueryValue) throws(RealmError) -> Void) throws(RealmError) {
        switch expression {
        case .constant(let value): try check(value)
        case .list(let values): for value in values { try check(value) }
        default: break
        }
    }

    private static func check(_ c: QueryComparison, _ path: PathInfo, _ type: PropertyType, against constant: QueryValue) throws(RealmError) {
        if constant.isNull {
            guard !c.op.isOrdering, !c.op.isStringOperator || type == .any else {
                throw RealmError(.invalidArgument, "Invalid comparison '\(c)': \(c.op.rawValue) cannot compare with nil (\(path.what)).")
            }
            return
        }
        let fits: Bool
        switch type {
        case .any: fits = true
        case .int, .float, .double, .decimal128: fits = constant.isNumeric
        case .string: fits = constant.typeName == "string"
        case .data: fits = constant.typeName == "data" || (c.op.isStringOperator && constant.typeName == "string")
        case .object, .linkingObjects:
            if case .object(.named(let className, _)) = constant {
                fits = path.linkedClass == nil || path.linkedClass?.name == className
            } else {
                fits = false
            }
        default: fits = constant.typeName == type.rawValue
        }
        guard fits else {
            throw RealmError(
                .invalidArgument,
                "Invalid comparison '\(c)': \(path.what) holds \(type == .object ? "\(path.linkedClass?.name ?? "object") objects" : "\(type) values"), which cannot be compared with \(constant) (\(withArticle(constant.typeName)))."
            )
        }
        try checkOperator(c, path, type)
    }

    private static func check(_ c: QueryComparison, _ path: PathInfo, _ type: PropertyType, against other: PropertyType, description: String)
        throws(RealmError)
    {
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal128]
        let fits = type == .any || other == .any || type == other || (numeric.contains(type) && numeric.contains(other))
        guard fits else {
            throw RealmError(.invalidArgument, "Invalid comparison '\(c)': \(path.what) (\(type)) cannot be compared with \(description).")
        }
        try checkOperator(c, path, type)
    }

    private static func checkOperator(_ c: QueryComparison, _ path: PathInfo, _ type: PropertyType) throws(RealmError) {
        let holdsText = type == .string || type == .data || type == .any
        if c.op.isStringOperator, !holdsText {
            throw RealmError(
                .invalidArgument, "Invalid comparison '\(c)': \(c.op.rawValue) applies to strings and data, and \(path.what) holds \(type) values.")
        }
        if c.op.isOrdering, type == .bool || type == .object || type == .linkingObjects {
            throw RealmError(
                .invalidArgument,
                "Invalid comparison '\(c)': \(c.op.rawValue) needs values with an order, and \(path.what) holds \(type == .bool ? "bool" : "object") values."
            )
        }
        if !c.options.isEmpty, !holdsText {
            throw RealmError(
                .invalidArgument, "Invalid comparison '\(c)': \(c.options.suffix) applies to strings, and \(path.what) holds \(type) values.")
        }
    }

    /// Checks a key path used to sort or deduplicate in `scope`: for objects, one value per
    /// object (`checkSingleValued`); for a collection of values, the value itself (`self`).
    static func checkOrderingKeyPath(_ keyPath: String, in scope: Scope, purpose: String) throws(RealmError) {
        switch scope {
        case .object(let info):
            _ = try checkSingleValued(keyPath, in: info, purpose: purpose)
        case .element(let element), .values(let element):
            guard keyPath.lowercased() == "self" else {
                throw RealmError(
                    .invalidArgument,
                    "Cannot \(purpose) by '\(keyPath)': \(element.property.name) values have no properties; \(purpose) by the value itself, 'self'."
                )
            }
        }
    }

    /// Checks a key path used to sort, deduplicate or aggregate: it must reach one value per
    /// object (no collection on the way).
    static func checkSingleValued(_ keyPath: String, in info: ClassInfo, purpose: String) throws(RealmError) -> PathInfo {
        let resolved = try resolve(QueryPath(dotted: keyPath), in: info)
        guard !resolved.isMany else {
            throw RealmError(
                .invalidArgument,
                "Cannot \(purpose) by '\(keyPath)': \(resolved.what) is \(describe(resolved.property)), and \(purpose) needs one value per object.")
        }
        return resolved
    }
}
