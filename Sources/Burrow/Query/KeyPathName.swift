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

    /// The path of the `@Persisted` property `keyPath` reads, for sorting by it: its name, or
    /// through the single links the key path follows, their names and its own, dotted
    /// (`\Dog.owner?.name` is `"owner.name"`), as RealmSwift names a key path through links. A
    /// projection's key path names the root's properties. Traps if the key path does not end
    /// at one property's value (a computed property, a property of a collection's elements),
    /// as RealmSwift does: sorting cannot throw. A key path naming one property is memoized
    /// (`resolve`); one through links is traced at each call.
    static func sortPath<Root, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        if let name = try? resolve(keyPath) { return name }
        do {
            let traced = try trace(keyPath)
            guard traced.endsAtValue else {
                preconditionFailure(
                    "The key path \(keyPath) does not end at a @Persisted property's value (it reads '\(traced.path)' and computes from it); sort by a key path naming a property."
                )
            }
            return traced.path
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// `sortPath(of:)` of a key path whose value type is known only at run time (a
    /// `PartialKeyPath`: `\Dog.age` in `distinct(by:)` or `SortDescriptor(keyPath:)`).
    static func sortPath<Root>(ofPartial keyPath: PartialKeyPath<Root>) -> String {
        func path<Value>(_: Value.Type) -> String {
            // A key path from `Root` whose value type is `Value`: so typed by construction.
            sortPath(of: keyPath as! KeyPath<Root, Value>)
        }
        return _openExistential(type(of: keyPath).valueType, do: path)
    }

    /// The path of the one `@Persisted` property that `keyPath` reads, whether it names that
    /// property or computes its value from it (`\Dog.firstLetter`, reading `name`), as RealmSwift
    /// finds the property to sort sectioned results by; through single links, dotted
    /// (`\Dog.owner?.name` is `"owner.name"`). Throws if it reads no property or several of
    /// one object, or ends at a link (objects do not sort).
    static func propertyRead<Root, Value>(by keyPath: KeyPath<Root, Value>) throws(RealmError) -> String {
        let traced = try trace(keyPath)
        guard !traced.endsAtLink else {
            throw RealmError(
                .invalidArgument,
                "The key path \(keyPath) reads the link '\(traced.path)', which cannot be sorted by; name a property of the linked object, or sort with a SortDescriptor and section with a block."
            )
        }
        return traced.path
    }

    /// What reading `keyPath` reads: the dotted path of properties, following the single links
    /// it goes through (each replaced, while reading, by a fresh object of the linked class, so
    /// that reading goes on into it); whether the value is the last property's own, and whether
    /// that property is a link. A loop, as deep as the key path's links (at most 32).
    private static func trace<Root, Value>(_ keyPath: KeyPath<Root, Value>) throws(RealmError) -> (path: String, endsAtValue: Bool, endsAtLink: Bool)
    {
        let (rootInfo, rootObject) = try freshRoot(of: keyPath)
        let subject = rootSubject(rootObject, as: Root.self)
        var (info, object) = (rootInfo, rootObject)
        var names: [String] = []
        for _ in 0..<32 {
            let read = fieldsRead(of: object, info) { _ = subject[keyPath: keyPath] }
            guard read.count == 1 else {
                throw RealmError(
                    .invalidArgument,
                    "The key path \(keyPath) does not read one @Persisted property of \(info.name) that can be sorted by (it reads \(counted(read.count, "property")) of it); name the property to sort by with a SortDescriptor."
                )
            }
            let field = info.fields[read[0]]
            names.append(info.properties[read[0]].name)
            let traceable = field.accessor as? any TraceableField.Type
            let shape = field.accessor.shape
            let endsAtValue = traceable?.holds(Value.self) ?? false
            guard !endsAtValue, shape.collection == .single, let target = shape.objectType, let traceable else {
                return (names.joined(separator: "."), endsAtValue, shape.objectType != nil)
            }
            let next = target.init()
            guard traceable.link(next, at: Unmanaged.passUnretained(object).toOpaque() + field.offset) else {
                return (names.joined(separator: "."), false, true)
            }
            // The field holds `next` now, and the root holds the chain of links to it.
            (info, object) = (ClassInfo.of(target), next)
        }
        throw RealmError(.invalidArgument, "The key path \(keyPath) goes through more than 32 links; name the property with a string key path.")
    }

    /// The class of `Root` and a fresh instance of it; for a `Projection`, of its root class.
    /// Throws if `Root` is neither an object class nor a projection.
    private static func freshRoot<Root, Value>(of keyPath: KeyPath<Root, Value>) throws(RealmError) -> (ClassInfo, ObjectBase) {
        let projection = (Root.self as? any _Persistable.Type).flatMap { $0._isProjection ? $0 : nil }
        guard let type = projection?._shape.objectType ?? Root.self as? ObjectBase.Type else {
            throw RealmError(
                .invalidArgument,
                "The key path \(keyPath) cannot be queried: queries name properties of Object and EmbeddedObject classes, not of \(Root.self).")
        }
        return (ClassInfo.of(type), type.init())
    }

    /// What a key path from `Root` reads `object` as: the object, or for a projection class, a
    /// projection of it.
    private static func rootSubject<Root>(_ object: ObjectBase, as _: Root.Type) -> Root {
        guard let projection = Root.self as? any _Persistable.Type, projection._isProjection else { return object as! Root }
        return projection._fromStored(.object(object)) as! Root
    }

    /// The indices of the `@Persisted` fields of `object` (of class `info`) that `read` reads,
    /// each field reset to "no value yet" first.
    private static func fieldsRead(of object: ObjectBase, _ info: ClassInfo, _ read: () -> Void) -> [Int] {
        let base = Unmanaged.passUnretained(object).toOpaque()
        for field in info.fields {
            (field.accessor as? any TraceableField.Type)?.reset(at: base + field.offset)
        }
        read()
        return info.fields.indices.filter { index in
            (info.fields[index].accessor as? any TraceableField.Type)?.wasRead(at: base + info.fields[index].offset) ?? false
        }
    }

    /// The class of `Root` and the indices of the `@Persisted` fields that reading `keyPath` on
    /// a fresh instance reads; for a `Projection`, the fields of its root class that reading
    /// `keyPath` on a projection of a fresh root object reads. Throws if `Root` is neither an
    /// object class nor a projection.
    private static func fieldsRead<Root, Value>(by keyPath: KeyPath<Root, Value>) throws(RealmError) -> (ClassInfo, [Int]) {
        let (info, object) = try freshRoot(of: keyPath)
        let subject = rootSubject(object, as: Root.self)
        let read = fieldsRead(of: object, info) { _ = subject[keyPath: keyPath] }
        withExtendedLifetime(object) {}
        return (info, read)
    }
}

