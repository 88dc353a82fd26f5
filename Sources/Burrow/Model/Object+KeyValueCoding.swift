import BurrowStorage
import BurrowStore

/// Key-value coding: properties by name, as RealmSwift objects offer through NSObject.
extension ObjectBase {
    /// The value of the property named `key` (a `List` for a list property, an object or nil for
    /// a link, the linking objects for a `LinkingObjects` property: of a dynamic object, one its
    /// file records, as `Results<DynamicObject>`), or nil if the class has no such property.
    public func value(forKey key: String) -> Any? {
        let info = classInfo
        guard let property = info.propertyIndex[key] else {
            return info.recordedLinkingObjects(named: key).flatMap { recordedLinkingObjects($0) }
        }
        if info.isDynamic {
            guard _state != nil else { return (self as? DynamicObject)?.pending?.fields[property].value }
            return DynamicValues.value(of: self, property, info)
        }
        let field = info.fields[property]
        let value =
            _state != nil ? field.accessor.managedGet(self, property: property) : field.accessor.unmanagedValue(at: info.fieldPointer(self, property))
        return unwrappingOptional(value)
    }

    /// Sets the property named `key` to `value`, converted as `init(value:)` converts (a
    /// dictionary creates a linked object, an array or `Results` fills a list).
    ///
    /// On a managed object this needs a write transaction (outside one it traps, as any managed
    /// change does). An unknown key or a value of the wrong type cannot be thrown from here: on
    /// a managed object the error is thrown by the transaction's commit, which keeps nothing; on
    /// an unmanaged one, by adding the object to a realm.
    public func setValue(_ value: Any?, forKey key: String) {
        do {
            try setValueThrowing(value as Any, forKey: key)
        } catch {
            if case .live(let realm)? = _state?.source {
                realm.requireWrite().fail(error)
            } else {
                _pendingError = _pendingError ?? error
            }
        }
    }

    /// The property named `key`, as `value(forKey:)` and `setValue(_:forKey:)`.
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    func setValueThrowing(_ value: Any, forKey key: String) throws(RealmError) {
        let info = classInfo
        guard let property = info.propertyIndex[key] else {
            throw RealmError(
                .invalidArgument, "\(info.name) has no property '\(key)'. Its properties are: \(info.properties.map(\.name).joined(separator: ", "))."
            )
        }
        if info.isDynamic { return try DynamicValues.set(self, property, unwrapResults(value), info) }
        let field = info.fields[property]
        let converted = try field.accessor.convert(unwrapResults(value), property: key)
        if _state != nil {
            field.accessor.managedSet(self, property: property, converted)
        } else {
            field.accessor.setUnmanagedValue(at: info.fieldPointer(self, property), converted)
        }
    }

    /// Sets this unmanaged object's properties from a dictionary, an array in declaration order
    /// or another object of the same class.
    func applyValue(_ value: Any) throws(RealmError) {
        let info = ClassInfo.of(type(of: self))
        if let problem = info.problem { throw problem }
        switch value {
        case let dictionary as [String: Any]:
            for (key, element) in dictionary { try setValueThrowing(element, forKey: key) }
        case let array as [Any]:
            let stored = info.schema.properties
            guard array.count <= stored.count else {
                throw StoredValueConversion.tooManyValues(for: info.name, stored: stored.count, given: array.count)
            }
            for (property, element) in zip(stored, array) { try setValueThrowing(element, forKey: property.name) }
        case let object as ObjectBase:
            guard object.isInstance(of: type(of: self)) || self.isInstance(of: type(of: object)) else {
                throw RealmError(
                    .invalidArgument, "The values of \(withArticle(info.name)) cannot come from \(withArticle("\(type(of: object))"))."
                )
            }
            for property in info.schema.properties {
                if let element = object.value(forKey: property.name) { try setValueThrowing(element, forKey: property.name) }
            }
        default:
            throw RealmError(
                .invalidArgument,
                "A \(info.name) is made from a dictionary of property values, an array of them in declaration order, or another \(info.name), not \(StoredValueConversion.describe(value))."
            )
        }
    }

    /// `Results` and managed lists given as values are copied as arrays of their objects.
    private func unwrapResults(_ value: Any) -> Any {
        if let collection = value as? any _ObjectCollection { return collection._objects }
        return value
    }
}

/// Collections of objects that KVC copies element by element.
protocol _ObjectCollection {
    var _objects: [Any] { get }
}

extension Results: _ObjectCollection {
    var _objects: [Any] { map { $0 as Any } }
}

/// An optional property's value as `value(forKey:)` gives it, as in RealmSwift: the wrapped value,
/// or nil itself for an optional that holds none (not an `Any` boxing a nil).
protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? { self.map { $0 as Any } }
}

private func unwrappingOptional(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if let optional = value as? any OptionalValue { return optional.wrappedAny }
    return value
}
