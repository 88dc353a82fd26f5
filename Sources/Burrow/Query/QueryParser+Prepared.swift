import BurrowStore

/// Query strings of one comparison with its value as the one argument, prepared once per
/// thread, class and string (as SQLite keeps prepared statements): `filter("name == %@", x)`
/// run for many `x` tokenizes, parses and validates `"name == %@"` once, and afterwards only
/// converts the argument.
///
/// A string is prepared when it parses and validates to a single comparison of a key path
/// with a constant, its one argument (`%@` or `$0`) is its last token, and it takes no other
/// argument. Parsing such a string with another argument gives the same comparison with that
/// argument's value, provided the value converts to a single constant: then the comparison
/// has the shape of the one validated (`QueryPredicate.hasShape(of:)`), which validation
/// accepts alike. Any other argument (a list, one that does not convert, a value of another
/// type) goes through the full parse, which gives what it always gave, errors included.
struct PreparedComparison {
    /// The class the string was validated for (held, so that its identity stays its own).
    let info: ClassInfo
    let text: String
    /// The comparison parsed from the string, with the first argument's value.
    let comparison: QueryComparison
    /// `comparison` as a predicate's shape, for comparing new values' shapes with.
    let shape: QueryPredicate

    /// The preparation of `text`, parsed with `arguments` into `parsed` and validated for
    /// `info`, or nil if the string does not have the form prepared.
    init?(_ text: String, tokens: [QueryParser.Token], arguments: [Any], parsed: QueryParser.Parsed, for info: ClassInfo) {
        guard arguments.count == 1, parsed.trailing.isEmpty, case .comparison(let c) = parsed.predicate, case .path = c.lhs,
            case .constant = c.rhs, tokens.count >= 2, tokens[tokens.count - 1].kind == .end
        else { return nil }
        let last = tokens[tokens.count - 2]
        switch last.kind {
        case .argument, .indexedArgument(0): break
        default: return nil
        }
        // The last token is the only argument: the comparison's value is the one operand
        // parsed after its operator, so it is that argument's.
        for token in tokens.dropLast(2) {
            switch token.kind {
            case .argument, .indexedArgument, .keyPathArgument: return nil
            default: continue
            }
        }
        self.info = info
        self.text = text
        comparison = c
        shape = parsed.predicate.shape
    }

    /// What parsing the string with the single argument `argument` gives, or nil if that
    /// needs the full parse (the argument is a list, cannot be converted, or has another shape).
    func parse(_ argument: Any) -> QueryParser.Parsed? {
        // Converted as `QueryParser.argument(_:at:)` converts it, where it gives a constant.
        guard QueryParser.listArgument(argument) == nil, let value = try? QueryValue.argument(argument) else { return nil }
        let predicate = QueryPredicate.comparison(comparison.with(lhs: comparison.lhs, rhs: .constant(value)))
        guard predicate.hasShape(of: shape) else { return nil }
        return QueryParser.Parsed(predicate: predicate, trailing: [])
    }
}