/// A `@Persisted` field whose unmanaged value can be cleared and checked, for `KeyPathName`.
private protocol TraceableField {
    static func reset(at field: UnsafeMutableRawPointer)
    static func wasRead(at field: UnsafeMutableRawPointer) -> Bool
    static var valueType: Any.Type { get }
    /// Whether a key path whose value is of `type` ends at this field: its value type, or the
    /// optional of it (read through an optional link).
    static func holds(_ type: Any.Type) -> Bool
    /// Makes the field (a link) hold `object`, so that reading a key path goes on into it;
    /// false if it cannot hold it.
    static func link(_ object: ObjectBase, at field: UnsafeMutableRawPointer) -> Bool
}

extension Persisted: TraceableField {
    fileprivate static func reset(at field: UnsafeMutableRawPointer) {
        field.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage = .unmanagedNoDefault
    }

    fileprivate static var valueType: Any.Type { Value.self }

    fileprivate static func holds(_ type: Any.Type) -> Bool { type == Value.self || type == Value?.self }

    fileprivate static func link(_ object: ObjectBase, at field: UnsafeMutableRawPointer) -> Bool {
        guard let value = try? Value._convert(object, property: "") else { return false }
        field.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage = .unmanaged(value)
        return true
    }

    fileprivate static func wasRead(at field: UnsafeMutableRawPointer) -> Bool {
        if case .unmanaged = field.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage { return true }
        return false
    }
}
