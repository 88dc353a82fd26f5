import BurrowStorage
import BurrowStore

/// The names of the `@Persisted` properties that Swift key paths read, for the typed query DSL
/// and `sorted(by:)` with a key path.
///
/// Swift keeps no property names in key paths, so the name is found by reading: a fresh
/// instance of the class has every `@Persisted` field reset to "no value yet"; reading the key
/// path makes the one field it reads take its default value; that field is the property. Each
/// key path is read once per process and remembered.
enum KeyPathName {
    /// The names found so far, for every thread. A thread looks in its own `ThreadMemo` first:
    /// a key path literal without captured values (`\Dog.name`, `$0.name` in a query) is one
    /// instance for the life of the process, which the memo finds by identity, without the
    /// lock and without hashing the key path's components, which together cost more than the
    /// rest of building a simple query.
    private static let names = Locked<[SharedKeyPath: String]>([:])

    /// A key path kept in `names`, which every thread reads. Unchecked because a key path is
    /// Sendable only when what it captures is: the key paths here are immutable objects, and
    /// the values a subscript component captured are only hashed and compared, under the lock.
    private struct SharedKeyPath: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    /// The name of the `@Persisted` property of `Root` that `keyPath` reads. Traps if it reads
    /// none (a computed property) or several, which no query can test.
    static func name<Root, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        do {
            return try resolve(keyPath)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The name of the `@Persisted` property of `Root` that `keyPath` reads, whatever its
    /// value type (`\Dog.age` as a `PartialKeyPath<Dog>`). Traps as `name(of:)` does.
    static func name<Root>(ofPartial keyPath: PartialKeyPath<Root>) -> String {
        func named<Value>(_: Value.Type) -> String {
            // A key path from `Root` whose value type is `Value`: so typed by construction.
            name(of: keyPath as! KeyPath<Root, Value>)
        }
        // The value type, known only at run time, opened as a generic parameter.
        return _openExistential(type(of: keyPath).valueType, do: named)
    }

    /// The name of the `@Persisted` property of `Root` that `keyPath` reads; throws if it
    /// reads none or several, or `Root` is not an object class.
    static func resolve<Root, Value>(_ keyPath: KeyPath<Root, Value>) throws(RealmError) -> String {
        try resolveEntry(keyPath).name
    }

    /// The query path of the property `keyPath` reads, from an object of `Root`: one
    /// `QueryPath` per key path instance, made once per thread, so that `$0.name` in a query
    /// allocates no path of its own. Traps as `name(of:)` does.
    static func path<Root, Value>(of keyPath: KeyPath<Root, Value>) -> QueryPath {
        do {
            return try resolveEntry(keyPath).path
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The memo's entry for `keyPath`, made if it has none.
    private static func resolveEntry<Root, Value>(_ keyPath: KeyPath<Root, Value>) throws(RealmError) -> ThreadMemo.KeyPathEntry {
        let instance = ObjectIdentifier(keyPath)
        let memo = ThreadMemo.current
        if let entry = memo.keyPathNames.value(for: instance) { return entry }
        let name = try find(keyPath)
        let entry = ThreadMemo.KeyPathEntry(keyPath: keyPath, name: name, path: QueryPath([.property(name)]))
        memo.keyPathNames.add(instance, entry)
        return entry
    }

    /// The name `keyPath` reads, from the process-wide cache or found by reading it.
    private static func find<Root, Value>(_ keyPath: KeyPath<Root, Value>) throws(RealmError) -> String {
        if let found = names.withLock({ $0[SharedKeyPath(keyPath: keyPath)] }) { return found }
        let (info, read) = try fieldsRead(by: keyPath)
        guard read.count == 1 else {
            throw RealmError(
                .invalidArgument,
                "The key path \(keyPath) does not name one @Persisted property of \(info.name) (it reads \(read.count)); queries, sorting and aggregates can only use @Persisted properties."
            )
        }
        // A key path that goes further (`\Dog.toy?.name`: reading stops at the nil link) reads
        // one field too, but its value is not the field's.
        guard let field = info.fields[read[0]].accessor as? any TraceableField.Type, field.valueType == Value.self else {
            throw RealmError(
                .invalidArgument,
                "The key path \(keyPath) reads more than the @Persisted property '\(info.properties[read[0]].name)' of \(info.name); use a key path naming one property (or a dotted string key path)."
            )
        }
        let name = info.properties[read[0]].name
        names.withLock { $0[SharedKeyPath(keyPath: keyPath)] = name }
        return name
    }

    /// The name of the one `@Persisted` property of `Root` that `keyPath` reads, whether it names
    /// that property or computes its value from it (`\Dog.firstLetter`, reading `name`), as
    /// RealmSwift finds the property to sort sectioned results by. Throws if it reads none or
    /// several, or reads only a link (a key path that goes on through it).
    static func propertyRead<Root, Value>(by keyPath: KeyPath<Root, Value>) throws(RealmError) -> String {
        let (info, read) = try fieldsRead(by: keyPath)
        guard read.count == 1, info.properties[read[0]].objectClassName == nil else {
            throw RealmError(
                .invalidArgument,
                "The key path \(keyPath) does not read one @Persisted property of \(info.name) that can be sorted by (it reads \(counted(read.count, "property"))\(read.count == 1 ? ", a link" : "")); name the property to sort by with a SortDescriptor."
            )
        }
        return info.properties[read[0]].name
    }

    /// The class of `Root` and the indices of the `@Persisted` fields that reading `keyPath` on
    /// a fresh instance reads; for a `Projection`, the fields of its root class that reading
    /// `keyPath` on a projection of a fresh root object reads. Throws if `Root` is neither an
    /// object class nor a projection.
    private static func fieldsRead<Root, Value>(by keyPath: KeyPath<Root, Value>) throws(RealmError) -> (ClassInfo, [Int]) {
        let projection = (Root.self as? any _Persistable.Type).flatMap { $0._isProjection ? $0 : nil }
        guard let type = projection?._shape.objectType ?? Root.self as? ObjectBase.Type else {
            throw RealmError(
                .invalidArgument,
                "The key path \(keyPath) cannot be queried: queries name properties of Object and EmbeddedObject classes, not of \(Root.self).")
        }
        let info = ClassInfo.of(type)
        let object = type.init()
        let base = Unmanaged.passUnretained(object).toOpaque()
        for field in info.fields {
            (field.accessor as? any TraceableField.Type)?.reset(at: base + field.offset)
        }
        let root = projection.map { $0._fromStored(.object(object)) } ?? object
        _ = (root as! Root)[keyPath: keyPath]
        let read = info.fields.indices.filter { index in
            (info.fields[index].accessor as? any TraceableField.Type)?.wasRead(at: base + info.fields[index].offset) ?? false
        }
        withExtendedLifetime(object) {}
        return (info, read)
    }
}

/// A `@Persisted` field whose unmanaged value can be cleared and checked, for `KeyPathName`.
private protocol TraceableField {
    static func reset(at field: UnsafeMutableRawPointer)
    static func wasRead(at field: UnsafeMutableRawPointer) -> Bool
    static var valueType: Any.Type { get }
}

extension Persisted: TraceableField {
    fileprivate static func reset(at field: UnsafeMutableRawPointer) {
        field.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage = .unmanagedNoDefault
    }

    fileprivate static var valueType: Any.Type { Value.self }

    fileprivate static func wasRead(at field: UnsafeMutableRawPointer) -> Bool {
        if case .unmanaged = field.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage { return true }
        return false
    }
}
