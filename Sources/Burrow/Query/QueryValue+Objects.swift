import BurrowStore
import Foundation

/// Query values from what the API holds: Swift values, `AnyRealmValue`s and managed objects,
/// which a query names by class and key.
extension StoredValue where Link == QueryLink {
    /// The query form of a stored value. Throws for an unmanaged object, which has no key to
    /// compare.
    init(_ value: _StoredValue) throws(RealmError) {
        guard case .object(let object) = value else {
            self = value._mapLink { _ in nil }
            return
        }
        guard let state = object._state else {
            throw RealmError(
                .invalidArgument,
                "A query compared with an unmanaged \(type(of: object)) object; only objects in a realm can be compared with links. Add it to the realm first."
            )
        }
        self = .object(.named(className: state.table.name, key: state.key.rawValue))
    }

    /// The query form of an argument given to `filter(_:_:)`: a Swift value of a stored type,
    /// an `AnyRealmValue`, an enum of a persistable raw type, or a managed object. Nil for a
    /// value of a type queries cannot compare.
    static func argument(_ value: Any) throws(RealmError) -> QueryValue? {
        switch value {
        // The commonest arguments first, cast to their concrete types: the cast to the
        // existential `_Persistable` below looks the conformance up at run time.
        case let v as String: return .string(v)
        case let v as QueryValue: return v
        case let v as any _Persistable: return try QueryValue(v._storedAny)
        case let v as ObjectBase: return try QueryValue(.object(v))
        case let v as Int: return .int(Int64(v))
        case let v as NSNumber: return .double(v.doubleValue)
        default: break
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try argument(wrapped)
        }
        return nil
    }

    /// The value as `_StoredValue` (links excluded), for conversions back to Swift types.
    var stored: _StoredValue { _mapLink { _ in nil } }
}

extension _Persistable {
    /// `_stored`, reachable through an existential.
    var _storedAny: _StoredValue { _stored }
}
