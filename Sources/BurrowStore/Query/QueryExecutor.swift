import BurrowStorage
import Foundation

/// Runs queries in one version of the file (a live realm's current version, the open write
/// transaction, or a frozen version): predicates are evaluated on encoded rows, decoding only
/// the fields they test and creating no objects; a condition on the primary key or an indexed
/// property narrows the rows read to those its index lists.
///
/// An executor is used for one evaluation and then dropped: it caches paths compiled against
/// the tables of its version, which another version may lay out differently.
///
/// How a query is answered (every object, one index probe, a scan, the general evaluation) is
/// `QueryPlan`'s decision; the executor carries the plan out (`QueryExecutor+Plan.swift`).
///
/// Every read it makes throws the engine's error (a damaged page, a failed read) up to its
/// entry points: `evaluation`, `keys` and `aggregateValue` throw it, for APIs that can throw;
/// `evaluate`, `count` and `aggregate` trap with it, for getters that cannot (see "Read errors"
/// in Architecture.md).
package final class QueryExecutor {
    package let context: any RowReader
    package let reader: any TreeReader
    private var compiledPaths: [PathKey: CompiledPath] = [:]

    private struct PathKey: Hashable {
        package let table: UInt32
        /// Whether the path starts from a dynamic table, whose links lead to dynamic tables.
        package let dynamic: Bool
        package let path: QueryPath
    }

    package init(context: any RowReader) {
        self.context = context
        reader = context.reader
    }

    // MARK: Paths

    /// One step of a path, resolved to the row fields and trees of one version.
    package struct Step {
        package enum Kind {
            /// A row field holding one value (or link).
            case field(Int)
            /// A `List`, `MutableSet` or `Map` field: its elements' tree.
            case collection(field: Int, tree: TreeName, kind: CollectionKind)
            /// `LinkingObjects`: the objects of `origin` whose field `originField` links here.
            case backlinks(origin: Table, originField: Int)
            /// `@links`: every link here, from any class and field.
            case allBacklinks
            /// The value under a key of the map the previous step reached.
            case mapKey(String)
            /// The keys of the map the previous step reached.
            case mapKeys
        }
        package let kind: Kind
        package let type: PropertyType
        /// The table links point into (for link fields and collections of links).
        package let target: Table?
    }

    /// A path resolved for one table; nil steps mean the path reaches nothing in this version
    /// (a property the file does not have yet).
    package struct CompiledPath {
        package let steps: [Step]?
    }

    package func compile(_ path: QueryPath, from table: Table) -> CompiledPath {
        let dynamic = table.declared.isDynamic
        let cacheKey = PathKey(table: table.id, dynamic: dynamic, path: path)
        if let known = compiledPaths[cacheKey] { return known }
        var steps: [Step] = []
        var current: Table? = table
        var valid = true
        var previousWasMap = false
        /// Follows the links of `originProperty` of class `originName` back to their objects:
        /// the property the file stores under that name, or (`declaredName`) the one the class
        /// declares by that name.
        func appendBacklinks(from originName: String?, _ originProperty: String?, declaredName: Bool = false) -> Bool {
            guard let originName, let originProperty, let id = context.storedClassId(named: originName),
                let origin = dynamic ? context.dynamicTable(id: id) : context.storedTable(id: id),
                let originField = declaredName ? origin.field(named: originProperty) : origin.stored.fieldIndex(of: originProperty)
            else { return false }
            steps.append(Step(kind: .backlinks(origin: origin, originField: originField), type: .object, target: origin))
            current = origin
            previousWasMap = false
            return true
        }
        for component in path.components {
            switch component {
            case .property(let name):
                if previousWasMap, let last = steps.last {
                    steps.append(Step(kind: .mapKey(name), type: last.type, target: last.target))
                    previousWasMap = false
                    continue
                }
                guard let table = current, let index = table.declared.propertyIndex[name] else {
                    // A LinkingObjects property the file records for a class read without its
                    // Swift class.
                    let recorded = current?.recordedLinkingObjects(named: name)
                    valid = appendBacklinks(from: recorded?.objectClassName, recorded?.linkOriginPropertyName)
                    break
                }
                let property = table.declared.properties[index]
                if property.type == .linkingObjects {
                    valid = appendBacklinks(from: property.objectClassName, property.linkOriginPropertyName)
                    break
                }
                guard let field = table.fieldOf[index] else {
                    valid = false
                    break
                }
                let type = table.fieldTypes[field]
                let target = type == .object ? context.table(id: context.linkTarget(table, field), dynamic: dynamic) : nil
                if let tree = table.collectionTrees[field] {
                    let kind = table.stored.properties[field].collection
                    steps.append(Step(kind: .collection(field: field, tree: tree, kind: kind), type: type, target: target))
                    previousWasMap = kind == .map
                } else {
                    steps.append(Step(kind: .field(field), type: type, target: target))
                    previousWasMap = false
                }
                current = target
            case .mapKey(let key):
                guard let last = steps.last else {
                    valid = false
                    break
                }
                steps.append(Step(kind: .mapKey(key), type: last.type, target: last.target))
                previousWasMap = false
            case .keys:
                steps.append(Step(kind: .mapKeys, type: .string, target: nil))
                previousWasMap = false
            case .backlinks(let className, let property):
                valid = current != nil && appendBacklinks(from: className, property, declaredName: true)
            case .allBacklinks:
                steps.append(Step(kind: .allBacklinks, type: .object, target: nil))
                current = nil
                previousWasMap = false
            case .values:
                previousWasMap = false
            }
            if !valid { break }
        }
        let compiled = CompiledPath(steps: valid ? steps : nil)
        compiledPaths[cacheKey] = compiled
        return compiled
    }

    /// Appends the values `path` reaches from object `key` of `table`, whose row is `row`. A
    /// chain of single links broken by a nil link reaches one null (so `toy.name == nil` holds
    /// for a dog without a toy); a path through a collection reaches nothing from it.
    package func values(_ path: CompiledPath, _ table: Table, _ key: ObjectKey, _ row: UnsafeRawBufferPointer, into out: inout [QueryValue])
        throws(StorageError)
    {
        guard let steps = path.steps else {
            out.append(.null)
            return
        }
        guard !steps.isEmpty else {
            // The object itself (`SELF`).
            out.append(.object(.stored(table: table.id, key: key.rawValue)))
            return
        }
        try collect(steps[...], table, key, row, many: false, into: &out)
    }

    /// Appends the elements of the collection `path` reaches from object `key` of `table`,
    /// for SUBQUERY: nothing where a nil link comes before the collection (where `values`
    /// reaches one null, which a collection of optionals could hold too).
    package func elements(_ path: CompiledPath, _ table: Table, _ key: ObjectKey, _ row: UnsafeRawBufferPointer, into out: inout [QueryValue])
        throws(StorageError)
    {
        guard let steps = path.steps, !steps.isEmpty else { return }
        try collect(steps[...], table, key, row, many: true, into: &out)
    }

    private func collect(
        _ steps: ArraySlice<Step>, _ table: Table, _ key: ObjectKey, _ row: UnsafeRawBufferPointer, many: Bool, into out: inout [QueryValue]
    ) throws(StorageError) {
        guard let step = steps.first else { return }
        let rest = steps.dropFirst()
        switch step.kind {
        case .field(let field):
            let payload = RowCodec.field(row, field)
            if rest.isEmpty {
                out.append(try payload.map { p throws(StorageError) in try value(ofField: p, step.type, table, key, field) } ?? .null)
                return
            }
            guard let payload, let link = ValueCodec.linkKey(payload, as: step.type), let target = step.target else {
                if !many { out.append(.null) }
                return
            }
            try follow(rest, target, link.key, many: many, into: &out)
        case .collection(let field, let tree, _):
            let property = table.stored.properties[field]
            var entries: [(mapKey: String?, payload: [UInt8])] = []
            if let next = rest.first, case .mapKey(let mapKey) = next.kind {
                let found = try reader.withValue(tree, ObjectStore.collectionEntryKey(key, mapKey: mapKey)) { value in
                    CollectionEntry.mapElement(value, of: property).map { Array($0) }
                }
                guard let found else {
                    if !many { out.append(.null) }
                    return
                }
                switch found {
                case .failure(let problem): throw reader.damagedEntry(tree, of: key, property, problem)
                case .success(let element): try elementValues(element, step, rest.dropFirst(), many: many, into: &out)
                }
                return
            }
            try ObjectStore.forEachStoredElement(of: key, in: tree, of: reader, property) { mapKey, element in
                entries.append((mapKey, Array(element)))
            }
            if let next = rest.first, case .mapKeys = next.kind {
                for entry in entries { out.append(.string(entry.mapKey ?? "")) }
                return
            }
            for entry in entries {
                try elementValues(entry.payload, step, rest, many: true, into: &out)
            }
        case .backlinks(let origin, let originField):
            for source in try backlinks(to: key, of: table, from: origin, field: originField) {
                if rest.isEmpty {
                    out.append(.object(.stored(table: origin.id, key: source.rawValue)))
                } else {
                    try follow(rest, origin, source, many: true, into: &out)
                }
            }
        case .allBacklinks:
            // Only counted (`linkCount`), never collected: the validator admits `@links` only
            // before `@count`.
            return
        case .mapKey, .mapKeys:
            // Handled with the map's own step.
            return
        }
    }

    /// The keys of the objects of `origin` whose field `field` links to object `key` of
    /// `table`, in key order.
    package func backlinks(to key: ObjectKey, of table: Table, from origin: Table, field: Int) throws(StorageError) -> [ObjectKey] {
        var prefix = key.bytes
        withUnsafeBytes(of: origin.id.bigEndian) { prefix.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt16(field).bigEndian) { prefix.append(contentsOf: $0) }
        var sources: [ObjectKey] = []
        try reader.scan(table.backlinksTree, prefix: prefix) { entry, _ in
            sources.append(ObjectKey.read(entry, at: 14))
            return true
        }
        return sources
    }

    /// `@links.@count` at the end of `steps`: for each object the steps before it reach from
    /// object `key` of `table`, whose row is `row` (the object itself when there are none),
    /// how many links point at it from every class and field; as in RealmSwift, each count is
    /// a value the comparison tests, none for a nil link.
    package func linkCounts(_ steps: [Step], _ table: Table, _ key: ObjectKey, _ row: UnsafeRawBufferPointer) throws(StorageError) -> [QueryValue] {
        guard steps.count > 1 else { return [.int(Int64(try linkCount(to: key, ofClass: table.id)))] }
        var reached: [QueryValue] = []
        try collect(steps.dropLast(), table, key, row, many: false, into: &reached)
        var counts: [QueryValue] = []
        for case .object(.stored(let id, let target)) in reached {
            counts.append(.int(Int64(try linkCount(to: ObjectKey(target), ofClass: id))))
        }
        return counts
    }

    /// How many links point at object `key` of the class stored with id `id`: the sum of the
    /// counts its backlink entries hold, each the links of one field of one object (a list
    /// that holds the object twice links to it twice).
    private func linkCount(to key: ObjectKey, ofClass id: UInt32) throws(StorageError) -> Int {
        var total = 0
        try reader.scan(Backlinks.treeName(id), prefix: key.bytes) { _, value in
            // An entry too short to hold its count is one link; the verifier reports it.
            total += value.count >= 4 ? Int(ValueCodec.u32(value, 0)) : 1
            return true
        }
        return total
    }

    /// The value of one collection element (or map value) `payload`, or what the rest of the
    /// path reaches from the object it links to.
    private func elementValues(_ payload: [UInt8], _ step: Step, _ rest: ArraySlice<Step>, many: Bool, into out: inout [QueryValue])
        throws(StorageError)
    {
        if rest.isEmpty {
            out.append(payload.withUnsafeBytes { elementValue($0, step.type, target: step.target) })
            return
        }
        guard let link = payload.withUnsafeBytes({ ValueCodec.linkKey($0, as: step.type) }), let target = step.target else {
            if !many { out.append(.null) }
            return
        }
        try follow(rest, target, link.key, many: many, into: &out)
    }

    private func follow(_ steps: ArraySlice<Step>, _ table: Table, _ key: ObjectKey, many: Bool, into out: inout [QueryValue]) throws(StorageError) {
        let found: Void? = try withRow(table, key) { row throws(StorageError) in try collect(steps, table, key, row, many: many, into: &out) }
        if found == nil, !many { out.append(.null) }
    }

    /// The value of field `field` (of `type`) in `row`, the row of object `key` of `table`.
    @inline(__always)
    package func fieldValue(_ row: UnsafeRawBufferPointer, _ field: Int, _ type: PropertyType, _ table: Table, _ key: ObjectKey) throws(StorageError)
        -> QueryValue
    {
        guard let payload = RowCodec.field(row, field) else { return .null }
        return try value(ofField: payload, type, table, key, field)
    }

    /// The value of a row field's payload (links as their keys, never as objects).
    @inline(__always)
    private func value(
        ofField payload: UnsafeRawBufferPointer, _ type: PropertyType, _ table: Table, _ key: ObjectKey, _ field: Int
    ) throws(StorageError) -> QueryValue {
        switch type {
        case .int: return ValueCodec.int(payload).map { .int($0) } ?? .null
        case .bool: return payload.isEmpty ? .null : .bool(payload[0] != 0)
        case .object:
            guard let link = ValueCodec.linkKey(payload, as: type) else { return .null }
            return .object(.stored(table: context.linkTarget(table, field), key: link.key.rawValue))
        case .any:
            if let link = ValueCodec.linkKey(payload, as: type) { return .object(.stored(table: link.table ?? 0, key: link.key.rawValue)) }
            return try context.decodedPayload(payload, table, key, field) { .object(.stored(table: $0, key: $1.rawValue)) }
        default:
            return try context.decodedPayload(payload, table, key, field) { .object(.stored(table: $0, key: $1.rawValue)) }
        }
    }

    private func elementValue(_ payload: UnsafeRawBufferPointer, _ type: PropertyType, target: Table?) -> QueryValue {
        if type == .object || type == .any, let link = ValueCodec.linkKey(payload, as: type) {
            return .object(.stored(table: link.table ?? target?.id ?? 0, key: link.key.rawValue))
        }
        if type == .object { return .null }
        return ValueCodec.decode(payload, as: type, linkTarget: 0) { _, _ in QueryValue.null }
    }

    /// Calls `body` with the row and object key of each object of `table` for whose row
    /// `wanted` is true, in key order, until `body` returns false. The key is read only then:
    /// most rows a filter tests are not kept, and a fold keeps none. Reading a snapshot, the
    /// rows tree's cursor is stepped here, in the caller's loop, so that both closures are
    /// inlined into it rather than called through the reader; a write transaction's rows are
    /// read through its reader. Neither closure throws: on the path every scan of a class
    /// takes, a throwing closure costs a fifth more instructions per row (a body that can fail
    /// keeps its error and returns false).
    @inline(__always)
    package func scanRows(
        _ table: Table, where wanted: (_ row: UnsafeRawBufferPointer) -> Bool,
        _ body: (_ row: UnsafeRawBufferPointer, _ key: ObjectKey) -> Bool
    ) throws(StorageError) {
        guard let snapshot = reader as? SnapshotReader, !snapshot.rowsAreOld else {
            try scanRowsThroughReader(table) { key, row in
                wanted(row) ? body(row, ObjectKey.read(key)) : true
            }
            return
        }
        try snapshot.tree(table.rowsTree)?.forEachEntry { key, row in
            wanted(row) ? body(row, ObjectKey.read(key)) : true
        }
    }

    /// `reader.scan` of `table`'s rows, each in `RowCodec`'s form: a row of a version of file
    /// format 4 or 5 is converted for `body` (`LegacyRowCodec.withConverted`), and valid only inside it.
    package func scanRowsThroughReader(
        _ table: Table, _ body: (_ key: UnsafeRawBufferPointer, _ row: UnsafeRawBufferPointer) -> Bool
    ) throws(StorageError) {
        guard reader.rowsAreOld else { return try reader.scan(table.rowsTree, from: [], body) }
        try reader.scan(table.rowsTree, from: []) { key, row in
            LegacyRowCodec.withConverted(row, from: reader.rowFormat, fields: table.legacyFields) { body(key, $0) }
        }
    }

    /// `scanRowsThroughReader` with a body that may fail: the scan stops at the body's first
    /// error, which is thrown.
    package func scanRows(
        _ table: Table, _ body: (_ key: UnsafeRawBufferPointer, _ row: UnsafeRawBufferPointer) throws(StorageError) -> Bool
    ) throws(StorageError) {
        try Self.stoppingAtFirstError(body) { entry throws(StorageError) in try scanRowsThroughReader(table, entry) }
    }

    /// `reader.scan` with a body that may fail: the scan stops at the body's first error, which
    /// is thrown.
    package func scan(
        _ tree: TreeName, from start: [UInt8], _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(StorageError) -> Bool
    ) throws(StorageError) {
        try Self.stoppingAtFirstError(body) { entry throws(StorageError) in try reader.scan(tree, from: start, entry) }
    }

    /// Runs `scan` with an entry body that calls `body` until it fails, and throws its error.
    private static func stoppingAtFirstError(
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(StorageError) -> Bool,
        _ scan: ((UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) throws(StorageError) -> Void
    ) throws(StorageError) {
        var failure: StorageError?
        // `scan` runs the entry body only while it runs itself.
        try withoutActuallyEscaping(body) { body throws(StorageError) in
            try scan { key, value in
                do throws(StorageError) {
                    return try body(key, value)
                } catch {
                    failure = error
                    return false
                }
            }
        }
        if let failure { throw failure }
    }

    /// Calls `body` with the row of object `key` and returns its result, or nil if there is no
    /// such row.
    package func withRow<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) throws(StorageError) -> R) throws(StorageError) -> R? {
        let result = try withUnsafeBytes(of: key.rawValue.bigEndian) { k throws(StorageError) in
            try reader.withValue(table.rowsTree, k) { row in
                guard reader.rowsAreOld else { return Result { () throws(StorageError) in try body(row) } }
                return LegacyRowCodec.withConverted(row, from: reader.rowFormat, fields: table.legacyFields) { row in
                    Result { () throws(StorageError) in try body(row) }
                }
            }
        }
        return try result?.get()
    }
}
