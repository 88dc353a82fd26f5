import BurrowStorage
import Foundation

/// Narrowing a filter with the primary key or a secondary index.
///
/// Index keys are order-preserving (`IndexKey`), so `==` and `IN` are seeks and ranges are
/// scans between two keys. The keys an index gives are candidates only: every candidate's row
/// is still tested against the whole predicate, which keeps index and scan results identical
/// even where index keys are coarser than values (long strings cut and hashed, dates keyed at
/// `Double` precision since 1970).
extension QueryExecutor {
    /// The keys of the objects that may satisfy `predicate`, in key order, if one of its
    /// top-level conditions can be answered by the primary key or an index; nil if the table
    /// must be scanned. `exactConjunct` is the position (in `predicate.conjuncts`) of the
    /// condition if the index answered it exactly: an `==` or `IN` on values whose index keys
    /// are the values themselves, so that every key listed satisfies it and no row need be
    /// read to check it.
    package func indexCandidates(_ predicate: QueryPredicate, _ table: Table) throws(StorageError) -> (keys: [ObjectKey], exactConjunct: Int?)? {
        try indexCandidates(conjuncts: predicate.conjuncts, table)
    }

    /// `indexCandidates(_:_:)` for a predicate's `conjuncts`, found already.
    package func indexCandidates(
        conjuncts: some Collection<QueryPredicate>, _ table: Table
    ) throws(StorageError) -> (keys: [ObjectKey], exactConjunct: Int?)? {
        for (position, conjunct) in conjuncts.enumerated() {
            guard case .comparison(let raw) = conjunct else { continue }
            let c = raw.normalized
            guard let field = Self.indexableField(of: c, in: table) else { continue }
            let type = table.fieldTypes[field]
            let found: [ObjectKey]?
            if field == table.primaryKeyField {
                found = try primaryKeyCandidates(c, table, type)
            } else if let tree = table.fieldIndexTrees[field] {
                found = try secondaryIndexCandidates(c, tree, type, table)
            } else {
                found = nil
            }
            guard var keys = found else { continue }
            let exact = Self.answersExactly(c) ? position : nil
            guard keys.count > 1 else { return (keys, exact) }
            keys = keys.count > 64 ? Self.radixOrder(keys.map(\.rawValue)).map { keys[$0] } : keys.sorted()
            var unique: [ObjectKey] = []
            unique.reserveCapacity(keys.count)
            for key in keys where unique.last != key { unique.append(key) }
            return (unique, exact)
        }
        return nil
    }

    /// The probe that finds the first object of `table` satisfying `predicate` (in key order,
    /// as every evaluation orders them), if the predicate is one condition that one probe of the
    /// primary key or an index answers exactly: `==` on the primary key or an indexed property
    /// with a constant whose index key is the value itself. Nil if the query has another form.
    /// Reads nothing: `QueryPlan` asks it, and `first(_:_:in:)` runs the probe.
    package static func indexProbe(_ predicate: QueryPredicate, _ table: Table) -> QueryPlan.IndexProbe? {
        guard case .comparison(let raw) = predicate else { return nil }
        let c = raw.normalized
        guard c.op == .equal, case .constant(let value) = c.rhs, exactlyIndexed(value),
            let field = indexableField(of: c, in: table), indexable(value, table.fieldTypes[field])
        else { return nil }
        if field == table.primaryKeyField { return QueryPlan.IndexProbe(index: nil, value: value) }
        guard let tree = table.fieldIndexTrees[field] else { return nil }
        return QueryPlan.IndexProbe(index: tree, value: value)
    }

