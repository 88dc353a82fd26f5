import Foundation
import BurrowStorage

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
    func indexCandidates(_ predicate: QueryPredicate, _ table: Table) -> (keys: [ObjectKey], exactConjunct: Int?)? {
        for (position, conjunct) in predicate.conjuncts.enumerated() {
            guard case .comparison(let raw) = conjunct else { continue }
            let c = raw.normalized
            guard c.options.isEmpty, c.quantifier == .any, case .path(let path) = c.lhs, path.components.count == 1,
                case .property(let name) = path.components[0], let index = table.info.propertyIndex[name],
                let field = table.fieldOf[index]
            else { continue }
            let type = table.fieldTypes[field]
            let found: [ObjectKey]?
            if field == table.primaryKeyField {
                found = primaryKeyCandidates(c, table, type)
            } else if let tree = table.fieldIndexTrees[field] {
                found = secondaryIndexCandidates(c, tree, type)
            } else {
                found = nil
            }
            guard var keys = found else { continue }
            let exact = c.op == .equal && Self.exactlyIndexed(c.rhs) ? position : nil
            guard keys.count > 1 else { return (keys, exact) }
            keys.sort()
            var unique: [ObjectKey] = []
            unique.reserveCapacity(keys.count)
            for key in keys where unique.last != key { unique.append(key) }
            return (unique, exact)
        }
        return nil
    }

    /// Whether the index keys of the constants `side` lists are exactly their values (no
    /// string cut and hashed, no date rounded to a `Double`).
    private static func exactlyIndexed(_ side: QueryExpression) -> Bool {
        let values: [QueryValue]
        switch side {
        case .constant(let value): values = [value]
        case .list(let list): values = list
        default: return false
        }
        return values.allSatisfy { value in
            switch value {
            case .null, .int, .bool, .objectId, .uuid: true
            case .string(let s): s.utf8.count <= KeyEncoding.boundedLength
            default: false
            }
        }
    }

    /// `==` and `IN` on the primary key, through the realm's own lookup by primary key
    /// (however it finds objects); the primary key keeps no order to scan, so ranges scan.
    private func primaryKeyCandidates(_ c: QueryComparison, _ table: Table, _ type: PropertyType) -> [ObjectKey]? {
        switch (c.op, c.rhs) {
        case (.equal, .constant(let value)) where Self.indexable(value, type):
            return context.objectKey(table, primaryKey: value.stored).map { [$0] } ?? []
        case (.equal, .list(let values)) where values.allSatisfy({ Self.indexable($0, type) }):
            return values.compactMap { context.objectKey(table, primaryKey: $0.stored) }
        default:
            return nil
        }
    }

    /// `==`, `IN`, ranges and `BETWEEN` on a secondary index.
    private func secondaryIndexCandidates(_ c: QueryComparison, _ tree: String, _ type: PropertyType) -> [ObjectKey]? {
        switch (c.op, c.rhs) {
        case (.equal, .constant(let value)) where Self.indexable(value, type):
            return lookup(tree, value)
        case (.equal, .list(let values)) where values.allSatisfy({ Self.indexable($0, type) }):
            return values.flatMap { lookup(tree, $0) }
        case (.between, .list(let bounds)) where bounds.count == 2 && bounds.allSatisfy({ Self.orderable($0, type) }):
            return range(tree, from: bounds[0], to: bounds[1])
        case (.less, .constant(let v)) where Self.orderable(v, type), (.lessOrEqual, .constant(let v)) where Self.orderable(v, type):
            return range(tree, from: nil, to: v)
        case (.greater, .constant(let v)) where Self.orderable(v, type), (.greaterOrEqual, .constant(let v)) where Self.orderable(v, type):
            return range(tree, from: v, to: nil)
        default:
            return nil
        }
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

    private func lookup(_ tree: String, _ value: QueryValue) -> [ObjectKey] {
        let key = IndexKey.encode(value.stored)
        do {
            var found: [ObjectKey] = []
            try reader.scan(tree, from: key) { entry, _ in
                // An entry is the value's key and 8 bytes of object key.
                guard entry.count >= key.count + 8, key.withUnsafeBytes({ memcmp($0.baseAddress!, entry.baseAddress!, key.count) == 0 }) else {
                    return false
                }
                found.append(ObjectKey.read(entry, at: entry.count - 8))
                return true
            }
            return found
        } catch {
            context.fail(error)
        }
    }

    /// The keys of entries whose values may lie between `low` and `high` (either bound
    /// missing: to the end of the values of that type). Bounds are inclusive here; the rows
    /// are tested afterwards.
    private func range(_ tree: String, from low: QueryValue?, to high: QueryValue?) -> [ObjectKey] {
        guard let tag = (low ?? high).map({ IndexKey.encode($0.stored)[0] }) else { return [] }
        let start = low.map(Self.lowerBound) ?? [tag]
        let limit = high.map(Self.upperLimit) ?? [tag + 1]
        var found: [ObjectKey] = []
        do {
            try reader.scan(tree, from: start) { entry, _ in
                guard QueryValue.bytewise(entry, limit) <= 0 else { return false }
                found.append(ObjectKey.read(entry, at: entry.count - 8))
                return true
            }
        } catch {
            context.fail(error)
        }
        return found
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
        return IndexKey.encode(value.stored)
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
        return IndexKey.encode(value.stored) + [UInt8](repeating: 0xFF, count: 9)
    }
}
