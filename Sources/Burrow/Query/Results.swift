/// The objects of one class in a realm, lazily evaluated and live: a `Results` reads nothing
/// until it is used, and it re-evaluates when its realm moves to a new version or the open
/// write transaction changes the objects. Confined to its realm's isolation, like the realm.
public struct Results<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    let owner: Realm
    private let evaluation: Evaluation

    /// The object keys at one change stamp of the realm.
    private final class Evaluation {
        var stamp: UInt64 = .max
        var table: Table?
        var keys: [ObjectKey] = []
    }

    init(realm: Realm) {
        owner = realm
        evaluation = Evaluation()
    }

    private var current: Evaluation {
        if evaluation.stamp != owner.changeStamp {
            do {
                evaluation.table = try owner.table(for: Element.self, creating: false)
            } catch {
                // `objects(_:)` cannot throw, as in RealmSwift. Configure `objectTypes` to have
                // a schema mismatch thrown when the realm opens instead.
                preconditionFailure("\(error.description) (Set Realm.Configuration.objectTypes to have this checked when the realm opens.)")
            }
            evaluation.keys = evaluation.table.map { owner.allKeys($0) } ?? []
            evaluation.stamp = owner.changeStamp
        }
        return evaluation
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { current.keys.count }

    /// The object at `position`, which must be less than `count`.
    public subscript(position: Int) -> Element {
        let evaluation = current
        precondition(position >= 0 && position < evaluation.keys.count, "Index \(position) is out of bounds (\(Element.self) results have \(evaluation.keys.count) objects)")
        return owner.object(evaluation.table!, evaluation.keys[position]) as! Element
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
