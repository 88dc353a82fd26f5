/// The objects whose link or list property points at this object: the inverse of a
/// relationship, computed from the backlinks the realm keeps, never stored.
///
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
///
/// Empty on an unmanaged object.
public struct LinkingObjects<Element: ObjectBase>: RandomAccessCollection, _PersistedValue, CustomStringConvertible {
    /// The property of `Element` whose links this follows.
    public let propertyName: String
    private let owner: ObjectBase?
    /// The keys of the linking objects, read when this value was made.
    let keys: [ObjectKey]
    private let originTable: Table?
    /// The index of this property in its object's class (nil if not read from an object).
    private(set) var ownerProperty: Int?

    /// Declares the inverse of `property` of `type`.
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        owner = nil
        keys = []
        originTable = nil
    }

    private init(owner: ObjectBase, propertyName: String) {
        self.owner = owner
        self.propertyName = propertyName
        guard let state = owner._state else {
            keys = []
            originTable = nil
            return
        }
        let context = state.source.context
        let origin = context.storedClassId(named: ClassInfo.storedName(of: Element.self)).flatMap(context.table(id:))
        originTable = origin
        guard let origin, let field = origin.stored.fieldIndex(of: propertyName) else {
            keys = []
            return
        }
        var prefix = state.key.bytes
        withUnsafeBytes(of: origin.id.bigEndian) { prefix.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt16(field).bigEndian) { prefix.append(contentsOf: $0) }
        var found: [ObjectKey] = []
        do {
            try context.reader.scan(state.table.backlinksTree, prefix: prefix) { key, _ in
                found.append(ObjectKey.read(key, at: 14))
                return true
            }
        } catch {
            context.fail(error)
        }
        keys = found
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    // Iteration walks `keys`, the linking objects found when this value was read: changing
    // links or deleting objects inside the loop visits each of them exactly once (a deleted
    // one invalidated), as RealmSwift's enumeration does.

    public subscript(position: Int) -> Element {
        guard let owner, let state = owner._state, let originTable else { preconditionFailure("LinkingObjects of an unmanaged object are empty") }
        return state.source.context.object(originTable, keys[position]) as! Element
    }

    public var description: String { "LinkingObjects<\(Element.self)>(\(count) objects)" }

    /// The object whose inverse relationship this is (nil on an unmanaged object's).
    var linkedObject: ObjectBase? { owner }

    public static var _shape: _PropertyShape { _PropertyShape(.linkingObjects, objectType: Element.self) }
    public static func _defaultValue() -> LinkingObjects<Element> { LinkingObjects(fromType: Element.self, property: "") }
    public static func _get(_ object: ObjectBase, _ property: Int) -> LinkingObjects<Element> {
        let origin = ClassInfo.of(type(of: object)).properties[property].linkOriginPropertyName ?? ""
        var linkingObjects = LinkingObjects(owner: object, propertyName: origin)
        linkingObjects.ownerProperty = property
        return linkingObjects
    }
    public static func _set(_ value: LinkingObjects<Element>, _ object: ObjectBase, _ property: Int) {}
    public static func _convert(_ value: Any, property: String) throws(RealmError) -> LinkingObjects<Element> {
        throw RealmError(.invalidArgument, "Property '\(property)' is LinkingObjects, which are computed from links and cannot be set.")
    }
    public var _anyValue: Any { self }
}

/// Lets schema discovery read a declaration's origin property without knowing `Element`.
protocol LinkingObjectsProtocol {
    var originPropertyName: String { get }
}

extension LinkingObjects: LinkingObjectsProtocol {
    var originPropertyName: String { propertyName }
}
