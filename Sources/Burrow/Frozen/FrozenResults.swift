import BurrowStorage
import BurrowStore

/// An immutable, `Sendable` collection of frozen objects: results as of one version, to hand to
/// any task or actor.
public struct FrozenResults<T: ObjectBase>: RandomAccessCollection, Sendable {
    let version: FrozenVersion?
    let table: Table?
    let keys: [ObjectKey]
    /// The query steps these results were evaluated with (kept for `description`; further
    /// steps apply to `keys`).
    let steps: [QueryStep]

    init(version: FrozenVersion?, table: Table?, keys: [ObjectKey], steps: [QueryStep] = []) {
        self.version = version
        self.table = table
        self.keys = keys
        self.steps = steps
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    public subscript(position: Int) -> Frozen<T> {
        Frozen(version: version!, table: table!, key: keys[position])
    }

    /// The version of the file these results are a view of (0 if the class had no objects yet).
    public var versionNumber: UInt64 { version?.version ?? 0 }
}

extension Results where Element: ObjectBase {
    /// The results as of the realm's current version, frozen: `Sendable`, immutable.
    ///
    /// Throws `RealmError`: `.wrongState` inside a write transaction; `.corruptFile` (naming the
    /// file and the page) if the file is damaged where the query reads.
    public func freeze() throws -> FrozenResults<Element> {
        try frozen()
    }

    /// `freeze()`, with its error type.
    func frozen() throws(RealmError) -> FrozenResults<Element> {
        let version = try FrozenVersion(of: owner)
        do {
            // Results of a collection (a list, a set, linking objects) take its keys now.
            return try Self.evaluate(Self.plan(query, className: query.className, base: base, at: version), steps, at: version)
        } catch {
            throw RealmError(error)
        }
    }

    /// Evaluates these results' query at a frozen version: what change streams run at each new
    /// version (trapping if a read fails, as they cannot throw). For results of a collection,
    /// the query runs on the collection as it is at that version (see `FrozenQueryBase`); nil
    /// if the collection cannot be read there.
    func frozenEvaluation() -> (@Sendable (FrozenVersion) -> FrozenResults<Element>)? {
        let frozenBase = query.frozenBase
        guard base == nil || frozenBase != nil else { return nil }
        let steps = self.steps
        let className = query.className
        return { version in
            let base = frozenBase.map { frozenBase in
                let keys = frozenBase.keys(version)
                return QueryBase { keys }
            }
            do throws(StorageError) {
                return try Self.evaluate(Self.plan(steps, className: className, base: base, at: version), steps, at: version)
            } catch {
                version.fail(error)
            }
        }
    }

    /// The table of `Element` at `version`: the dynamic table of the stored class `className`
    /// for results of `DynamicObject`.
    static func table(at version: FrozenVersion, className: String?) -> Table? {
        if let className { return version.dynamicTable(named: className) }
        return version.table(for: Element.self)
    }

    /// How `steps` are answered at `version` on the objects of the class (`Element`, or the
    /// stored class `className`), or on `base`'s (see `QueryPlan`).
    static func plan(_ steps: some QuerySteps, className: String?, base: QueryBase?, at version: FrozenVersion) -> QueryPlan {
        QueryPlan(steps, table: table(at: version, className: className), base: base, writing: false, in: version)
    }

    /// The frozen results of `plan`, the plan of `steps` at `version`.
    private static func evaluate(_ plan: QueryPlan, _ steps: [QueryStep], at version: FrozenVersion) throws(StorageError) -> FrozenResults<Element> {
        FrozenResults(version: version, table: plan.table, keys: try QueryExecutor.keys(of: plan, in: version), steps: steps)
    }
}