    /// The first object `probe` finds in `table`, or nil if no object has the value: one
    /// descent, no row read. The entries of one value in an index follow each other in
    /// object-key order, so the first entry of the value is the first object. Static: it needs
    /// no executor, so `where { $0.name == x }.first` costs one descent and one object.
    package static func first(_ probe: QueryPlan.IndexProbe, _ table: Table, in context: some RowReader) throws(StorageError) -> ObjectKey? {
        guard let tree = probe.index else { return try context.objectKey(table, primaryKey: probe.value.storeValue) }
        // A probed value is never a link (`indexable`), so it is encoded as the query holds it.
        let found = IndexKey.withEncoded(probe.value) { key in
            Result { () throws(StorageError) in try context.firstIndexed(tree, value: key) }
        }
        return try found.get()
    }

    /// Whether the primary key or an index might give candidates for `predicate`: one of its
    /// top-level conditions tests a property that has one, as `indexCandidates` looks for
    /// them. When none does, `indexCandidates` finds nothing without reading, and the filter is
    /// a scan. Reads nothing.
    package static func indexMayAnswer(_ predicate: QueryPredicate, _ table: Table) -> Bool {
        func indexed(_ condition: QueryPredicate) -> Bool {
            guard case .comparison(let raw) = condition, let field = indexableField(of: raw.normalized, in: table) else { return false }
            return field == table.primaryKeyField || table.fieldIndexTrees[field] != nil
        }
        if case .and(let conjuncts) = predicate { return conjuncts.contains(where: indexed) }
        return indexed(predicate)
    }

    /// The row field of the property a comparison tests, if an index could answer it: a
    /// property of the object itself, without string options or ALL/NONE. (Whether the field
    /// has an index, and the operator and constant suit it, is the caller's to check.)
    private static func indexableField(of c: QueryComparison, in table: Table) -> Int? {
        guard c.options.isEmpty, c.quantifier == .any, case .path(let path) = c.lhs, path.components.count == 1,
            case .property(let name) = path.components[0], let index = table.declared.propertyIndex(named: name)
        else { return nil }
        return table.fieldOf[index]
    }

    /// Whether the keys an index lists for `c` all satisfy it: `==` and `IN` on constants
    /// whose index keys are exactly their values (no string cut and hashed, no date rounded to
    /// a `Double`), and `BEGINSWITH` a prefix no longer than the part of a string an index
    /// key keeps whole.
    private static func answersExactly(_ c: QueryComparison) -> Bool {
        switch (c.op, c.rhs) {
        case (.equal, _): exactlyIndexed(c.rhs)
        case (.beginsWith, .constant(.string(let prefix))): prefix.utf8.count <= KeyEncoding.boundedLength
        default: false
        }
    }

    private static func exactlyIndexed(_ side: QueryExpression) -> Bool {
        switch side {
        case .constant(let value): exactlyIndexed(value)
        case .list(let list): list.allSatisfy(exactlyIndexed)
        default: false
        }
    }

    private static func exactlyIndexed(_ value: QueryValue) -> Bool {
        switch value {
        case .null, .int, .bool, .objectId, .uuid: true
        case .string(let s): s.utf8.count <= KeyEncoding.boundedLength
        default: false
        }
    }

    /// `==` and `IN` on the primary key, through the realm's own lookup by primary key
    /// (however it finds objects); the primary key keeps no order to scan, so ranges scan.
    private func primaryKeyCandidates(_ c: QueryComparison, _ table: Table, _ type: PropertyType) throws(StorageError) -> [ObjectKey]? {
        switch (c.op, c.rhs) {
        case (.equal, .constant(let value)) where Self.indexable(value, type):
            return try context.objectKey(table, primaryKey: value.storeValue).map { [$0] } ?? []
        case (.equal, .list(let values)) where values.allSatisfy({ Self.indexable($0, type) }):
            var keys: [ObjectKey] = []
            for value in values {
                if let key = try context.objectKey(table, primaryKey: value.storeValue) { keys.append(key) }
            }
            return keys
        default:
            return nil
        }
    }

