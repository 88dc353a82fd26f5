import BurrowStorage

/// Filters compiled for scans: the conditions of the commonest shape, a field of the queried
/// object itself compared with one constant (`age < 2`, `name BEGINSWITH 'R'`, `flag == true`),
/// are tested on the row's bytes in place. No `QueryValue` is built and no reference is
/// counted per row: a `RowTest` holds only plain values, and the bytes of a string constant
/// live in a buffer its filter owns. The other conditions are evaluated by the general
/// evaluator afterwards; `AND` does not depend on order, so the results are the same.
extension QueryExecutor {
    /// One condition on one row field, compared with one constant.
    package struct RowTest {
        package enum Constant {
            /// An `Int` field (any integer width, enums of integers) against an integer.
            case int(Int64)
            /// An `Int` field between two integers, both included.
            case intRange(Int64, Int64)
            /// A `Double` field against a number.
            case double(Double)
            /// A `Bool` field against a bool.
            case bool(Bool)
            /// A string field against a string's UTF-8 bytes (no options): `==`, `!=`,
            /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`.
            case bytes(UnsafeRawBufferPointer)
        }

        package let field: Int
        package let op: QueryOperator
        package let constant: Constant
        /// `NONE` on a single value: the test's opposite.
        package let negated: Bool

        /// Whether `row` satisfies the test, or nil if it cannot tell from the row alone (a
        /// string kept outside its row), when the general evaluator decides.
        @inline(__always)
        package func holds(_ row: UnsafeRawBufferPointer) -> Bool? {
            guard let result = test(row) else { return nil }
            return negated ? !result : result
        }

        @inline(__always)
        private func test(_ row: UnsafeRawBufferPointer) -> Bool? {
            // Null: equal to no constant, different from every one, in no order.
            let null = op == .notEqual
            switch constant {
            case .int(let c):
                guard let v = RowCodec.int(row, field) else { return null }
                return Self.compare(v, op, c)
            case .intRange(let low, let high):
                guard let v = RowCodec.int(row, field) else { return null }
                return v >= low && v <= high
            case .double(let c):
                guard let payload = RowCodec.field(row, field), payload.count >= 8 else { return null }
                let v = Double(bitPattern: ValueCodec.u64(payload, 0))
                guard !v.isNaN, !c.isNaN else { return null }
                return Self.compare(v, op, c)
            case .bool(let c):
                guard let payload = RowCodec.field(row, field) else { return null }
                let v = payload[0] != 0
                return op == .equal ? v == c : v != c
            case .bytes(let c):
                guard let payload = RowCodec.field(row, field) else { return null }
                return QueryExecutor.testInPlace(payload, c, op)
            }
        }

        @inline(__always)
        private static func compare<T: Comparable>(_ v: T, _ op: QueryOperator, _ c: T) -> Bool {
            switch op {
            case .equal: v == c
            case .notEqual: v != c
            case .less: v < c
            case .lessOrEqual: v <= c
            case .greater: v > c
            case .greaterOrEqual: v >= c
            default: false
            }
        }
    }

    /// A predicate compiled for one table: its top-level conditions that are `RowTest`s, and
    /// the rest (nil if none).
    package final class CompiledFilter {
        /// The row tests, and for each the comparison it stands for (which decides when the
        /// test cannot). Owned by this filter: allocated in `init`, freed in `deinit`.
        package let tests: UnsafeMutableBufferPointer<RowTest>
        package let fallbacks: [CompiledComparison]
        package let residual: CompiledPredicate?
        /// The bytes of the tests' string constants (the `.bytes` tests point into it).
        private let constants: UnsafeMutableRawBufferPointer

        package init(tests: [(RowTest, CompiledComparison)], constants: UnsafeMutableRawBufferPointer, residual: CompiledPredicate?) {
            self.tests = .allocate(capacity: tests.count)
            _ = self.tests.initialize(from: tests.map(\.0))
            fallbacks = tests.map(\.1)
            self.constants = constants
            self.residual = residual
        }

        deinit {
            tests.deallocate()
            constants.deallocate()
        }

        /// Whether `row` satisfies the filter, as far as its row tests decide: false if one
        /// fails, true if all hold and nothing else is left to evaluate, nil if the general
        /// evaluator must decide (a test could not tell, or there are other conditions).
        @inline(__always)
        package func verdict(_ row: UnsafeRawBufferPointer) -> Bool? {
            var decided = residual == nil
            for index in tests.indices {
                switch tests[index].holds(row) {
                case false?: return false
                case nil: decided = false
                case true?: continue
                }
            }
            return decided ? true : nil
        }
    }

    /// `predicate` compiled for `table`, its row tests first.
    package func compile(_ predicate: QueryPredicate, for table: Table) -> CompiledFilter {
        var candidates: [(CompiledComparison, RowTest.Constant?, [UInt8]?)] = []
        var residual: [CompiledPredicate] = []
        for conjunct in predicate.conjuncts {
            let compiled = compilePredicate(conjunct, for: table)
            guard case .comparison(let c) = compiled, let (constant, bytes) = Self.rowTestConstant(c) else {
                residual.append(compiled)
                continue
            }
            candidates.append((c, constant, bytes))
        }
        let byteCount = candidates.reduce(0) { $0 + ($1.2?.count ?? 0) }
        let constants = UnsafeMutableRawBufferPointer.allocate(byteCount: max(byteCount, 1), alignment: 1)
        var offset = 0
        var tests: [(RowTest, CompiledComparison)] = []
        for (c, constant, bytes) in candidates {
            guard let field = c.directField?.field else { continue }
            var value = constant
            if let bytes {
                let slice = UnsafeMutableRawBufferPointer(rebasing: constants[offset..<offset + bytes.count])
                slice.copyBytes(from: bytes)
                offset += bytes.count
                value = .bytes(UnsafeRawBufferPointer(slice))
            }
            guard let value else { continue }
            tests.append((RowTest(field: field, op: c.op, constant: value, negated: c.quantifier == .none), c))
        }
        let rest: CompiledPredicate? = residual.isEmpty ? nil : residual.count == 1 ? residual[0] : .and(residual)
        return CompiledFilter(tests: tests, constants: constants, residual: rest)
    }

    /// The constant of the row test `c` can be (for strings: its bytes, copied into the
    /// filter's buffer), or nil if it needs the general evaluator.
    private static func rowTestConstant(_ c: CompiledComparison) -> (RowTest.Constant?, [UInt8]?)? {
        guard let direct = c.directField, c.options.isEmpty, case .values(let right) = c.rhs else { return nil }
        let ordering: Set<QueryOperator> = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
        switch (direct.type, c.op, right.count) {
        case (.int, .between, 2):
            guard case .int(let low) = right[0], case .int(let high) = right[1] else { return nil }
            return (.intRange(low, high), nil)
        case (.int, _, 1) where ordering.contains(c.op):
            guard case .int(let v) = right[0] else { return nil }
            return (.int(v), nil)
        case (.double, _, 1) where ordering.contains(c.op):
            switch right[0] {
            case .double(let v): return (.double(v), nil)
            case .int(let v): return (.double(Double(v)), nil)
            default: return nil
            }
        case (.bool, .equal, 1), (.bool, .notEqual, 1):
            guard case .bool(let v) = right[0] else { return nil }
            return (.bool(v), nil)
        case (.string, _, 1) where [.equal, .notEqual, .beginsWith, .endsWith, .contains].contains(c.op):
            guard case .string(let s) = right[0] else { return nil }
            return (nil, Array(s.utf8))
        default:
            return nil
        }
    }

    /// Whether the object `key` of `table`, whose row is `row`, satisfies `filter`.
    package func matches(_ filter: CompiledFilter, _ table: Table, _ key: ObjectKey, _ row: UnsafeRawBufferPointer) throws(StorageError) -> Bool {
        let tests = filter.tests
        for index in tests.indices {
            switch tests[index].holds(row) {
            case true?: continue
            case false?: return false
            case nil: if !(try matches(.comparison(filter.fallbacks[index]), table, key, row)) { return false }
            }
        }
        guard let residual = filter.residual else { return true }
        return try matches(residual, table, key, row)
    }
}
