import Burrow
import BurrowStorage
import BurrowStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `burrow`: look into, query, export, import and check Burrow files from the shell.
///
/// Exit status: 0 on success, 1 when the file cannot be opened, is damaged, or the command
/// fails, 2 for a usage error (an unknown command or option, a missing operand, a bad query).

/// The tool's version, which `--version` prints with the file format it reads and writes.
let toolVersion = "0.1.0"

let toolHelp = """
    usage: burrow <command> [arguments]

    Look into, query, export, import and check Burrow database files. The schema is read
    from the file, so no Swift classes are needed.

    commands:
    \(Command.all.map { "  " + $0.name.padded(Command.nameColumn) + $0.summary }.joined(separator: "\n"))

    `burrow <command> --help` describes a command; `burrow --version` prints the version.
    Exit status: 0 on success, 1 if a file cannot be opened or is damaged, 2 for a usage error.
    """

/// Prints a usage error and the command's usage line, and exits with status 2.
func usageFailure(_ message: String, _ command: Command?) -> Never {
    printError("burrow: \(message)")
    printError(command.map { "\($0.usage)\n`burrow \($0.name) --help` for more." } ?? "`burrow --help` lists the commands.")
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first else {
    printError(toolHelp)
    exit(2)
}
switch name {
case "-h", "--help":
    print(toolHelp)
    exit(0)
case "help":
    if arguments.count > 1 {
        guard let command = Command.all.first(where: { $0.name == arguments[1] }) else { usageFailure("unknown command \"\(arguments[1])\"", nil) }
        print(command.help)
    } else {
        print(toolHelp)
    }
    exit(0)
case "-V", "--version", "version":
    print("burrow \(toolVersion) (file format \(Meta.formatVersion))")
    exit(0)
default:
    break
}
guard let command = Command.all.first(where: { $0.name == name }) else {
    usageFailure(name.hasPrefix("-") ? "unknown option \(name)" : "unknown command \"\(name)\"", nil)
}

do {
    let parsed = try CommandArguments.parse(Array(arguments.dropFirst()), valueOptions: command.valueOptions, flagOptions: command.flagOptions)
    if parsed.flags.contains("help") {
        print(command.help)
        exit(0)
    }
    guard command.operands.contains(parsed.operands.count) else {
        let expected =
            command.operands.lowerBound == command.operands.upperBound
            ? "\(command.operands.lowerBound)" : "\(command.operands.lowerBound) to \(command.operands.upperBound)"
        usageFailure(
            parsed.operands.count < command.operands.lowerBound ? "\(name): missing operand" : "\(name): too many operands (it takes \(expected))",
            command)
    }
    try await command.run(parsed)
} catch let error as UsageError {
    usageFailure(error.message, command)
} catch let error as ToolError {
    printError("burrow: \(error.message)")
    exit(1)
} catch let error as StorageError {
    printError("burrow: \(error.description)")
    exit(1)
} catch let error as RealmError {
    printError("burrow: \(error.description)")
    exit(1)
} catch {
    printError("burrow: \(error)")
    exit(1)
}
if DatabaseFile.openedDamaged { exit(1) }