    /// `==`, `IN`, ranges, `BETWEEN` and `BEGINSWITH` on a secondary index; nil if the index
    /// does not apply, or lists so many objects that reading their rows one by one would cost
    /// more than one scan of all rows (see `CandidateBudget`).
    private func secondaryIndexCandidates(
        _ c: QueryComparison, _ tree: TreeName, _ type: PropertyType, _ table: Table
    ) throws(StorageError) -> [ObjectKey]? {
        var budget = CandidateBudget(executor: self, table: table)
        var found: [ObjectKey] = []
        let complete: Bool
        switch (c.op, c.rhs) {
        case (.equal, .constant(let value)) where Self.indexable(value, type):
            complete = try collect(tree, prefix: IndexKey.encode(value.storeValue), into: &found, &budget)
        case (.equal, .list(let values)) where values.allSatisfy({ Self.indexable($0, type) }):
            var all = true
            for value in values where all {
                all = try collect(tree, prefix: IndexKey.encode(value.storeValue), into: &found, &budget)
            }
            complete = all
        case (.between, .list(let bounds)) where bounds.count == 2 && bounds.allSatisfy({ Self.orderable($0, type) }):
            complete = try range(tree, from: bounds[0], to: bounds[1], into: &found, &budget)
        case (.less, .constant(let v)) where Self.orderable(v, type), (.lessOrEqual, .constant(let v)) where Self.orderable(v, type):
            complete = try range(tree, from: nil, to: v, into: &found, &budget)
        case (.greater, .constant(let v)) where Self.orderable(v, type), (.greaterOrEqual, .constant(let v)) where Self.orderable(v, type):
            complete = try range(tree, from: v, to: nil, into: &found, &budget)
        case (.beginsWith, .constant(.string(let prefix))) where type == .string:
            // A string's key is its bytes with each 0x00 escaped as 0x00 0xFF, then a
            // terminator (0x00 0x00, or 0x00 0x01 and a hash for a cut string) that no escaped
            // byte sequence starts with: the strings starting with the prefix are exactly the
            // keys starting with its escaped bytes. A prefix longer than a key keeps whole
            // finds the strings starting with its first part.
            var start = [ValueCodec.Tag.string.rawValue]
            KeyEncoding.appendBounded(Array(prefix.utf8.prefix(KeyEncoding.boundedLength)), to: &start)
            start.removeLast(2)
            guard try budget.allows(tree, from: start, to: Self.successor(of: start)) else { return nil }
            complete = try collect(tree, prefix: start, into: &found, &budget)
        default:
            return nil
        }
        return complete ? found : nil
    }

    /// How many objects an index may list before a scan of every row is the cheaper way: a
    /// row read through its key costs about as much as `scanShare` rows read in a scan.
    /// Tables of up to `smallTable` rows always take the index (either way is cheap there).
    private struct CandidateBudget {
        package static let scanShare = 16
        package static let smallTable = 1024
        package let executor: QueryExecutor
        package let table: Table
        private var limit: Int?

        package init(executor: QueryExecutor, table: Table) {
            self.executor = executor
            self.table = table
        }

        /// Whether `count` candidates are still worth reading through the index.
        package mutating func allows(_ count: Int) throws(StorageError) -> Bool {
            guard count > Self.smallTable else { return true }
            if limit == nil {
                limit = max(Self.smallTable, try executor.reader.count(table.rowsTree) / Self.scanShare)
            }
            return count <= limit!
        }

        /// Whether the entries of `tree` from `start` up to `end` (nil: the end of the tree)
        /// are few enough, counted in two descents without reading them.
        package mutating func allows(_ tree: TreeName, from start: [UInt8], to end: [UInt8]?) throws(StorageError) -> Bool {
            let reader = executor.reader
            let upper: Int
            if let end { upper = try reader.position(tree, of: end) } else { upper = try reader.count(tree) }
            return try allows(upper - (try reader.position(tree, of: start)))
        }
    }

