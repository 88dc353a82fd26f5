import BurrowStore

/// The actor that owns a realm. Code runs against the live realm inside the actor (in its
/// methods, extensions, or functions with an `isolated RealmActor` parameter); callers outside
/// it use the async methods below, which take `sending` closures and return only `Sendable`
/// values: frozen objects and results, or plain values.
///
///     let db = try await RealmActor(configuration: config)
///     try await db.asyncWrite { realm in try realm.add(Dog(value: ["name": "Rex"])) }
///     let dogs: FrozenResults<Dog> = try await db.objects(Dog.self)
///
/// Before each call the realm moves to the newest version of the file, so every call sees the
/// writes that finished before it. A call that reads throws `RealmError` (`.corruptFile`, naming
/// the file and the page) where the file is damaged, never an empty or partial answer.
///
/// The actor runs on the cooperative pool, like any actor: while one of its durable writes waits
/// for its sync, the actor serves other calls, whose writes join the next sync (group commit).
/// An actor of your own on a `RealmExecutor` trades that for a durable commit with no thread
/// switch when it writes alone (see `RealmExecutor`).
public actor RealmActor {
    /// The live realm. Use it only inside the actor.
    public private(set) var realm: Realm

    /// Opens the realm `configuration` describes, owned by the new actor: the same instance
    /// that `Realm(configuration:)`, `Realm.open` and `thaw()` give in code isolated to it.
    ///
    /// Throws `RealmError` as `Realm.init(configuration:)` does.
    public init(configuration: Realm.Configuration = .defaultConfiguration) async throws {
        let storage = try Realm.openStorage(configuration)
        realm = try Realm(storage: storage, configuration: configuration)
        RealmCache.adopt(realm, by: self)
    }

    /// Runs `block` in a write transaction on the realm and commits it; returns its result.
    /// Waits for the file's write lock without blocking a thread.
    ///
    /// If `block` throws, nothing it did is kept and the error is rethrown. If the calling
    /// task is cancelled while waiting for the lock, throws `CancellationError` and changes
    /// nothing. Other failures throw `RealmError`. The change streams whose tokens are in
    /// `tokens` stay silent about this write.
    @discardableResult
    public func asyncWrite<Result: Sendable>(
        withoutNotifying tokens: [ChangeToken] = [], _ block: sending (Realm) throws -> Result
    ) async throws -> Result {
        try realm.refreshIfUsable()
        let realm = self.realm
        return try await realm.asyncWrite(withoutNotifying: tokens) { try block(realm) }
    }

    /// Runs `block` against the realm at the newest version, without writing.
    public func read<Result: Sendable>(_ block: sending (Realm) throws -> Result) throws -> Result {
        try realm.refreshIfUsable()
        return try block(realm)
    }

    /// Creates an object as `Realm.create(_:value:update:)` does, in a write transaction of its
    /// own, and returns it frozen.
    public func create<T: Object>(_ type: T.Type, value: sending Any, update: UpdatePolicy = .error) async throws -> Frozen<T> {
        try realm.refreshIfUsable()
        let realm = self.realm
        let object = try await realm.asyncWrite { try realm.create(type, value: value, update: update) }
        return try object.freeze()
    }

    /// Every object of `type`, frozen at the newest version.
    ///
    /// Throws `RealmError`: `.corruptFile` if the file is damaged where the objects are read;
    /// `.wrongState` while a write of the actor is open.
    public func objects<T: ObjectBase>(_ type: T.Type) throws(RealmError) -> FrozenResults<T> {
        try realm.refreshIfUsable()
        return try realm.objects(type).frozen()
    }

    /// The objects of `type` satisfying `isIncluded` (the typed query DSL), frozen at the
    /// newest version:
    ///
    ///     let wolfie = try await db.objects(Dog.self, where: { $0.name == "Wolfie" }).first
    ///
    /// Throws `RealmError` as `objects(_:)` does.
    public func objects<T: ObjectBase>(_ type: T.Type, where isIncluded: sending (Query<T>) -> Query<Bool>) throws(RealmError) -> FrozenResults<T> {
        try realm.refreshIfUsable()
        return try realm.objects(type).where(isIncluded).frozen()
    }

    /// The object of `type` with primary key `key`, frozen, or nil if there is none.
    ///
    /// Throws `RealmError` `.corruptFile` if the file is damaged where the lookup reads. Traps,
    /// as `Realm.object(ofType:forPrimaryKey:)` does, if `type` has no primary key or `key` is
    /// not of its type.
    public func object<T: Object, Key: Sendable>(ofType type: T.Type, forPrimaryKey key: Key) throws(RealmError) -> Frozen<T>? {
        try realm.refreshIfUsable()
        let found: T?
        do {
            found = try realm.lookUp(type, anyPrimaryKey: key)
        } catch {
            throw RealmError(error)
        }
        guard let found else { return nil }
        let (version, table, objectKey) = try found.frozenLocation(freezing: "\(T.self)")
        return Frozen(version: version, table: table, key: objectKey)
    }

    /// The live object for `frozen` in the actor's realm, or nil if it was deleted since.
    public func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? {
        realm.refresh()
        return realm.thaw(frozen)
    }

    /// Stops using the realm; every later call fails or returns nothing.
    public func close() {
        realm.close()
    }
}
