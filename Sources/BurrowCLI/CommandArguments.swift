import BurrowStore

/// A mistake in how the tool was called: printed on standard error with the command's
/// usage line, and the tool exits with status 2.
struct UsageError: Error {
    /// What was wrong, for the line after "burrow: ".
    let message: String
}

/// A failure of the command itself (a file that cannot be opened or is damaged, a query or an
/// import that cannot be carried out): one line on standard error, and exit status 1.
struct ToolError: Error {
    /// What failed and, where it helps, what to do, for the line after "burrow: ".
    let message: String
}

/// The operands and options given to one command, checked against the options it takes.
/// Options may come before, between or after the operands, as `--name value` or
/// `--name=value`; `--` ends the options.
struct CommandArguments {
    /// The arguments that are not options, in order.
    var operands: [String] = []
    /// The value of each option that takes one, by name without the dashes.
    var values: [String: String] = [:]
    /// The options without a value that were given, by name without the dashes.
    var flags: Set<String> = []

    /// Parses `arguments` for a command that takes the options `valueOptions` (each with a
    /// value) and `flagOptions` (without one); `-h` and `--help` are always flags (`help`).
    /// Throws `UsageError` for an option the command does not take or one without its value.
    static func parse(_ arguments: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws(UsageError) -> CommandArguments {
        var parsed = CommandArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.operands.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                parsed.flags.insert("help")
                continue
            }
            guard argument.hasPrefix("--") else { throw UsageError(message: "unknown option \(argument)") }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if valueOptions.contains(name) {
                if value == nil {
                    guard index < arguments.count else { throw UsageError(message: "--\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                if parsed.values[name] != nil { throw UsageError(message: "--\(name) is given twice") }
                parsed.values[name] = value
            } else if flagOptions.contains(name) {
                guard value == nil else { throw UsageError(message: "--\(name) takes no value") }
                parsed.flags.insert(name)
            } else {
                throw UsageError(message: "unknown option --\(name)")
            }
        }
        return parsed
    }

    /// The value of option `name`, which must be one of `choices`, or `fallback` when not
    /// given.
    func choice(_ name: String, of choices: [String], default fallback: String) throws(UsageError) -> String {
        guard let value = values[name] else { return fallback }
        guard choices.contains(value) else {
            throw UsageError(message: "--\(name) must be one of \(choices.joined(separator: ", ")), not \"\(value)\"")
        }
        return value
    }
}