    /// The smallest key after every key that starts with `prefix` (nil if there is none: the
    /// prefix is all 0xFF).
    private static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var key = prefix
        while let last = key.last {
            if last < 0xFF {
                key[key.count - 1] = last + 1
                return key
            }
            key.removeLast()
        }
        return nil
    }

    /// Whether `value` has the index key form of values of `type` (so equal values have
    /// equal keys). Null is indexed too (its key sorts first).
    private static func indexable(_ value: QueryValue, _ type: PropertyType) -> Bool {
        value.isNull || orderable(value, type)
    }

    private static func orderable(_ value: QueryValue, _ type: PropertyType) -> Bool {
        switch (value, type) {
        case (.int, .int), (.bool, .bool), (.string, .string), (.date, .date), (.objectId, .objectId), (.uuid, .uuid): true
        default: false
        }
    }

    /// Appends the object keys of the entries of `tree` whose keys start with `prefix` (an
    /// entry is a value's key and 8 bytes of object key); false if the budget ran out first.
    private func collect(_ tree: TreeName, prefix: [UInt8], into found: inout [ObjectKey], _ budget: inout CandidateBudget) throws(StorageError)
        -> Bool
    {
        try withBytes(prefix) { value throws(StorageError) in
            try collect(tree, from: prefix, into: &found, &budget) { ObjectStore.indexEntry($0, objectWithValue: value) != nil }
        }
    }

    /// Appends the object keys of the entries whose values may lie between `low` and `high`
    /// (either bound missing: to the end of the values of that type). Bounds are inclusive
    /// here; the rows are tested afterwards.
    private func range(
        _ tree: TreeName, from low: QueryValue?, to high: QueryValue?, into found: inout [ObjectKey], _ budget: inout CandidateBudget
    ) throws(StorageError) -> Bool {
        guard let bound = low ?? high else { return true }
        let tag = IndexKey.encode(bound.storeValue)[0]
        let start = low.map(Self.lowerBound) ?? [tag]
        let limit = high.map(Self.upperLimit) ?? [tag + 1]
        guard try budget.allows(tree, from: start, to: limit) else { return false }
        return try collect(tree, from: start, into: &found, &budget) { QueryValue.bytewise($0, limit) <= 0 }
    }

    /// Appends the object keys of the entries of `tree` from `start` on while `inRange`
    /// holds; false if the budget ran out first.
    private func collect(
        _ tree: TreeName, from start: [UInt8], into found: inout [ObjectKey], _ budget: inout CandidateBudget,
        while inRange: (UnsafeRawBufferPointer) -> Bool
    ) throws(StorageError) -> Bool {
        var complete = true
        try scan(tree, from: start) { entry, _ throws(StorageError) in
            guard inRange(entry) else { return false }
            found.append(ObjectKey.read(entry, at: entry.count - 8))
            complete = try budget.allows(found.count)
            return complete
        }
        return complete
    }

    /// A key at or before the first entry of every value `>= value`. A string longer than
    /// the index keeps whole is keyed by its cut prefix alone: cut values sharing that prefix
    /// sort by hash, not by value, so the scan starts before all of them.
    private static func lowerBound(_ value: QueryValue) -> [UInt8] {
        if case .string(let s) = value, s.utf8.count > KeyEncoding.boundedLength {
            var key = [ValueCodec.Tag.string.rawValue]
            KeyEncoding.appendBounded(Array(s.utf8.prefix(KeyEncoding.boundedLength)), to: &key)
            return key
        }
        return IndexKey.encode(value.storeValue)
    }

    /// A key at or after the last entry of every value `<= value`.
    private static func upperLimit(_ value: QueryValue) -> [UInt8] {
        if case .string(let s) = value, s.utf8.count > KeyEncoding.boundedLength {
            var key = [ValueCodec.Tag.string.rawValue]
            KeyEncoding.appendBounded(Array(s.utf8.prefix(KeyEncoding.boundedLength)), to: &key)
            // The prefix's terminator 0x00 0x00 becomes 0x00 0x02: after every cut value
            // (0x00 0x01 and a hash) sharing the prefix.
            key[key.count - 1] = 2
            return key
        }
        return IndexKey.encode(value.storeValue) + [UInt8](repeating: 0xFF, count: 9)
    }
}
