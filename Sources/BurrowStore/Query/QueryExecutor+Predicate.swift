import BurrowStorage
import Foundation

/// Evaluating predicates on rows.
extension QueryExecutor {
    /// A predicate compiled for one table.
    package indirect enum CompiledPredicate {
        case constant(Bool)
        case and([CompiledPredicate])
        case or([CompiledPredicate])
        case not(CompiledPredicate)
        case comparison(CompiledComparison)
    }

    package enum CompiledSide {
        case values([QueryValue])
        case path(CompiledPath)
        case aggregate(CompiledPath, QueryAggregate)
        /// The collection's path, the table of its objects, and the predicate on them.
        case subquery(CompiledPath, Table?, CompiledFilter?)
        /// A collection of values and the predicate on each (whose `.element` sides are it).
        case valueSubquery(CompiledPath, CompiledPredicate)
        /// The element a value subquery's predicate is testing.
        case element
    }

    package final class CompiledComparison {
        package let lhs: CompiledSide
        package let rhs: CompiledSide
        package let op: QueryOperator
        package let options: QueryStringOptions
        package let quantifier: QueryQuantifier
        /// For the common `property op constant(s)` on a field of the queried object itself:
        /// the row field and its type, read without collecting values into an array.
        package let directField: (field: Int, type: PropertyType)?

        package init(lhs: CompiledSide, rhs: CompiledSide, op: QueryOperator, options: QueryStringOptions, quantifier: QueryQuantifier) {
            self.lhs = lhs
            self.rhs = rhs
            self.op = op
            self.options = options
            self.quantifier = quantifier
            if case .path(let path) = lhs, case .values = rhs, let steps = path.steps, steps.count == 1, case .field(let field) = steps[0].kind {
                directField = (field, steps[0].type)
            } else {
                directField = nil
            }
        }
    }

