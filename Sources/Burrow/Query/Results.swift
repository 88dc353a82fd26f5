/// The objects of one class in a realm, optionally filtered, sorted, deduplicated and limited:
/// lazily evaluated and live. A `Results` reads nothing until it is used, and it re-evaluates
/// its whole query when its realm moves to a new version or the open write transaction
/// changes the objects. Confined to its realm's isolation, like the realm.
public struct Results<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    let owner: Realm
    /// The query steps, in the order they were chained.
    let steps: [QueryStep]
    /// Where the objects come from: nil for every object of the class, else the keys of a
    /// collection (a list, a set, linking objects), read anew at each evaluation.
    let base: ResultsBase?
    private let evaluation: ResultsEvaluation

    init(realm: Realm, steps: [QueryStep] = [], base: ResultsBase? = nil) {
        owner = realm
        self.steps = steps
        self.base = base
        evaluation = ResultsEvaluation()
    }

    /// These results with one more query step.
    func appending(_ step: QueryStep) -> Results<Element> {
        var steps = self.steps
        steps.append(step)
        return Results(realm: owner, steps: steps, base: base)
    }

    private var current: ResultsEvaluation {
        if evaluation.stamp != owner.changeStamp {
            do {
                evaluation.table = try owner.table(for: Element.self, creating: false)
            } catch {
                // `objects(_:)` cannot throw, as in RealmSwift. Configure `objectTypes` to have
                // a schema mismatch thrown when the realm opens instead.
                preconditionFailure("\(error.description) (Set Realm.Configuration.objectTypes to have this checked when the realm opens.)")
            }
            evaluation.rows = nil
            if steps.isEmpty, base == nil {
                evaluation.keys = evaluation.table.map { owner.allKeys($0) } ?? []
            } else {
                let executor = QueryExecutor(context: owner)
                let (keys, rows) = executor.evaluate(steps, table: evaluation.table, base: base?.keys())
                evaluation.keys = keys
                if owner.write == nil { evaluation.rows = rows }
            }
            evaluation.stamp = owner.changeStamp
        }
        return evaluation
    }

    /// The table and keys of the results now (evaluating them if the realm changed).
    var evaluated: (table: Table?, keys: [ObjectKey]) {
        let evaluation = current
        return (evaluation.table, evaluation.keys)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { current.keys.count }

    /// The object at `position`, which must be less than `count`.
    public subscript(position: Int) -> Element {
        let evaluation = current
        precondition(position >= 0 && position < evaluation.keys.count, "Index \(position) is out of bounds (\(Element.self) results have \(evaluation.keys.count) objects)")
        return owner.object(evaluation.table!, evaluation.keys[position], row: evaluation.rows?[position]) as! Element
    }

    /// Sets `key` to `value` on every object, as `setValue(_:forKey:)` on each would: a bulk
    /// update that reads no property it does not change. Must be called in a write
    /// transaction; a value that does not fit is recorded and thrown at commit.
    public func setValue(_ value: Any?, forKey key: String) {
        let evaluation = current
        guard let table = evaluation.table else { return }
        owner.setValue(value, forKey: key, ofObjects: evaluation.keys, in: table)
    }

    /// The realm these results belong to.
    public var realm: Realm? { owner }

    public var description: String { "Results<\(Element.self)> (\(count) objects)" }
}

/// What a `Results` found at one change stamp of its realm: the object keys, and outside write
/// transactions the rows the evaluation read for them (in the pinned version, valid until the
/// stamp changes), which objects made from the results start from instead of looking up.
/// Not generic, unlike `Results`: creating an instance of a generic class looks its type up at
/// run time, which costs more than the allocation itself.
final class ResultsEvaluation {
    var stamp: UInt64 = .max
    var table: Table?
    var keys: [ObjectKey] = []
    var rows: [UnsafeRawBufferPointer]?
}

/// The keys of the collection a `Results` filters (a list, a set, linking objects), read
/// when the results evaluate, so that they follow the collection as it changes.
final class ResultsBase {
    let keys: () -> [ObjectKey]

    init(_ keys: @escaping () -> [ObjectKey]) {
        self.keys = keys
    }
}
