import BurrowStorage

/// Running a chain of query steps.
extension QueryExecutor {
    /// The object keys `steps` give, starting from `base` (nil: every object of `table`, in
    /// key order), with the rows of the objects where the evaluation read them in order
    /// (filters, and a limit after them): pointers into the pages of the version read, valid
    /// while that version is pinned and unchanged. `table` nil means the class has no objects in
    /// this version. The general evaluation, the `evaluation` plan's (see `QueryPlan`).
    package func evaluation(
        of steps: [QueryStep], table: Table?, base: [ObjectKey]?
    ) throws(StorageError) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?) {
        guard let table else { return ([], nil) }
        var remaining = steps[...]
        var keys: [ObjectKey]
        var rows: [UnsafeRawBufferPointer]?
        if base == nil, case .filter(let predicate)? = remaining.first {
            remaining = remaining.dropFirst()
            (keys, rows) = try filterTable(predicate, table)
        } else if base == nil, case .sort(let descriptors)? = remaining.first {
            remaining = remaining.dropFirst()
            keys = try sortTable(descriptors, table)
        } else {
            if let base { keys = base } else { keys = try context.objectKeys(table) }
        }
        for step in remaining {
            switch step {
            case .filter(let predicate): (keys, rows) = try filter(keys, predicate, table)
            case .sort(let descriptors):
                keys = try sort(keys, descriptors, table)
                rows = nil
            case .distinct(let keyPaths):
                keys = try distinct(keys, keyPaths, table)
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
    package func filterTable(
        _ predicate: QueryPredicate, _ table: Table, useIndexes: Bool = true
    ) throws(StorageError) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?) {
        if useIndexes, let found = try filterByIndex(predicate, table) { return found }
        return try scanTable(compile(predicate, for: table), table)
    }

    /// Every object of `table` satisfying `filter`, in key order, and their rows: one scan of
    /// the rows (`filterTable` where no index applies, with the filter compiled already).
    package func scanTable(_ filter: CompiledFilter, _ table: Table) throws(StorageError) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?) {
        var keys: [ObjectKey] = []
        var rows: [UnsafeRawBufferPointer] = []
        try scanMatches(filter, table) { key, row in
            keys.append(key)
            rows.append(row)
        }
        // A converted row lives only during the scan (`scanRowsThroughReader`).
        return (keys, reader.rowsAreOld ? nil : rows)
    }

    /// How many objects of `table` satisfy `predicate`: `filterTable(predicate, table).keys.count`,
    /// without keeping the keys or rows of a scan.
    package func countMatches(_ predicate: QueryPredicate, _ table: Table) throws(StorageError) -> Int {
        if let found = try filterByIndex(predicate, table) { return found.keys.count }
        return try countMatches(compile(predicate, for: table), table)
    }

    /// How many objects of `table` satisfy `filter`, in one scan of the rows that keeps no key.
    package func countMatches(_ filter: CompiledFilter, _ table: Table) throws(StorageError) -> Int {
        var count = 0
        try scanMatches(filter, table) { _, _ in count += 1 }
        return count
    }

    /// `filterTable`'s answer from an index's candidates, or nil if no index applies.
    private func filterByIndex(
        _ predicate: QueryPredicate, _ table: Table
    ) throws(StorageError) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?)? {
        if case .and = predicate {
            var conjuncts = predicate.conjuncts
            guard let found = try indexCandidates(conjuncts: conjuncts, table) else { return nil }
            if let answered = found.exactConjunct {
                // The index answered that condition exactly: only the others need the rows.
                conjuncts.remove(at: answered)
            }
            return try filter(found.keys, conjuncts.isEmpty ? .constant(true) : .all(conjuncts), table)
        }
        guard let found = try indexCandidates(conjuncts: CollectionOfOne(predicate), table) else { return nil }
        // One condition: if the index answered it exactly, no row need be read.
        return found.exactConjunct == nil ? try filter(found.keys, predicate, table) : (found.keys, nil)
    }

    /// Calls `found` with the key and row of every object of `table` satisfying `compiled`,
    /// in key order, in one scan of the rows. A row the compiled tests decide on their own
    /// (most rows) is neither given its key nor tested twice; the rest go to the general
    /// evaluator.
    private func scanMatches(
        _ compiled: CompiledFilter, _ table: Table, _ found: (ObjectKey, UnsafeRawBufferPointer) -> Void
    ) throws(StorageError) {
        var failure: StorageError?
        // The verdict of the row the scan stopped at last, for its body.
        var decided = false
        try scanRows(
            table,
            where: { row in
                switch compiled.verdict(row) {
                case false?: return false
                case true?: decided = true
                case nil: decided = false
                }
                return true
            }
        ) { row, key in
            if decided {
                found(key, row)
                return true
            }
            do throws(StorageError) {
                if try matches(compiled, table, key, row) { found(key, row) }
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    /// Those of `keys` whose objects satisfy `predicate`, in order, and their rows.
    package func filter(
        _ keys: [ObjectKey], _ predicate: QueryPredicate, _ table: Table
    ) throws(StorageError) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?) {
        let compiled = compile(predicate, for: table)
        var kept: [ObjectKey] = []
        var rows: [UnsafeRawBufferPointer] = []
        for key in keys {
            let row = try withRow(table, key) { row throws(StorageError) in try matches(compiled, table, key, row) ? row : nil }
            if let row = row ?? nil {
                kept.append(key)
                rows.append(row)
            }
        }
        // A converted row lives only while it is read (`withRow`).
        return (kept, reader.rowsAreOld ? nil : rows)
    }

    /// The one value `keyPath` reaches from each of `keys` (null for a deleted object).
    package func values(of keyPath: QueryPath, _ keys: [ObjectKey], _ table: Table) throws(StorageError) -> [QueryValue] {
        let path = compile(keyPath, from: table)
        var out: [QueryValue] = []
        var result: [QueryValue] = []
        result.reserveCapacity(keys.count)
        for key in keys {
            out.removeAll(keepingCapacity: true)
            try withRow(table, key) { row throws(StorageError) in try values(path, table, key, row, into: &out) }
            result.append(out.first ?? .null)
        }
        return result
    }

    /// The one value `keyPath` reaches from every object of `table`, in key order: one scan
    /// of the rows, no descent per object.
    package func values(of keyPath: QueryPath, in table: Table) throws(StorageError) -> [QueryValue] {
        let path = compile(keyPath, from: table)
        var result: [QueryValue] = []
        var out: [QueryValue] = []
        if let steps = path.steps, steps.count == 1, case .field(let field) = steps[0].kind {
            // One field of each row: decoded in place.
            let type = steps[0].type
            try scanRows(table) { key, row throws(StorageError) in
                result.append(try fieldValue(row, field, type, table, ObjectKey.read(key)))
                return true
            }
            return result
        }
        try scanRows(table) { key, row throws(StorageError) in
            out.removeAll(keepingCapacity: true)
            try values(path, table, ObjectKey.read(key), row, into: &out)
            result.append(out.first ?? .null)
            return true
        }
        return result
    }

    /// Every object of `table`, sorted: the keys and each sort column read in one scan of the
    /// rows each (an integer column of one field: keys and column in the same scan).
    private func sortTable(_ descriptors: [QuerySort], _ table: Table) throws(StorageError) -> [ObjectKey] {
        if descriptors.count == 1, let (keys, ints) = try intColumn(QueryPath(dotted: descriptors[0].keyPath), in: table) {
            return Self.stableOrder(ints, ascending: descriptors[0].ascending).map { keys[$0] }
        }
        let keys = try context.objectKeys(table)
        var columns: [[QueryValue]] = []
        for descriptor in descriptors { columns.append(try values(of: QueryPath(dotted: descriptor.keyPath), in: table)) }
        return sort(keys, descriptors, columns: columns)
    }

    /// The keys of `table` and the integers of `keyPath`, if it is one integer field of the
    /// object itself: read in one scan, without query values.
    private func intColumn(_ keyPath: QueryPath, in table: Table) throws(StorageError) -> (keys: [ObjectKey], ints: [Int64?])? {
        guard let steps = compile(keyPath, from: table).steps, steps.count == 1, case .field(let field) = steps[0].kind, steps[0].type == .int else {
            return nil
        }
        var keys: [ObjectKey] = []
        var ints: [Int64?] = []
        let count = try reader.count(table.rowsTree)
        keys.reserveCapacity(count)
        ints.reserveCapacity(count)
        try scanRows(table, where: { _ in true }) { row, key in
            keys.append(key)
            ints.append(RowCodec.int(row, field))
            return true
        }
        return (keys, ints)
    }

    private func sort(_ keys: [ObjectKey], _ descriptors: [QuerySort], _ table: Table) throws(StorageError) -> [ObjectKey] {
        guard !descriptors.isEmpty else { return keys }
        var columns: [[QueryValue]] = []
        for descriptor in descriptors { columns.append(try values(of: QueryPath(dotted: descriptor.keyPath), keys, table)) }
        return sort(keys, descriptors, columns: columns)
    }

    /// `keys` ordered by `columns` (one value per key for each descriptor), stably.
    private func sort(_ keys: [ObjectKey], _ descriptors: [QuerySort], columns: [[QueryValue]]) -> [ObjectKey] {
        guard !descriptors.isEmpty, columns.allSatisfy({ $0.count == keys.count }) else { return keys }
        return Self.sortedPositions(count: keys.count, descriptors, columns: columns).map { keys[$0] }
    }

    /// The positions `0..<count` ordered by `columns` (one value per position for each
    /// descriptor), stably: by the first column, then among equals by the next.
    static func sortedPositions(count: Int, _ descriptors: [QuerySort], columns: [[QueryValue]]) -> [Int] {
        if descriptors.count == 1, let ints = intColumn(columns[0]) {
            // One integer column: sorted as integers, not as query values.
            return stableOrder(ints, ascending: descriptors[0].ascending)
        }
        return (0..<count).sorted { a, b in
            for (column, descriptor) in zip(columns, descriptors) {
                let o = QueryValue.sortOrder(column[a], column[b])
                if o != 0 { return descriptor.ascending ? o < 0 : o > 0 }
            }
            return a < b
        }
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

    private func distinct(_ keys: [ObjectKey], _ keyPaths: [String], _ table: Table) throws(StorageError) -> [ObjectKey] {
        var columns: [[QueryValue]] = []
        for keyPath in keyPaths { columns.append(try values(of: QueryPath(dotted: keyPath), keys, table)) }
        return Self.distinctPositions(count: keys.count, columns: columns).map { keys[$0] }
    }

    /// The first of the positions `0..<count` for each distinct combination of the values of
    /// `columns` (one value per position in each), in order.
    static func distinctPositions(count: Int, columns: [[QueryValue]]) -> [Int] {
        var seen: Set<[QueryValue]> = []
        return (0..<count).filter { index in seen.insert(columns.map { $0[index] }).inserted }
    }
}
