/// Running a chain of query steps.
extension QueryExecutor {
    /// The object keys `steps` give, starting from `base` (nil: every object of `table`, in
    /// key order). `table` nil means the class has no objects in this version.
    func run(_ steps: [QueryStep], table: Table?, base: [ObjectKey]?) -> [ObjectKey] {
        guard let table else { return [] }
        var remaining = steps[...]
        var keys: [ObjectKey]
        if base == nil, case .filter(let predicate)? = remaining.first {
            remaining = remaining.dropFirst()
            keys = filterTable(predicate, table)
        } else if base == nil, case .sort(let descriptors)? = remaining.first {
            // Sorting every object: the keys and each sort column in one scan of the rows each,
            // both in key order.
            remaining = remaining.dropFirst()
            keys = context.allKeys(table)
            keys = sort(keys, descriptors, columns: descriptors.map { values(of: QueryPath(dotted: $0.keyPath), in: table) })
        } else {
            keys = base ?? context.allKeys(table)
        }
        for step in remaining {
            switch step {
            case .filter(let predicate): keys = filter(keys, predicate, table)
            case .sort(let descriptors): keys = sort(keys, descriptors, table)
            case .distinct(let keyPaths): keys = distinct(keys, keyPaths, table)
            case .limit(let count): keys = Array(keys.prefix(max(0, count)))
            }
        }
        return keys
    }

    /// Every object of `table` satisfying `predicate`, in key order: from an index's
    /// candidates if one applies, else by one scan of the rows.
    func filterTable(_ predicate: QueryPredicate, _ table: Table, useIndexes: Bool = true) -> [ObjectKey] {
        if useIndexes, let candidates = indexCandidates(predicate, table) {
            return filter(candidates, predicate, table)
        }
        let compiled = compile(predicate, for: table)
        var keys: [ObjectKey] = []
        do {
            try reader.scan(table.rowsTree, from: []) { key, row in
                let objectKey = ObjectKey.read(key)
                if matches(compiled, table, objectKey, row) { keys.append(objectKey) }
                return true
            }
        } catch {
            context.fail(error)
        }
        return keys
    }

    func filter(_ keys: [ObjectKey], _ predicate: QueryPredicate, _ table: Table) -> [ObjectKey] {
        let compiled = compile(predicate, for: table)
        return keys.filter { key in withRow(table, key) { row in matches(compiled, table, key, row) } ?? false }
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

    private func sort(_ keys: [ObjectKey], _ descriptors: [SortDescriptor], _ table: Table) -> [ObjectKey] {
        guard !descriptors.isEmpty else { return keys }
        return sort(keys, descriptors, columns: descriptors.map { values(of: QueryPath(dotted: $0.keyPath), keys, table) })
    }

    /// `keys` ordered by `columns` (one value per key for each descriptor), stably.
    private func sort(_ keys: [ObjectKey], _ descriptors: [SortDescriptor], columns: [[QueryValue]]) -> [ObjectKey] {
        guard !descriptors.isEmpty, columns.allSatisfy({ $0.count == keys.count }) else { return keys }
        if descriptors.count == 1, let ints = Self.intColumn(columns[0]) {
            // One integer column (nulls first): compared as integers, not as query values.
            let ascending = descriptors[0].ascending
            let order = keys.indices.sorted { a, b in
                let x = ints[a], y = ints[b]
                if x != y { return ascending ? (x ?? .min) < (y ?? .min) || (x == nil) : (x ?? .min) > (y ?? .min) || (y == nil) }
                return a < b
            }
            return order.map { keys[$0] }
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
