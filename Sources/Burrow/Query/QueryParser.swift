import BurrowStore
import Foundation

/// The query-string language (RealmSwift's `filter(_:_:)` strings, NSPredicate syntax):
///
///     age < %@ AND name BEGINSWITH[c] 'r'
///     ANY dogs.age > 5 OR dogs.@count == 0
///     name IN {'Rex', 'Fido'} AND age BETWEEN {1, 3} SORT(age DESC, name) LIMIT(10)
///
/// Parsed by recursive descent into a `QueryPredicate` and the trailing `SORT`, `DISTINCT`
/// and `LIMIT` steps, then checked against the class's schema. A syntax error is a
/// `RealmError` saying where (the position, in characters from the start) and what was
/// expected; nothing in the string can crash the parser (nesting is bounded).
struct QueryParser {
    /// What a query string parses into.
    struct Parsed {
        var predicate: QueryPredicate
        var trailing: [QueryStep]

        /// The query's steps: the filter, then the trailing ones.
        var steps: [QueryStep] { [.filter(predicate)] + trailing }
    }

    static let maximumDepth = QueryPredicate.maximumDepth

    let text: String
    let tokens: [Token]
    let arguments: [Any]
    var position = 0
    var nextArgument = 0
    var depth = 0
    /// Inside `SUBQUERY(…)`: its variable (`$x`), which key paths of the inner predicate start with.
    var subqueryVariable: String?

    /// Parses `text` with `arguments` for `%@`/`$n`, and validates it for `info`'s class. A
    /// string prepared on this thread already (`PreparedComparison`) only converts its
    /// argument, unless `prepared` is false (for tests comparing the two).
    static func parse(_ text: String, arguments: [Any], for info: ClassInfo, prepared usePrepared: Bool = true) throws(RealmError) -> Parsed {
        let memo = ThreadMemo.current
        if usePrepared, arguments.count == 1,
            let prepared = memo.preparedComparisons.first(ObjectIdentifier(info), where: { $0.text == text }),
            let parsed = prepared.parse(arguments[0])
        {
            return parsed
        }
        let tokens = try tokenize(text)
        var parser = QueryParser(text: text, tokens: tokens, arguments: arguments)
        let parsed = try parser.parseQuery()
        try validate(parsed, of: text, in: .object(info))
        // A string prepared already (for an argument of another type, which its prepared form
        // does not take) is not prepared again: a second entry would never be found.
        if !memo.preparedComparisons.contains(ObjectIdentifier(info), where: { $0.text == text }),
            let prepared = PreparedComparison(text, tokens: tokens, arguments: arguments, parsed: parsed, for: info)
        {
            memo.preparedComparisons.add(ObjectIdentifier(info), prepared)
        }
        return parsed
    }

    /// Parses `text` as a query of a collection of values (`self > 5`, `self BEGINSWITH 'a'
    /// SORT(self DESC)`), whose only key path is the value itself, and validates it for
    /// values of `element`'s type.
    static func parse(_ text: String, arguments: [Any], forValues element: QueryValidator.PathInfo) throws(RealmError) -> Parsed {
        var parser = QueryParser(text: text, tokens: try tokenize(text), arguments: arguments)
        let parsed = try parser.parseQuery()
        try validate(parsed, of: text, in: .values(element))
        return parsed
    }

    /// Checks the predicate and the trailing steps' key paths of `parsed` in `scope`; an
    /// error names `text`.
    private static func validate(_ parsed: Parsed, of text: String, in scope: QueryValidator.Scope) throws(RealmError) {
        do {
            if case .object(let info) = scope {
                try QueryValidator.validate(parsed.predicate, for: info)
            } else {
                try QueryValidator.validate(parsed.predicate, in: scope)
            }
            for step in parsed.trailing {
                switch step {
                case .sort(let descriptors):
                    for d in descriptors { try QueryValidator.checkOrderingKeyPath(d.keyPath, in: scope, purpose: "sort") }
                case .distinct(let paths):
                    for p in paths { try QueryValidator.checkOrderingKeyPath(p, in: scope, purpose: "distinct") }
                default: break
                }
            }
        } catch {
            throw RealmError(error.code, "\(error.description) Query: \(text)")
        }
    }

