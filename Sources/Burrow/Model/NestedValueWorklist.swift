import BurrowStore

/// Builds the unmanaged objects that nested values describe (a dictionary inside a dictionary
/// for a link, an array of dictionaries for a list, any depth) without recursion: the first
/// object made from a value on a thread drains a worklist, and every object a nested value
/// asks for while it drains is made empty, linked, and queued to be filled in turn. So the
/// stack depth stays constant however deep the values nest.
final class NestedValueWorklist {
    private static let current = ThreadLocal<NestedValueWorklist>()

    /// Objects made but not filled yet, each with the value to fill it from.
    private var pending: [(object: ObjectBase, value: Any)] = []
    private var draining = false
    /// While `recordingMade` runs: every object made, by identity.
    private var made: [ObjectIdentifier: ObjectBase]?

    /// Runs `body`, and returns with its result the objects made from values meanwhile on this
    /// thread (by identity): objects no caller holds but through `body`'s result.
    static func recordingMade<Result>(_ body: () throws(RealmError) -> Result) throws(RealmError) -> (Result, [ObjectIdentifier: ObjectBase]) {
        let worklist = current.value { NestedValueWorklist() }
        let outer = worklist.made
        worklist.made = [:]
        defer { worklist.made = outer }
        let result = try body()
        return (result, worklist.made ?? [:])
    }

    /// A new unmanaged `type` with the property values `value` (a dictionary or an array)
    /// gives. Called while another value is being applied on this thread, it returns the
    /// object empty and fills it before that outermost call returns.
    ///
    /// Throws the first `RealmError` a value met; then no object made from it is filled.
    static func object(from value: Any, of type: ObjectBase.Type) throws(RealmError) -> ObjectBase {
        let worklist = current.value { NestedValueWorklist() }
        let object = type.init()
        worklist.made?[ObjectIdentifier(object)] = object
        worklist.pending.append((object, value))
        if worklist.draining { return object }
        worklist.draining = true
        defer {
            worklist.draining = false
            worklist.pending.removeAll()
        }
        var next = 0
        while next < worklist.pending.count {
            let (target, targetValue) = worklist.pending[next]
            next += 1
            try target.applyValue(targetValue)
        }
        return object
    }
}
