/// Running a chain of query steps.
extension QueryExecutor {
    /// The object keys `steps` give, starting from `base` (nil: every object of `table`, in
    /// key order). `table` nil means the class has no objects in this version.
    func run(_ steps: [QueryStep], table: Table?, base: [ObjectKey]?) -> [ObjectKey] {
        evaluate(steps, table: table, base: base).keys
    }

    /// What `run` gives, with the rows of the objects where the evaluation read them in order
    /// (filters, and a limit after them): pointers into the pages of the version read, valid
    /// while that version is pinned and unchanged.
    func evaluate(_ steps: [QueryStep], table: Table?, base: [ObjectKey]?) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?) {
        guard let table else { return ([], nil) }
        var remaining = steps[...]
        var keys: [ObjectKey]
        var rows: [UnsafeRawBufferPointer]?
        if base == nil, case .filter(let predicate)? = remaining.first {
            remaining = remaining.dropFirst()
            (keys, rows) = filterTable(predicate, table)
        } else if base == nil, case .sort(let descriptors)? = remaining.first {
            remaining = remaining.dropFirst()
            keys = sortTable(descriptors, table)
        } else {
            keys = base ?? context.allKeys(table)
        }
        for step in remaining {
            switch step {
            case .filter(let predicate): (keys, rows) = filter(keys, predicate, table)
            case .sort(let descriptors):
                keys = sort(keys, descriptors, table)
                rows = nil
            case .distinct(let keyPaths):
                keys = distinct(keys, keyPaths, table)
                rows = nil
            case .limit(let count):
                keys = Array(keys.prefix(max(0, count)))
                rows = rows.map { Array($0.prefix(max(0, count))) }
            }
        }
        return (keys, rows)
    }

    /// Every object of `table` satisfying `predicate`, in key order, and their rows (nil if
    /// they were not read): from an index's candidates if one applies, else by one scan of
    /// the rows.
    func filterTable(_ predicate: QueryPredicate, _ table: Table, useIndexes: Bool = true) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?) {
        if useIndexes, case .and = predicate {
            var conjuncts = predicate.conjuncts
            if let found = indexCandidates(conjuncts: conjuncts, table) {
                if let answered = found.exactConjunct {
                    // The index answered that condition exactly: only the others need the rows.
                    conjuncts.remove(at: answered)
                }
                return filter(found.keys, conjuncts.isEmpty ? .constant(true) : .all(conjuncts), table)
            }
        } else if useIndexes, let found = indexCandidates(conjuncts: CollectionOfOne(predicate), table) {
            // One condition: if the index answered it exactly, no row need be read.
            return found.exactConjunct == nil ? filter(found.keys, predicate, table) : (found.keys, nil)
        }
        let compiled = compile(predicate, for: table)
        var keys: [ObjectKey] = []
        var rows: [UnsafeRawBufferPointer] = []
        // Most rows fail a row test, which needs no object key.
        scanRows(table, where: { compiled.mayMatch($0) }) { row, key in
            if matches(compiled, table, key, row) {
                keys.append(key)
                rows.append(row)
            }
        }
        return (keys, rows)
    }

    /// Those of `keys` whose objects satisfy `predicate`, in order, and their rows.
    func filter(_ keys: [ObjectKey], _ predicate: QueryPredicate, _ table: Table) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?) {
        let compiled = compile(predicate, for: table)
        var kept: [ObjectKey] = []
        var rows: [UnsafeRawBufferPointer] = []
        for key in keys {
            let row = withRow(table, key) { row in matches(compiled, table, key, row) ? row : nil }
            if let row = row ?? nil {
                kept.append(key)
                rows.append(row)
            }
        }
        return (kept, rows)
    }

    /// The one value `keyPath` reaches from each of `keys` (null for a deleted object).
    func values(of keyPath: QueryPath, _ keys: [ObjectKey], _ table: Table) -> [QueryValue] {
        let path = compile(keyPath, from: table)
        var out: [QueryValue] = []
        return keys.map { key in
            out.removeAll(keepingCapacity: true)
            withRow(table, key) { row in values(path, table, key, row, into: &out) }
            return out.first ?? .null
        }
    }

    /// The one value `keyPath` reaches from every object of `table`, in key order: one scan
    /// of the rows, no descent per object.
    func values(of keyPath: QueryPath, in table: Table) -> [QueryValue] {
        let path = compile(keyPath, from: table)
        var result: [QueryValue] = []
        var out: [QueryValue] = []
        if let steps = path.steps, steps.count == 1, case .field(let field) = steps[0].kind {
            // One field of each row: decoded in place.
            let type = steps[0].type
            do {
                try reader.scan(table.rowsTree, from: []) { key, row in
                    result.append(fieldValue(row, field, type, table, ObjectKey.read(key)))
                    return true
                }
            } catch {
                context.fail(error)
            }
            return result
        }
        do {
            try reader.scan(table.rowsTree, from: []) { key, row in
                out.removeAll(keepingCapacity: true)
                values(path, table, ObjectKey.read(key), row, into: &out)
                result.append(out.first ?? .null)
                return true
            }
        } catch {
            context.fail(error)
        }
        return result
    }

    /// Every object of `table`, sorted: the keys and each sort column read in one scan of the
    /// rows each (an integer column of one field: keys and column in the same scan).
    private func sortTable(_ descriptors: [SortDescriptor], _ table: Table) -> [ObjectKey] {
        if descriptors.count == 1, let (keys, ints) = intColumn(QueryPath(dotted: descriptors[0].keyPath), in: table) {
            return Self.stableOrder(ints, ascending: descriptors[0].ascending).map { keys[$0] }
        }
        let keys = context.allKeys(table)
        return sort(keys, descriptors, columns: descriptors.map { values(of: QueryPath(dotted: $0.keyPath), in: table) })
    }

    /// The keys of `table` and the integers of `keyPath`, if it is one integer field of the
    /// object itself: read in one scan, without query values.
    private func intColumn(_ keyPath: QueryPath, in table: Table) -> (keys: [ObjectKey], ints: [Int64?])? {
        guard let steps = compile(keyPath, from: table).steps, steps.count == 1, case .field(let field) = steps[0].kind, steps[0].type == .int else {
            return nil
        }
        var keys: [ObjectKey] = []
        var ints: [Int64?] = []
        do {
            let count = try reader.count(table.rowsTree)
            keys.reserveCapacity(count)
            ints.reserveCapacity(count)
        } catch {
            context.fail(error)
        }
        scanRows(table, where: { _ in true }) { row, key in
            keys.append(key)
            ints.append(Self.fixedPayload(row, field).map { Int64(bitPattern: ValueCodec.u64(row, $0)) })
        }
        return (keys, ints)
    }

    private func sort(_ keys: [ObjectKey], _ descriptors: [SortDescriptor], _ table: Table) -> [ObjectKey] {
        guard !descriptors.isEmpty else { return keys }
        return sort(keys, descriptors, columns: descriptors.map { values(of: QueryPath(dotted: $0.keyPath), keys, table) })
    }

    /// `keys` ordered by `columns` (one value per key for each descriptor), stably.
    private func sort(_ keys: [ObjectKey], _ descriptors: [SortDescriptor], columns: [[QueryValue]]) -> [ObjectKey] {
        guard !descriptors.isEmpty, columns.allSatisfy({ $0.count == keys.count }) else { return keys }
        if descriptors.count == 1, let ints = Self.intColumn(columns[0]) {
            // One integer column: sorted as integers, not as query values.
            return Self.stableOrder(ints, ascending: descriptors[0].ascending).map { keys[$0] }
        }
        let order = keys.indices.sorted { a, b in
            for (column, descriptor) in zip(columns, descriptors) {
                let o = QueryValue.sortOrder(column[a], column[b])
                if o != 0 { return descriptor.ascending ? o < 0 : o > 0 }
            }
            return a < b
        }
        return order.map { keys[$0] }
    }

    /// The column as integers (nil for null) if every value is an integer or null.
    private static func intColumn(_ column: [QueryValue]) -> [Int64?]? {
        var ints: [Int64?] = []
        ints.reserveCapacity(column.count)
        for value in column {
            switch value {
            case .int(let i): ints.append(i)
            case .null: ints.append(nil)
            default: return nil
            }
        }
        return ints
    }

    private func distinct(_ keys: [ObjectKey], _ keyPaths: [String], _ table: Table) -> [ObjectKey] {
        let columns = keyPaths.map { values(of: QueryPath(dotted: $0), keys, table) }
        var seen: Set<[QueryValue]> = []
        return keys.indices.filter { index in seen.insert(columns.map { $0[index] }).inserted }.map { keys[$0] }
    }
}
