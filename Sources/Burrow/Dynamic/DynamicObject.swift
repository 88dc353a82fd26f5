import BurrowStore

/// An object read and written through the schema its file stores, without a Swift class, as
/// RealmSwift's `DynamicObject`: what `Realm.dynamicObjects(_:)`, `dynamicObject(ofType:forPrimaryKey:)`
/// and `dynamicCreate(_:value:update:)` return, and what a migration hands out as
/// `MigrationObject`.
///
/// Its properties are read and set by name, with a subscript or as members:
///
///     let dog = realm.dynamicObjects("Dog").first!
///     let name = dog["name"] as! String
///     try realm.write { dog.age = 4 }
///
/// A property reads as a plain value (integers as `Int`), nil, a linked `DynamicObject`, or a
/// collection of the property's stored type: `List<DynamicObject>` for a list of links,
/// `List<Int>`, `List<String?>` and so on for values, likewise `MutableSet` and
/// `Map<String, …>` (links in a map as `DynamicObject?`). An `AnyRealmValue` property reads as
/// the value it holds. A `LinkingObjects` property, which the file records for a class as the
/// program that last wrote its objects declared it, reads as the `Results<DynamicObject>` of
/// the objects linking here. A name the class does not have reads as nil; setting one is an error
/// thrown by the write's commit, as for any object's `setValue(_:forKey:)`.
///
/// Dynamic objects are managed: make them with `Realm.dynamicCreate(_:value:update:)`, or by
/// giving a dictionary or an array where a dynamic object's link or list of links is set.
/// `DynamicObject()` itself makes an object of no class, which no realm can add.
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// For an unmanaged dynamic object made from a dictionary or an array: its class and
    /// values, stored when it is added (by `dynamicCreate`, or by being linked).
    var pending: PendingDynamicObject?

    /// The property named `member`, as `self[member]`.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }
}

/// The class and property values of a dynamic object not added yet: one field per property of
/// `info`, as an unmanaged Swift object's `@Persisted` fields hold them (single values already
/// in stored form; links and collections as given, set once the object's row exists).
struct PendingDynamicObject {
    let info: ClassInfo
    var fields: [_UnmanagedField]
    /// Which properties the value named (the others have their defaults): an update of an
    /// existing object sets only these, as RealmSwift's does.
    var given: [Bool]
}

extension ObjectBase {
    /// The class this object is read and written as: a managed object's table's (its Swift
    /// class's, or the stored class of a dynamic object), a pending dynamic object's, or the
    /// object's Swift class.
    final var classInfo: ClassInfo {
        if let table = _state?.table { return table.info }
        if let dynamic = self as? DynamicObject, let pending = dynamic.pending { return pending.info }
        return ClassInfo.of(type(of: self))
    }
}
