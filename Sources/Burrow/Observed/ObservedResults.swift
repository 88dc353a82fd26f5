import BurrowStore

/// A property wrapper that shows the results of a query on the main actor's realm and follows
/// their changes, as RealmSwift's `@ObservedResults`:
///
///     @ObservedResults(Dog.self) var dogs
///     @ObservedResults(Dog.self, where: { $0.age < 2 }, sortDescriptor: SortDescriptor(keyPath: "name")) var puppies
///
///     $dogs.append(Dog(value: ["name": "Bandido"]))      // one write transaction
///     $dogs.remove(atOffsets: offsets)                    // .onDelete(perform: $dogs.remove)
///
/// `dogs` is live `Results` of the realm `Realm(configuration:)` gives on the main actor (the
/// default configuration unless one is given). Reading it registers with Observation
/// (`withObservationTracking`, SwiftUI), and each commit that changes the results, made by
/// any actor, is reported once the main actor takes it in; the realm then reads the newest
/// version. `keyPaths` limits the property changes that count to those properties.
///
/// Where RealmSwift's wrapper takes `filter: NSPredicate`, which Foundation lacks on Linux,
/// this one takes the same format as a query string (`filter: "age < 2"`), as
/// `Results.filter` does. A filter that cannot be parsed or a sort on an unknown property
/// shows no objects and sets `error` (RealmSwift traps). A realm that cannot be opened, or a
/// type that is not among the configuration's `objectTypes`, traps on first read, as in
/// RealmSwift: the wrapper has no realm or table to show.
///
/// Quick writes through `$dogs` (`append`, `remove`, `remove(atOffsets:)`,
/// `move(fromOffsets:toOffset:)`) never throw: a failed one changes nothing and sets
/// `$dogs.error`.
///
/// `@ObservedResults(PersonProjection.self) var people` shows the projections of the root
/// class's objects, as in RealmSwift: `filter`, `sortDescriptor` and `keyPaths` name the root
/// class's properties, and `$people.append(projection)` adds the projected object.
///
/// Isolation: the main actor. Use it as a stored property of a main-actor type (a SwiftUI
/// view), or as a local in main-actor code.
@MainActor
@propertyWrapper
public struct ObservedResults<ResultType: _ObservedResultsValue>: BoundCollection {
    public typealias Element = ResultType

    let storage: ResultsStorage<ResultType>

    private init(
        configuration: Realm.Configuration?, filter: ResultsStorage<ResultType>.Filter?, keyPaths: [String]?,
        sortDescriptor: SortDescriptor?, follow: @escaping @MainActor (ResultsStorage<ResultType>, Results<ResultType>) -> Void
    ) {
        storage = ResultsStorage(configuration: configuration, keyPaths: keyPaths, follow: follow)
        storage.query = ResultsStorage.Query(filter: filter, sortDescriptors: sortDescriptor.map { [$0] } ?? [])
    }

    /// The live results, on the main actor's realm.
    public var wrappedValue: Results<ResultType> { storage.results }

    /// The wrapper itself: its quick writes (`$dogs.append`), `filter`, `where`,
    /// `sortDescriptor` and `error`.
    public var projectedValue: Self { self }

    /// The query string the results are filtered by; setting it shows the new results.
    /// Exclusive with `where`.
    public var filter: String? {
        get { storage.filterFormat }
        nonmutating set { storage.filterFormat = newValue }
    }

    /// The sort of the results; setting it shows the results sorted anew.
    public var sortDescriptor: SortDescriptor? {
        get { storage.query.sortDescriptors.first }
        nonmutating set { storage.query.sortDescriptors = newValue.map { [$0] } ?? [] }
    }

    /// The error of the last quick write that failed (nil once one succeeds), or why the
    /// results could not be shown. Observable.
    public var error: RealmError? { storage.error }

    /// Brings the results up to date, as SwiftUI's `DynamicProperty.update()` does before a
    /// view is drawn: the realm reads its newest version.
    public func update() { storage.update() }
}

extension ObservedResults where ResultType: Object {
    /// Results of `type` on the main actor's realm of `configuration` (the default
    /// configuration if nil), filtered by the query string `filter`, sorted by
    /// `sortDescriptor`, with changes of `keyPaths` only counting as modifications.
    public init(
        _ type: ResultType.Type, configuration: Realm.Configuration? = nil, filter: String? = nil, keyPaths: [String]? = nil,
        sortDescriptor: SortDescriptor? = nil
    ) {
        self.init(
            configuration: configuration, filter: filter.map { .string($0) }, keyPaths: keyPaths, sortDescriptor: sortDescriptor,
            follow: { $0.followObjects($1) })
    }

    /// Results of `type` filtered with the typed query `where`.
    public init(
        _ type: ResultType.Type, configuration: Realm.Configuration? = nil, where: ((Burrow.Query<ResultType>) -> Burrow.Query<Bool>)? = nil,
        keyPaths: [String]? = nil, sortDescriptor: SortDescriptor? = nil
    ) {
        self.init(
            configuration: configuration, filter: `where`.map { .typed($0) }, keyPaths: keyPaths, sortDescriptor: sortDescriptor,
            follow: { $0.followObjects($1) })
    }

    /// Results of every object of `type`, with changes of `keyPaths` only counting as
    /// modifications.
    public init(_ type: ResultType.Type, keyPaths: [String]? = nil, configuration: Realm.Configuration? = nil, sortDescriptor: SortDescriptor? = nil)
    {
        self.init(configuration: configuration, filter: nil, keyPaths: keyPaths, sortDescriptor: sortDescriptor, follow: { $0.followObjects($1) })
    }

    /// The typed query the results are filtered by; setting it shows the new results.
    /// Exclusive with `filter`. (Projections have none: a typed query reads the properties of
    /// the class queried, and a projection's are not stored.)
    public var `where`: ((Burrow.Query<ResultType>) -> Burrow.Query<Bool>)? {
        get { storage.typedFilter }
        nonmutating set { storage.typedFilter = newValue }
    }
}

extension ObservedResults {
    /// The projections of the objects of `type`'s root class on the main actor's realm of
    /// `configuration`, filtered by the query string `filter` and sorted by `sortDescriptor`
    /// (both naming the root class's properties), with changes of `keyPaths` (the root's) only
    /// counting as modifications.
    public init<Root: Object>(
        _ type: ResultType.Type, configuration: Realm.Configuration? = nil, filter: String? = nil, keyPaths: [String]? = nil,
        sortDescriptor: SortDescriptor? = nil
    ) where ResultType: Projection<Root> {
        self.init(
            configuration: configuration, filter: filter.map { .string($0) }, keyPaths: keyPaths, sortDescriptor: sortDescriptor,
            follow: { $0.followObjects(Results<Root>(rebinding: $1)) })
    }
}

/// What `@ObservedResults` and `@ObservedSectionedResults` show: objects, or projections of
/// them, as RealmSwift's `_ObservedResultsValue`. For Burrow's own use; not meant to be adopted
/// elsewhere.
public protocol _ObservedResultsValue: _ObjectResultsValue {}

extension Object: _ObservedResultsValue {}
extension Projection: _ObservedResultsValue {}

extension _ObservedResultsValue {
    /// The object this is, or projects.
    var shownObject: ObjectBase {
        guard case .object(let object) = _stored else {
            preconditionFailure("internal error: a \(Self.self) shown by a results wrapper holds no object")
        }
        return object
    }
}