    // MARK: Tokens

    private var current: Token { tokens[min(position, tokens.count - 1)] }

    private func error(_ expected: String, at token: Token? = nil) -> RealmError {
        let token = token ?? current
        let found = token.kind == .end ? "the end of the query" : "'\(token.text)'"
        return RealmError(
            .invalidArgument, "Syntax error in query at position \(token.position): expected \(expected), found \(found). Query: \(text)")
    }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let s) = current.kind { return s == symbol }
        return false
    }

    private func isKeyword(_ keyword: String) -> Bool {
        if case .identifier(let name) = current.kind { return name.caseInsensitiveCompare(keyword) == .orderedSame }
        return false
    }

    private mutating func expectSymbol(_ symbol: String, _ what: String? = nil) throws(RealmError) {
        guard isSymbol(symbol) else { throw error(what ?? "'\(symbol)'") }
        advance()
    }

    // MARK: Grammar

    private mutating func parseQuery() throws(RealmError) -> Parsed {
        let predicate = try parseOr()
        var trailing: [QueryStep] = []
        while current.kind != .end {
            if isKeyword("SORT") {
                advance()
                try expectSymbol("(", "'(' after SORT")
                var descriptors: [QuerySort] = []
                repeat {
                    if !descriptors.isEmpty { advance() }
                    let path = try parseKeyPathText()
                    var ascending = true
                    if isKeyword("ASC") || isKeyword("ASCENDING") {
                        advance()
                    } else if isKeyword("DESC") || isKeyword("DESCENDING") {
                        ascending = false
                        advance()
                    }
                    descriptors.append(QuerySort(keyPath: path, ascending: ascending))
                } while isSymbol(",")
                try expectSymbol(")", "',' or ')' in SORT(…)")
                trailing.append(.sort(descriptors))
            } else if isKeyword("DISTINCT") {
                advance()
                try expectSymbol("(", "'(' after DISTINCT")
                var paths: [String] = []
                repeat {
                    if !paths.isEmpty { advance() }
                    paths.append(try parseKeyPathText())
                } while isSymbol(",")
                try expectSymbol(")", "',' or ')' in DISTINCT(…)")
                trailing.append(.distinct(paths))
            } else if isKeyword("LIMIT") {
                advance()
                try expectSymbol("(", "'(' after LIMIT")
                guard case .int(let count) = current.kind, count >= 0, count <= Int64(Int.max) else {
                    throw error("a number of objects (0 or more) in LIMIT(…)")
                }
                advance()
                try expectSymbol(")", "')' after the LIMIT count")
                trailing.append(.limit(Int(count)))
            } else {
                throw error(
                    trailing.isEmpty ? "AND, OR, SORT, DISTINCT, LIMIT or the end of the query" : "SORT, DISTINCT, LIMIT or the end of the query")
            }
        }
        return Parsed(predicate: predicate, trailing: trailing)
    }

    private mutating func enter() throws(RealmError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw RealmError(
                .invalidArgument, "Query is nested more than \(Self.maximumDepth) levels deep at position \(current.position). Query: \(text)")
        }
    }

    private mutating func parseOr() throws(RealmError) -> QueryPredicate {
        try enter()
        defer { depth -= 1 }
        // A chain of ORs (and of ANDs) of any length is one flat node.
        var alternatives = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            alternatives.append(try parseAnd())
        }
        return .any(alternatives)
    }

    private mutating func parseAnd() throws(RealmError) -> QueryPredicate {
        var conditions = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            conditions.append(try parseNot())
        }
        return .all(conditions)
    }

    private mutating func parseNot() throws(RealmError) -> QueryPredicate {
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            try enter()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(RealmError) -> QueryPredicate {
        if isSymbol("(") {
            advance()
            let inner = try parseOr()
            try expectSymbol(")", "')' or AND/OR")
            return inner
        }
        if isKeyword("TRUEPREDICATE") {
            advance()
            return .constant(true)
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return .constant(false)
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(RealmError) -> QueryPredicate {
        var quantifier = QueryQuantifier.any
        // `any` followed by an operator is a property named `any`, not the quantifier.
        let quantifierFollows = !nextIsOperator
        if !quantifierFollows {
        } else if isKeyword("ANY") || isKeyword("SOME") {
            advance()
        } else if isKeyword("ALL") {
            quantifier = .all
            advance()
        } else if isKeyword("NONE") {
            quantifier = .none
            advance()
        }
        let lhs = try parseOperand()
        let opToken = current
        if case .path = lhs, quantifier == .any,
            opToken.kind == .end || isSymbol(")") || isKeyword("AND") || isKeyword("OR")
                || isSymbol("&&") || isSymbol("||") || isKeyword("SORT") || isKeyword("DISTINCT") || isKeyword("LIMIT")
        {
            // A bare key path is a condition on a Bool property: `flag` means `flag == true`.
            return .compare(lhs, .equal, .constant(.bool(true)))
        }
        var negate = false
        let op: QueryOperator
        var isIn = false
        switch current.kind {
        case .symbol("=="), .symbol("="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="), .symbol("=<"): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="), .symbol("=>"): op = .greaterOrEqual
        case .identifier(let word):
            switch word.uppercased() {
            case "BEGINSWITH": op = .beginsWith
            case "ENDSWITH": op = .endsWith
            case "CONTAINS": op = .contains
            case "LIKE": op = .like
            case "BETWEEN": op = .between
            case "IN":
                op = .equal
                isIn = true
            case "NOT":
                // `a NOT IN {…}`, `a NOT BETWEEN {…}`…
                advance()
                negate = true
                guard case .identifier(let next) = current.kind,
                    ["IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "BETWEEN"].contains(next.uppercased())
                else {
                    throw error("IN, BETWEEN, BEGINSWITH, ENDSWITH, CONTAINS or LIKE after NOT")
                }
                switch next.uppercased() {
                case "BEGINSWITH": op = .beginsWith
                case "ENDSWITH": op = .endsWith
                case "CONTAINS": op = .contains
                case "LIKE": op = .like
                case "BETWEEN": op = .between
                default:
                    op = .equal
                    isIn = true
                }
            default:
                throw error("a comparison operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN, BETWEEN)", at: opToken)
            }
        default:
            throw error("a comparison operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN, BETWEEN)", at: opToken)
        }
        advance()
        let options = try parseOptions()
        let rhs = try parseOperand()
        if op == .between {
            guard case .list(let bounds) = rhs, bounds.count == 2 else {
                throw error("BETWEEN {low, high}: a list of two values", at: opToken)
            }
        }
        if isIn, case .constant(let value) = rhs, !value.isNull {
            throw error("a list ({…}), an array argument or a collection key path after IN", at: opToken)
        }
        let comparison = QueryPredicate.compare(lhs, op, rhs, options: options, quantifier: quantifier)
        return negate ? .not(comparison) : comparison
    }

    /// Whether the token after the current one is an `@…` word.
    private var nextIsAt: Bool {
        guard position + 1 < tokens.count, case .at = tokens[position + 1].kind else { return false }
        return true
    }

    /// Whether the token after the current one is a comparison operator.
    private var nextIsOperator: Bool {
        guard position + 1 < tokens.count else { return false }
        switch tokens[position + 1].kind {
        case .symbol(let s): return ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>"].contains(s)
        case .identifier(let word):
            return ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN", "BETWEEN"].contains(word.uppercased())
        default: return false
        }
    }

    private mutating func parseOptions() throws(RealmError) -> QueryStringOptions {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .identifier(let flags) = current.kind, !flags.isEmpty, flags.allSatisfy({ "cdCD".contains($0) }) else {
            throw error("string options c, d or cd inside [ ]")
        }
        advance()
        try expectSymbol("]", "']' after string options")
        var options: QueryStringOptions = []
        if flags.lowercased().contains("c") { options.insert(.caseInsensitive) }
        if flags.lowercased().contains("d") { options.insert(.diacriticInsensitive) }
        return options
    }

    // MARK: Operands

    private mutating func parseOperand() throws(RealmError) -> QueryExpression {
        let token = current
        switch token.kind {
        case .int(let v):
            advance()
            return .constant(.int(v))
        case .double(let v):
            advance()
            return .constant(.double(v))
        case .string(let s):
            advance()
            return .constant(.string(s))
        case .date(let d):
            advance()
            return .constant(.date(d))
        case .argument:
            advance()
            let value = try argument(nextArgument, at: token)
            nextArgument += 1
            return value
        case .indexedArgument(let index):
            advance()
            return try argument(index, at: token)
        case .keyPathArgument:
            advance()
            guard nextArgument < arguments.count, let name = arguments[nextArgument] as? String else {
                throw RealmError(
                    .invalidArgument, "%K at position \(token.position) needs a key path string as argument \(nextArgument + 1). Query: \(text)")
            }
            nextArgument += 1
            return try continueKeyPath(QueryPath(dotted: name).components)
        case .symbol("{"):
            advance()
            var values: [QueryValue] = []
            if !isSymbol("}") {
                repeat {
                    if !values.isEmpty { advance() }
                    let element = try parseOperand()
                    guard case .constant(let value) = element else {
                        throw error("a constant in the list { … }")
                    }
                    values.append(value)
                } while isSymbol(",")
            }
            try expectSymbol("}", "',' or '}' to end the list")
            return .list(values)
        case .identifier(let name) where name.hasPrefix("$"):
            guard name == subqueryVariable else {
                throw error(
                    subqueryVariable == nil
                        ? "a value, an argument (%@) or a key path ($\u{2026} variables belong inside SUBQUERY)"
                        : "the SUBQUERY variable \(subqueryVariable!)", at: token)
            }
            advance()
            return try continueKeyPath([])
        case .at("links"):
            advance()
            var components: [QueryPath.Component] = []
            if let counted = try backlinksStep(into: &components) { return counted }
            return try continueKeyPath(components)
        case .identifier(let name) where name.uppercased() == "SUBQUERY" && position + 1 < tokens.count && tokens[position + 1].kind == .symbol("("):
            advance()
            return try parseSubquery()
        case .identifier(let name):
            switch name.lowercased() {
            case "true":
                advance()
                return .constant(.bool(true))
            case "false":
                advance()
                return .constant(.bool(false))
            case "nil", "null":
                advance()
                return .constant(.null)
            case "self":
                advance()
                return try continueKeyPath([])
            case "oid", "uuid":
                let save = position
                advance()
                if isSymbol("(") {
                    return try parseTypedLiteral(name.lowercased(), at: token)
                }
                position = save
            default:
                break
            }
            advance()
            return try continueKeyPath([.property(name)])
        default:
            throw error("a value, an argument (%@) or a key path", at: token)
        }
    }

    /// `SUBQUERY(collection, $x, predicate).@count`; the `(` is the current token.
    private mutating func parseSubquery() throws(RealmError) -> QueryExpression {
        advance()
        var collection: QueryPath
        if case .at("links") = current.kind {
            // The objects linking here through one property: `SUBQUERY(@links.Person.dogs, $p, …)`.
            let start = current
            advance()
            var components: [QueryPath.Component] = []
            guard try backlinksStep(into: &components) == nil else {
                throw error("@links.Class.property (a collection of objects) as the SUBQUERY collection", at: start)
            }
            collection = QueryPath(components)
        } else {
            collection = QueryPath(dotted: try parseKeyPathText())
        }
        // A map's keys or values: `SUBQUERY(parks.@keys, $k, …)`.
        if isSymbol("."), nextIsAt, case .at(let part) = tokens[position + 1].kind, part == "keys" || part == "values" {
            advance()
            advance()
            collection.components.append(part == "keys" ? .keys : .values)
        }
        try expectSymbol(",", "',' after the SUBQUERY collection")
        guard case .identifier(let variable) = current.kind, variable.hasPrefix("$") else {
            throw error("a variable ($x) after the SUBQUERY collection")
        }
        advance()
        try expectSymbol(",", "',' after the SUBQUERY variable")
        let outer = subqueryVariable
        subqueryVariable = variable
        let inner = try parseOr()
        subqueryVariable = outer
        try expectSymbol(")", "')' to end SUBQUERY(…)")
        try expectSymbol(".", "'.@count' after SUBQUERY(…)")
        guard case .at(let aggregate) = current.kind, aggregate == "count" || aggregate == "size" else {
            throw error("@count or @size after SUBQUERY(…).")
        }
        advance()
        return .subquery(collection, inner)
    }

    /// `oid(…)` and `uuid(…)` literals; the `(` is the current token.
    private mutating func parseTypedLiteral(_ kind: String, at start: Token) throws(RealmError) -> QueryExpression {
        advance()
        var raw = ""
        while !isSymbol(")") && current.kind != .end {
            raw += current.text
            advance()
        }
        try expectSymbol(")", "')' to end \(kind)(…)")
        if kind == "oid" {
            guard let id = try? ObjectId(string: raw) else {
                throw RealmError(
                    .invalidArgument, "Invalid ObjectId literal at position \(start.position): '\(raw)' is not 24 hexadecimal digits. Query: \(text)")
            }
            return .constant(.objectId(id))
        }
        guard let uuid = UUID(uuidString: raw) else {
            throw RealmError(.invalidArgument, "Invalid UUID literal at position \(start.position): '\(raw)' is not a UUID. Query: \(text)")
        }
        return .constant(.uuid(uuid))
    }

    /// The rest of a key path after its first components: `.name`, `.@count`, `['key']`…
    private mutating func continueKeyPath(_ start: [QueryPath.Component]) throws(RealmError) -> QueryExpression {
        var components = start
        while true {
            if isSymbol("["), position + 1 < tokens.count {
                let keyToken = tokens[position + 1]
                var key: String?
                switch keyToken.kind {
                case .string(let s): key = s
                case .argument, .indexedArgument:
                    var index = nextArgument
                    if case .indexedArgument(let i) = keyToken.kind { index = i } else { nextArgument += 1 }
                    guard index >= 0, index < arguments.count, let s = arguments[index] as? String else {
                        throw RealmError(
                            .invalidArgument,
                            "The map key at position \(keyToken.position) must be a string argument (argument \(index + 1)). Query: \(text)")
                    }
                    key = s
                default:
                    // `[c]` after a key path belongs to the operator that follows.
                    key = nil
                }
                guard let key else { break }
                advance()
                advance()
                try expectSymbol("]", "']' after the map key")
                components.append(.mapKey(key))
                continue
            }
            guard isSymbol(".") else { break }
            advance()
            switch current.kind {
            case .identifier(let name):
                advance()
                components.append(.property(name))
            case .at(let aggregate):
                let token = current
                advance()
                switch aggregate {
                case "count", "size":
                    return .aggregate(QueryPath(components), .count)
                case "links":
                    if let counted = try backlinksStep(into: &components) { return counted }
                case "keys":
                    components.append(.keys)
                case "values":
                    components.append(.values)
                case "sum", "avg", "min", "max":
                    let kind = QueryAggregate(rawValue: aggregate)!
                    if isSymbol(".") {
                        advance()
                        guard case .identifier(let name) = current.kind else {
                            throw error("a property name after @\(aggregate).")
                        }
                        advance()
                        components.append(.property(name))
                    }
                    return .aggregate(QueryPath(components), kind)
                default:
                    throw error("@count, @size, @sum, @avg, @min, @max, @keys, @values or @links", at: token)
                }
            default:
                throw error("a property name or @aggregate after '.'")
            }
        }
        return .path(QueryPath(components))
    }

    /// What follows `@links` (the current token is the `.` after it): `.@count`, the number
    /// of links to the object from any class and property, is returned as that aggregate;
    /// `.Class.property`, the objects of `Class` whose `property` links to the object, is
    /// appended to `components`, for the key path to go on from (nil is returned).
    private mutating func backlinksStep(into components: inout [QueryPath.Component]) throws(RealmError) -> QueryExpression? {
        try expectSymbol(".", "'.' after @links (@links.Class.property or @links.@count)")
        switch current.kind {
        case .at(let word) where word == "count" || word == "size":
            advance()
            return .aggregate(QueryPath(components + [.allBacklinks]), .count)
        case .identifier(let className) where !className.hasPrefix("$"):
            advance()
            try expectSymbol(".", "'.' and a property of \(className) after @links.\(className)")
            guard case .identifier(let property) = current.kind else {
                throw error("the property of \(className) whose links to follow back, after @links.\(className).")
            }
            advance()
            components.append(.backlinks(className: className, property: property))
            return nil
        default:
            throw error("a class name (@links.Class.property) or @count after @links.")
        }
    }

    /// A key path as text, for SORT, DISTINCT and the SUBQUERY collection (which may go on
    /// with `.@keys` or `.@values`).
    private mutating func parseKeyPathText() throws(RealmError) -> String {
        guard case .identifier(var path) = current.kind else { throw error("a key path") }
        advance()
        while isSymbol("."), !nextIsAt {
            advance()
            guard case .identifier(let name) = current.kind else { throw error("a property name after '.'") }
            path += "." + name
            advance()
        }
        return path
    }

    private func argument(_ index: Int, at token: Token) throws(RealmError) -> QueryExpression {
        guard index >= 0, index < arguments.count else {
            throw RealmError(
                .invalidArgument,
                "The query uses argument \(index + 1) at position \(token.position), but \(arguments.count == 0 ? "no arguments were" : arguments.count == 1 ? "only 1 argument was" : "only \(arguments.count) arguments were") given. Query: \(text)"
            )
        }
        let value = arguments[index]
        if let list = Self.listArgument(value) {
            var values: [QueryValue] = []
            for element in list {
                guard let converted = try QueryValue.argument(element) else {
                    throw RealmError(
                        .invalidArgument,
                        "Argument \(index + 1) at position \(token.position) contains \(element) (\(type(of: element))), which queries cannot compare. Query: \(text)"
                    )
                }
                values.append(converted)
            }
            return .list(values)
        }
        guard let converted = try QueryValue.argument(value) else {
            throw RealmError(
                .invalidArgument,
                "Argument \(index + 1) at position \(token.position) is \(value) (\(type(of: value))), which queries cannot compare. Query: \(text)")
        }
        return .constant(converted)
    }

    /// The elements of an array, set or results argument (for `IN` and `BETWEEN`); nil for a
    /// single value (strings and data are single values).
    static func listArgument(_ value: Any) -> [Any]? {
        if value is String || value is Data || value is any _Persistable { return nil }
        if let results = value as? any QueryArgumentCollection { return results.queryElements }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .collection || mirror.displayStyle == .set else { return nil }
        return mirror.children.map(\.value)
    }
}

/// Collections of objects that can be a query argument (`dogs IN %@`).
protocol QueryArgumentCollection {
    var queryElements: [Any] { get }
}

extension Results: QueryArgumentCollection {
    var queryElements: [Any] { map { $0 } }
}

extension List: QueryArgumentCollection {
    var queryElements: [Any] { map { $0 } }
}

extension MutableSet: QueryArgumentCollection {
    var queryElements: [Any] { map { $0 } }
}
