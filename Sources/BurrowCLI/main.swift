import BurrowStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `burrow`: look into and check Burrow files from the shell.
let usage = """
    usage: burrow <command> [file]

      demo [file]     the DoggoDB story on a database file (default file: default.burrow)
      info <file>     version, page counts and trees
      dump <file>     every tree and entry (keys and values in hex)
      verify <file>   check every page, tree and object; exit status 1 if the file is damaged
      compact <file>  rewrite the file packed, reclaiming free pages
    """

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    print(usage)
    exit(2)
}
let path = arguments.count > 1 ? arguments[1] : "default.burrow"

do {
    switch command {
    case "demo": try await Demo.run(path: path, ownsFile: arguments.count == 1)
    case "info": try Inspect.info(path: path)
    case "dump": try Inspect.dump(path: path)
    case "verify": try Inspect.verify(path: path)
    case "compact": try Compact.run(path: path)
    case "help", "-h", "--help": print(usage)
    default:
        printError("burrow: unknown command \"\(command)\"\n\(usage)")
        exit(2)
    }
} catch let error as StorageError {
    printError("burrow: \(error.description)")
    exit(1)
} catch {
    printError("burrow: \(error)")
    exit(1)
}