    /// `predicate` compiled for `table`, as a tree (see `compile(_:for:)` for filters).
    /// `element` compiles a value subquery's predicate, whose empty key paths stand for the
    /// element tested.
    package func compilePredicate(_ predicate: QueryPredicate, for table: Table, element: Bool = false) -> CompiledPredicate {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let conditions): return .and(conditions.map { compilePredicate($0, for: table, element: element) })
        case .or(let conditions): return .or(conditions.map { compilePredicate($0, for: table, element: element) })
        case .not(let a): return .not(compilePredicate(a, for: table, element: element))
        case .comparison(let c):
            let c = c.normalized
            return .comparison(
                CompiledComparison(
                    lhs: compile(c.lhs, table, c.options, element: element), rhs: compile(c.rhs, table, c.options, element: element),
                    op: c.op, options: c.options, quantifier: c.quantifier))
        }
    }

    private func compile(_ expression: QueryExpression, _ table: Table, _ options: QueryStringOptions, element: Bool) -> CompiledSide {
        switch expression {
        case .constant(let value): return .values([resolve(value, options)])
        case .list(let values): return .values(values.map { resolve($0, options) })
        case .path(let path) where element && path.components.isEmpty: return .element
        case .path(let path): return .path(compile(path, from: table))
        case .aggregate(let path, let aggregate): return .aggregate(compile(path, from: table), aggregate)
        case .subquery(let path, let predicate):
            let compiled = compile(path, from: table)
            // A collection this version does not have holds nothing.
            guard let last = compiled.steps?.last else { return .subquery(compiled, nil, nil) }
            guard last.type == .object else {
                return .valueSubquery(compiled, compilePredicate(predicate, for: table, element: true))
            }
            let target = last.target
            return .subquery(compiled, target, target.map { compile(predicate, for: $0) })
        }
    }

    /// A constant as it compares in this version: objects as links, strings folded.
    private func resolve(_ value: QueryValue, _ options: QueryStringOptions) -> QueryValue {
        switch value {
        case .object(.named(let className, let key)):
            return .object(.stored(table: context.storedClassId(named: className) ?? .max, key: key))
        case .string(let s) where !options.isEmpty:
            return .string(Self.fold(s, options))
        default:
            return value
        }
    }

    /// `s` with case and/or diacritics folded away, as `[c]`, `[d]` and `[cd]` compare.
    package static func fold(_ s: String, _ options: QueryStringOptions) -> String {
        var compareOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { compareOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { compareOptions.insert(.diacriticInsensitive) }
        return s.folding(options: compareOptions, locale: nil)
    }

    /// Whether the object `key` of `table`, whose row is `row`, satisfies `predicate`.
    package func matches(_ predicate: CompiledPredicate, _ table: Table, _ key: ObjectKey, _ row: UnsafeRawBufferPointer) throws(StorageError) -> Bool
    {
        switch predicate {
        case .constant(let value): return value
        case .and(let conditions):
            for condition in conditions where !(try matches(condition, table, key, row)) { return false }
            return true
        case .or(let conditions):
            for condition in conditions where try matches(condition, table, key, row) { return true }
            return false
        case .not(let a): return !(try matches(a, table, key, row))
        case .comparison(let c):
            if let direct = c.directField, case .values(let right) = c.rhs {
                let value = try fieldValue(row, direct.field, direct.type, table, key)
                return c.quantifier == .none ? !Self.test(value, right, c) : Self.test(value, right, c)
            }
            let left = try values(c.lhs, table, key, row)
            let right = try values(c.rhs, table, key, row)
            switch c.quantifier {
            case .any: return left.contains { Self.test($0, right, c) }
            case .all: return left.allSatisfy { Self.test($0, right, c) }
            case .none: return !left.contains { Self.test($0, right, c) }
            }
        }
    }

    /// Whether `element`, an element of a collection of values, satisfies a value subquery's
    /// `predicate` (compiled with `element: true`, so its sides are the element and constants).
    package static func matches(_ predicate: CompiledPredicate, element: QueryValue) -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .and(let conditions):
            for condition in conditions where !matches(condition, element: element) { return false }
            return true
        case .or(let conditions):
            for condition in conditions where matches(condition, element: element) { return true }
            return false
        case .not(let a): return !matches(a, element: element)
        case .comparison(let c):
            let right = elementSide(c.rhs, element)
            return elementSide(c.lhs, element).contains { Self.test($0, right, c) }
        }
    }

    private static func elementSide(_ side: CompiledSide, _ element: QueryValue) -> [QueryValue] {
        switch side {
        case .element: [element]
        case .values(let values): values
        default: []  // the validator admits no key path but the element's own
        }
    }

    private func values(_ side: CompiledSide, _ table: Table, _ key: ObjectKey, _ row: UnsafeRawBufferPointer) throws(StorageError) -> [QueryValue] {
        switch side {
        case .values(let values): return values
        case .path(let path):
            var out: [QueryValue] = []
            try values(path, table, key, row, into: &out)
            return out
        case .element:
            preconditionFailure("internal error: a SUBQUERY element outside its SUBQUERY")
        case .valueSubquery(let path, let predicate):
            var found: [QueryValue] = []
            try elements(path, table, key, row, into: &found)
            return [.int(Int64(found.count { Self.matches(predicate, element: $0) }))]
        case .subquery(let path, let element, let predicate):
            guard let element, let predicate else { return [.int(0)] }
            var links: [QueryValue] = []
            try elements(path, table, key, row, into: &links)
            var count: Int64 = 0
            for case .object(.stored(_, let target)) in links {
                let objectKey = ObjectKey(target)
                if try withRow(element, objectKey, { row throws(StorageError) in try matches(predicate, element, objectKey, row) }) == true {
                    count += 1
                }
            }
            return [.int(count)]
        case .aggregate(let path, let aggregate):
            if let steps = path.steps, case .allBacklinks? = steps.last?.kind {
                return try linkCounts(steps, table, key, row)
            }
            var out: [QueryValue] = []
            if let steps = path.steps, !steps.isEmpty {
                try values(path, table, key, row, into: &out)
                // A nil link before the collection reaches one null, not an element.
                if out.count == 1, out[0].isNull, !Self.endsInCollection(steps) { out = [] }
            }
            return [Self.aggregate(aggregate, of: out)]
        }
    }

    private static func endsInCollection(_ steps: [Step]) -> Bool {
        steps.contains {
            switch $0.kind {
            case .collection, .backlinks, .allBacklinks: true
            default: false
            }
        }
    }

    /// Whether `value` satisfies the comparison against the other side's values (any of them,
    /// or for `BETWEEN`, between the two).
    private static func test(_ value: QueryValue, _ others: [QueryValue], _ c: CompiledComparison) -> Bool {
        if c.op == .between {
            guard others.count == 2, let low = QueryValue.order(value, others[0]), let high = QueryValue.order(value, others[1]) else { return false }
            return low >= 0 && high <= 0
        }
        var subject = value
        if !c.options.isEmpty, case .string(let s) = value { subject = .string(Self.fold(s, c.options)) }
        if c.op == .notEqual {
            return others.contains { !QueryValue.equal(subject, $0) }
        }
        return others.contains { Self.test(subject, c.op, $0) }
    }

    package static func test(_ a: QueryValue, _ op: QueryOperator, _ b: QueryValue) -> Bool {
        switch op {
        case .equal: return QueryValue.equal(a, b)
        case .notEqual: return !QueryValue.equal(a, b)
        case .less: return QueryValue.order(a, b).map { $0 < 0 } ?? false
        case .lessOrEqual: return QueryValue.order(a, b).map { $0 <= 0 } ?? false
        case .greater: return QueryValue.order(a, b).map { $0 > 0 } ?? false
        case .greaterOrEqual: return QueryValue.order(a, b).map { $0 >= 0 } ?? false
        case .between: return false
        case .beginsWith, .endsWith, .contains:
            guard let x = bytes(a), let y = bytes(b) else { return false }
            switch op {
            case .beginsWith: return x.count >= y.count && x.starts(with: y)
            case .endsWith: return x.count >= y.count && x[(x.count - y.count)...].elementsEqual(y)
            default: return contains(x, y)
            }
        case .like:
            guard case .string(let s) = a, case .string(let pattern) = b else { return false }
            return like(Array(s.unicodeScalars), likeTokens(pattern))
        }
    }

    /// A string operator applied to a string field's `payload` and `constant`, on the row's
    /// bytes; nil if the payload lives outside the row (a long string), which the general
    /// path fetches.
    @inline(__always)
    package static func testInPlace(_ payload: UnsafeRawBufferPointer, _ constant: UnsafeRawBufferPointer, _ op: QueryOperator) -> Bool? {
        guard let text = RowCodec.text(payload) else { return nil }
        let count = text.count
        let n = constant.count
        switch op {
        case .equal: return count == n && same(text, 0, constant)
        case .notEqual: return !(count == n && same(text, 0, constant))
        case .beginsWith: return count >= n && same(text, 0, constant)
        case .endsWith: return count >= n && same(text, count - n, constant)
        default:
            guard n > 0 else { return true }
            guard count >= n else { return false }
            let first = constant[0]
            for start in 0...(count - n) where text[start] == first {
                if same(text, start, constant) { return true }
            }
            return false
        }
    }

    /// Whether `text` holds `bytes` at `offset` (which leaves room for them).
    @inline(__always)
    private static func same(_ text: UnsafeRawBufferPointer, _ offset: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let b = bytes.baseAddress, !bytes.isEmpty else { return true }
        return memcmp(text.baseAddress! + offset, b, bytes.count) == 0
    }

    private static func bytes(_ value: QueryValue) -> [UInt8]? {
        switch value {
        case .string(let s): Array(s.utf8)
        case .data(let d): Array(d)
        default: nil
        }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        for start in 0...(haystack.count - needle.count) where haystack[start] == first {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// One element of a `LIKE` pattern.
    package enum LikeToken: Equatable {
        case scalar(Unicode.Scalar)
        case any
        case one
    }

    /// `pattern` as `LIKE` reads it: `*` matches any run of characters (Unicode scalars), `?`
    /// exactly one, and a backslash makes the character after it literal.
    package static func likeTokens(_ pattern: String) -> [LikeToken] {
        var tokens: [LikeToken] = []
        var escaped = false
        for scalar in pattern.unicodeScalars {
            if escaped {
                tokens.append(.scalar(scalar))
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else {
                tokens.append(scalar == "*" ? .any : scalar == "?" ? .one : .scalar(scalar))
            }
        }
        if escaped { tokens.append(.scalar("\\")) }
        return tokens
    }

    /// Whether `text` matches `pattern` (greedy matching with backtracking to the last `*`).
    package static func like(_ text: [Unicode.Scalar], _ pattern: [LikeToken]) -> Bool {
        var t = 0
        var p = 0
        var star = -1
        var mark = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == .one || pattern[p] == .scalar(text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == .any {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == .any { p += 1 }
        return p == pattern.count
    }
}

extension QueryComparison {
    /// The comparison with a constant side on the right where that does not change its
    /// meaning: `5 < age` is `age > 5`, `3 IN ints` is `ints == 3`.
    package var normalized: QueryComparison {
        // The sides are tested one at a time: a switch over the pair would copy both.
        switch lhs {
        case .constant, .list: break
        case .path, .aggregate, .subquery: return self
        }
        switch rhs {
        case .path, .aggregate: break
        case .subquery: guard case .constant = lhs else { return self }
        case .constant, .list: return self
        }
        guard !op.isStringOperator, op != .between else { return self }
        return with(lhs: rhs, op: op.flipped, rhs: lhs)
    }
}
