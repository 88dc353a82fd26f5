/// An immutable, `Sendable` collection of frozen objects: results as of one version, to hand to
/// any task or actor.
public struct FrozenResults<T: ObjectBase>: RandomAccessCollection, Sendable {
    let version: FrozenVersion?
    let table: Table?
    let keys: [ObjectKey]

    init(version: FrozenVersion?, table: Table?, keys: [ObjectKey]) {
        self.version = version
        self.table = table
        self.keys = keys
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    public subscript(position: Int) -> Frozen<T> {
        Frozen(version: version!, table: table!, key: keys[position])
    }

    /// The version of the file these results are a view of (0 if the class had no objects yet).
    public var versionNumber: UInt64 { version?.version ?? 0 }
}

extension Results {
    /// The results as of the realm's current version, frozen: `Sendable`, immutable.
    ///
    /// Throws `RealmError` (`.wrongState`) inside a write transaction.
    public func freeze() throws -> FrozenResults<Element> {
        frozenEvaluation()(try FrozenVersion(of: owner))
    }

    /// Evaluates these results' query at a frozen version: what freezing, and change streams
    /// at each new version, run.
    func frozenEvaluation() -> @Sendable (FrozenVersion) -> FrozenResults<Element> {
        { version in
            let table = version.table(for: Element.self)
            return FrozenResults(version: version, table: table, keys: table.map { version.allKeys($0) } ?? [])
        }
    }
}
