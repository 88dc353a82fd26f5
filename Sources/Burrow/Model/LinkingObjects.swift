import BurrowStorage
import BurrowStore

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
    private let originTable: Table?
    /// The origin property's field in `originTable` (nil if the class has no such field).
    private let originField: Int?
    /// The keys last read, shared by the copies of this value.
    private let found: FoundKeys?
    /// The index of this property in its object's class (nil if not read from an object).
    private(set) var ownerProperty: Int?

    /// The linking objects' keys, and the version of the owner's live realm they were read at.
    /// Confined to the realm's isolation; a frozen owner's are written once, before the value
    /// is shared.
    private final class FoundKeys {
        var keys: [ObjectKey] = []
        /// The realm's change stamp at the read; nil before the first.
        var stamp: UInt64?
    }

    /// Declares the inverse of `property` of `type`.
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        owner = nil
        originTable = nil
        originField = nil
        found = nil
    }

    private init(owner: ObjectBase, propertyName: String) {
        self.owner = owner
        self.propertyName = propertyName
        guard let state = owner._state else {
            originTable = nil
            originField = nil
            found = nil
            return
        }
        let context = state.source.context
        let origin = context.storedClassId(named: ClassInfo.storedName(of: Element.self)).flatMap(context.table(id:))
        originTable = origin
        originField = origin?.stored.fieldIndex(of: ClassInfo.of(Element.self).columnName(of: propertyName))
        found = FoundKeys()
        // A frozen owner's keys are read now, once: frozen values are read from any thread,
        // so they must not change afterwards.
        if state.liveRealm == nil, let found { found.keys = readKeys(state) }
    }

    /// The keys of the objects linking here now, as RealmSwift's live `LinkingObjects` have
    /// them: read from the backlinks again whenever the owner's live realm has changed since
    /// the last read. A frozen owner's were read when this value was made.
    var keys: [ObjectKey] {
        guard let owner, let state = owner._state, let found else { return [] }
        guard let realm = state.liveRealm else { return found.keys }
        if found.stamp != realm.changeStamp {
            found.keys = readKeys(state)
            found.stamp = realm.changeStamp
        }
        return found.keys
    }

    /// The keys of the objects whose origin property links to the object of `state`, from
    /// the backlinks of the version its source reads.
    private func readKeys(_ state: ObjectState) -> [ObjectKey] {
        guard let originTable, let originField else { return [] }
        let context = state.source.context
        var prefix = state.key.bytes
        withUnsafeBytes(of: originTable.id.bigEndian) { prefix.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt16(originField).bigEndian) { prefix.append(contentsOf: $0) }
        var keys: [ObjectKey] = []
        do {
            try context.reader.scan(state.table.backlinksTree, prefix: prefix) { key, _ in
                keys.append(ObjectKey.read(key, at: 14))
                return true
            }
        } catch {
            context.fail(error)
        }
        return keys
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    public subscript(position: Int) -> Element {
        object(keys[position])
    }

    /// The linking object whose key is `key`.
    private func object(_ key: ObjectKey) -> Element {
        guard let owner, let state = owner._state, let originTable else { preconditionFailure("LinkingObjects of an unmanaged object are empty") }
        return state.source.context.object(originTable, key) as! Element
    }

    /// Iterates over the objects linking here when iteration began: changing links or deleting
    /// objects inside the loop visits each of them exactly once (a deleted one invalidated), as
    /// RealmSwift's enumeration does.
    public func makeIterator() -> Iterator {
        Iterator(linkingObjects: self, keys: keys)
    }

    /// Iterates over the objects that linked here when iteration began. Confined to the
    /// realm's isolation.
    public struct Iterator: IteratorProtocol {
        private let linkingObjects: LinkingObjects
        private let keys: [ObjectKey]
        private var position = 0

        fileprivate init(linkingObjects: LinkingObjects, keys: [ObjectKey]) {
            self.linkingObjects = linkingObjects
            self.keys = keys
        }

        public mutating func next() -> Element? {
            guard position < keys.count else { return nil }
            defer { position += 1 }
            return linkingObjects.object(keys[position])
        }
    }

    /// The objects as RealmSwift prints them: `LinkingObjects<Person> <0x…> (` then
    /// `[0] Person { … }` a line.
    public var description: String { description(maxDepth: ObjectBase.descriptionMaxDepth) }

    func description(maxDepth depth: Int) -> String {
        let objects = Array(self)
        return CollectionDescription.describe("LinkingObjects", of: objects, count: objects.count, instance: owner, depth: depth)
    }

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
