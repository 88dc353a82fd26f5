import BurrowStore

/// A view of an object that exposes some of its properties, under names of its own, as in
/// RealmSwift's class projections:
///
///     final class PersonProjection: Projection<Person> {
///         @Projected(\Person.name) var firstName
///         @Projected(\Person.address?.city) var homeCity
///     }
///     let p = realm.objects(PersonProjection.self).first(where: { $0.firstName == "Jason" })!
///     try realm.write { p.firstName = "David" }     // writes through to the Person
///
/// `realm.objects(PersonProjection.self)` is `Results` of projections: its queries and sorts
/// name the root class's properties (`filter("name == 'Jason'")`), and each element is the
/// projection of one `Person`.
///
/// A projection reads its root object's properties as they are now, and assigning a projected
/// property whose key path is writable assigns the root's property (so it needs a write
/// transaction, like any change to a managed object).
open class Projection<Root: ObjectBase> {
    /// The object this projects.
    public let rootObject: Root

    /// A projection of `object`.
    public required init(projecting object: Root) {
        rootObject = object
    }

    /// The realm of the projected object, or nil if it is unmanaged.
    public var realm: Realm? { rootObject.realm }
    /// Whether the projected object was deleted.
    public var isInvalidated: Bool { rootObject.isInvalidated }
}

/// A view of one object of `Root`, as RealmSwift's `ProjectionObservable`: what every
/// `Projection` is, so that generic code can name a projection's root class
/// (`where Element: ProjectionObservable`, then `Element.Root`).
public protocol ProjectionObservable: AnyObject {
    /// The class of the projected object.
    associatedtype Root: ObjectBase
    /// The projected object.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

extension Projection: ProjectionObservable {}

/// Declares a property of a `Projection` that reads (and, if the key path is writable, writes)
/// a property of the projection's root object.
@propertyWrapper
public struct Projected<Root: ObjectBase, Value> {
    let keyPath: KeyPath<Root, Value>

    /// A projected property reading `keyPath` of the root object.
    public init(_ keyPath: KeyPath<Root, Value>) {
        self.keyPath = keyPath
    }

    /// Not available: projected properties are read through their projection.
    @available(*, unavailable, message: "@Projected can only be used on a property of a Projection")
    public var wrappedValue: Value {
        get { fatalError("@Projected used outside a Projection") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("@Projected used outside a Projection") }
    }

    public static subscript<EnclosingSelf: Projection<Root>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Projected<Root, Value>>
    ) -> Value {
        get {
            projection.rootObject[keyPath: projection[keyPath: storageKeyPath].keyPath]
        }
        set {
            guard let writable = projection[keyPath: storageKeyPath].keyPath as? ReferenceWritableKeyPath<Root, Value> else {
                preconditionFailure(
                    "This projected property reads \(projection[keyPath: storageKeyPath].keyPath), which cannot be written; project a writable property to assign it."
                )
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }
}

extension Realm {
    /// The projections of every object of `Element`'s root class, as RealmSwift's
    /// `objects(_:)` gives them: results that read the root class's objects (queries and sorts
    /// name its properties: `filter("name BEGINSWITH 'J'")`) and give each in its projection.
    public func objects<Element: Projection<Root>, Root: ObjectBase>(_ type: Element.Type) -> Results<Element> {
        checkThread()
        return Results(realm: self)
    }
}
