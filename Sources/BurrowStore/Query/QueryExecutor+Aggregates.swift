import BurrowStorage

/// Aggregates: of the values a path reaches in one object (`dogs.@sum.age`), and of one
/// property over many objects (`sum(ofProperty:)`).
extension QueryExecutor {
    /// The aggregate of `values`: `@count` counts them all; the others skip nulls. `@sum` of
    /// nothing is 0; `@avg`, `@min` and `@max` of nothing are null.
    package static func aggregate(_ aggregate: QueryAggregate, of values: [QueryValue]) -> QueryValue {
        switch aggregate {
        case .count: return .int(Int64(values.count))
        case .min, .max:
            var best: QueryValue?
            for value in values where !value.isNull {
                guard let current = best else {
                    best = value
                    continue
                }
                guard let order = QueryValue.order(value, current) else { continue }
                if aggregate == .min ? order < 0 : order > 0 { best = value }
            }
            return best ?? .null
        case .sum, .avg:
            // The widest kind present decides the arithmetic: integers add as Int64, any
            // float or double makes it Double, any Decimal128 makes it Decimal128.
            var kind = 0  // 0: ints, 1: doubles, 2: decimals
            var count = 0
            for value in values {
                switch value {
                case .int: break
                case .float, .double: kind = max(kind, 1)
                case .decimal128: kind = 2
                default: continue
                }
                count += 1
            }
            switch kind {
            case 0:
                var sum: Int64 = 0
                for case .int(let v) in values { sum &+= v }
                if aggregate == .sum { return .int(sum) }
                return count > 0 ? .double(Double(sum) / Double(count)) : .null
            case 1:
                // No decimals here: every number has its `Double` value.
                let sum: Double = total(values, \.doubleValue)
                if aggregate == .sum { return .double(sum) }
                return count > 0 ? .double(sum / Double(count)) : .null
            default:
                let sum: Decimal128 = total(values, \.decimalValue)
                if aggregate == .sum { return .decimal128(sum) }
                return count > 0 ? .decimal128(sum / Decimal128(count)) : .null
            }
        }
    }

    /// The sum of those of `values` that `number` converts, in order.
    private static func total<N: AdditiveArithmetic>(_ values: [QueryValue], _ number: (QueryValue) -> N?) -> N {
        var sum = N.zero
        for value in values {
            if let n = number(value) { sum += n }
        }
        return sum
    }

    /// The aggregate of the property at `keyPath` over the objects `keys` of `table` (nil:
    /// every object, in one scan of the rows). An integer or floating-point field of the
    /// object itself is read from each row in place and folded as it is read; other
    /// properties are collected as query values first.
    /// Traps if a read fails (`aggregateValue` throws instead).
    package func aggregate(_ aggregate: QueryAggregate, of keyPath: QueryPath, in table: Table, keys: [ObjectKey]?) -> QueryValue {
        do {
            return try aggregateValue(aggregate, of: keyPath, in: table, keys: keys)
        } catch {
            context.fail(error)
        }
    }

    /// `aggregate(_:of:in:keys:)`, throwing where it would trap.
    package func aggregateValue(_ aggregate: QueryAggregate, of keyPath: QueryPath, in table: Table, keys: [ObjectKey]?) throws(StorageError)
        -> QueryValue
    {
        let path = compile(keyPath, from: table)
        guard let steps = path.steps, steps.count == 1, case .field(let field) = steps[0].kind,
            let kind = Self.fold(aggregate, steps[0].type)
        else {
            let collected = if let keys { try values(of: keyPath, keys, table) } else { try values(of: keyPath, in: table) }
            return Self.aggregate(aggregate, of: collected)
        }
        var fold = FieldFold(kind: kind)
        if let keys {
            for key in keys { try withRow(table, key) { fold.add($0, field: field) } }
        } else {
            try scanRows(
                table,
                where: { row in
                    fold.add(row, field: field)
                    return false  // no key needed
                }
            ) { _, _ in true }
        }
        return fold.result(aggregate)
    }

    /// How a field of `type` folds for `aggregate` in place, if it does: integers for every
    /// aggregate; floating point for `@sum` and `@avg` (whose arithmetic is `Double`'s).
    private static func fold(_ aggregate: QueryAggregate, _ type: PropertyType) -> FieldFold.Kind? {
        switch (type, aggregate) {
        case (_, .count): nil
        case (.int, _): .int
        case (.double, .sum), (.double, .avg): .double
        case (.float, .sum), (.float, .avg): .float
        default: nil
        }
    }

    /// An aggregate of a number field, folded one payload at a time; nulls are skipped. The
    /// results are those `aggregate(_:of:)` gives for the same values.
    private struct FieldFold {
        package enum Kind { case int, double, float }
        package let kind: Kind
        package var count = 0
        package var intSum: Int64 = 0
        package var doubleSum = 0.0
        package var low = Int64.max
        package var high = Int64.min

        package init(kind: Kind) { self.kind = kind }

        /// Adds field `field` of `row` (a null one, or one too short for its type, is skipped).
        @inline(__always)
        package mutating func add(_ row: UnsafeRawBufferPointer, field: Int) {
            switch kind {
            case .int:
                guard let v = RowCodec.int(row, field) else { return }
                intSum &+= v
                low = Swift.min(low, v)
                high = Swift.max(high, v)
            case .double:
                guard let payload = RowCodec.field(row, field), payload.count >= 8 else { return }
                doubleSum += Double(bitPattern: ValueCodec.u64(payload, 0))
            case .float:
                guard let payload = RowCodec.field(row, field), payload.count >= 4 else { return }
                doubleSum += Double(Float(bitPattern: ValueCodec.u32(payload, 0)))
            }
            count += 1
        }

        package func result(_ aggregate: QueryAggregate) -> QueryValue {
            switch (kind, aggregate) {
            case (.int, .sum): return .int(intSum)
            case (.int, .avg): return count > 0 ? .double(Double(intSum) / Double(count)) : .null
            case (.int, .min): return count > 0 ? .int(low) : .null
            case (.int, .max): return count > 0 ? .int(high) : .null
            case (_, .sum): return .double(doubleSum)
            case (_, .avg): return count > 0 ? .double(doubleSum / Double(count)) : .null
            default: preconditionFailure("internal error: no in-place \(aggregate) of \(kind)")
            }
        }
    }
}
