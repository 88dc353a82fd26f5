import BurrowStorage
import BurrowStore
import Foundation

/// A property that holds a value of any stored type, or nothing, tagged with its type:
///
///     @Persisted var companion: AnyRealmValue
///     dog.companion = .string("Rex")
///     dog.companion = .object(otherDog)
public enum AnyRealmValue: Hashable, _Persistable, CustomStringConvertible {
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case uuid(UUID)
    case decimal128(Decimal128)
    case object(Object)

    /// The value wrapped as the case for its type, or nil for a type `AnyRealmValue` cannot hold.
    init?(inferring value: Any) {
        switch value {
        case let v as AnyRealmValue: self = v
        case let v as Int: self = .int(v)
        case let v as Bool: self = .bool(v)
        case let v as Float: self = .float(v)
        case let v as Double: self = .double(v)
        case let v as String: self = .string(v)
        case let v as Data: self = .data(v)
        case let v as Date: self = .date(v)
        case let v as ObjectId: self = .objectId(v)
        case let v as UUID: self = .uuid(v)
        case let v as Decimal128: self = .decimal128(v)
        case let v as Object: self = .object(v)
        default: return nil
        }
    }

    public static func == (a: AnyRealmValue, b: AnyRealmValue) -> Bool {
        switch (a, b) {
        case (.none, .none): true
        case (.int(let x), .int(let y)): x == y
        case (.bool(let x), .bool(let y)): x == y
        case (.float(let x), .float(let y)): x == y
        case (.double(let x), .double(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.data(let x), .data(let y)): x == y
        case (.date(let x), .date(let y)): x == y
        case (.objectId(let x), .objectId(let y)): x == y
        case (.uuid(let x), .uuid(let y)): x == y
        case (.decimal128(let x), .decimal128(let y)): x == y
        case (.object(let x), .object(let y)): x === y || (x._state != nil && x._state?.key == y._state?.key && x._state?.table === y._state?.table)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .object(let v): hasher.combine(v._state?.key.rawValue ?? UInt64(UInt(bitPattern: ObjectIdentifier(v).hashValue)))
        }
    }

    /// The int, if this is `.int`.
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The string, if this is `.string`.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The object, if this is `.object`.
    public var objectValue: Object? { if case .object(let v) = self { v } else { nil } }
    /// The object as `T`, if this is `.object` of that class.
    public func object<T: Object>(_ type: T.Type) -> T? { objectValue as? T }

    public var description: String {
        switch self {
        case .none: "none"
        case .int(let v): "int(\(v))"
        case .bool(let v): "bool(\(v))"
        case .float(let v): "float(\(v))"
        case .double(let v): "double(\(v))"
        case .string(let v): "string(\(v))"
        case .data(let v): "data(\(counted(v.count, "byte")))"
        case .date(let v): "date(\(v))"
        case .objectId(let v): "objectId(\(v))"
        case .uuid(let v): "uuid(\(v))"
        case .decimal128(let v): "decimal128(\(v))"
        case .object(let v): "object(\(type(of: v)))"
        }
    }

    public static var _shape: _PropertyShape { _PropertyShape(.any, optional: true) }
    public static func _defaultValue() -> AnyRealmValue { .none }
    public static func _fromStored(_ value: _StoredValue) -> AnyRealmValue {
        switch value {
        case .null: .none
        case .bool(let v): .bool(v)
        case .int(let v): .int(Int(v))
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .uuid(let v): .uuid(v)
        case .decimal128(let v): .decimal128(v)
        case .object(let v): (v as? Object).map { .object($0) } ?? .none
        }
    }
    public var _stored: _StoredValue {
        switch self {
        case .none: .null
        case .int(let v): .int(Int64(v))
        case .bool(let v): .bool(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .uuid(let v): .uuid(v)
        case .decimal128(let v): .decimal128(v)
        case .object(let v): .object(v)
        }
    }
}
