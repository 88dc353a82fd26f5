// Adds to Burrow's symbol graph the types it re-exports from BurrowStore (`Exports.swift`), so
// that the documentation shows them as users see them: part of `import Burrow`.
//
//     swift Scripts/reexported-symbols.swift COMPILER_GRAPH_DIR OUTPUT_DIR TYPE...
//
// The compiler writes a module's symbol graph with that module's own declarations only; the
// types `@_exported import struct BurrowStore.ObjectId` brings are in BurrowStore's graph. This
// writes OUTPUT_DIR/Burrow.symbols.json: Burrow's graph with each named type added, its
// members and their relationships. The compiler's graphs are left as they are (they are kept
// between builds), and BurrowStore's other public symbols are the package's own business.
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count > 2 else {
    FileHandle.standardError.write(Data("usage: reexported-symbols.swift COMPILER_GRAPH_DIR OUTPUT_DIR TYPE...\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[arguments.startIndex])
let output = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
let types = Set(arguments.dropFirst(2))
let storeURL = directory.appendingPathComponent("BurrowStore.symbols.json")
let apiURL = directory.appendingPathComponent("Burrow.symbols.json")

func load(_ url: URL) throws -> [String: Any] {
    guard let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path])
    }
    return graph
}

do {
    let store = try load(storeURL)
    var api = try load(apiURL)
    let symbols = store["symbols"] as? [[String: Any]] ?? []
    let moved = symbols.filter { symbol in
        guard let path = symbol["pathComponents"] as? [String], let type = path.first else { return false }
        return types.contains(type)
    }
    let movedIDs = Set(moved.compactMap { ($0["identifier"] as? [String: Any])?["precise"] as? String })
    let storeIDs = Set(symbols.compactMap { ($0["identifier"] as? [String: Any])?["precise"] as? String })
    let relationships = (store["relationships"] as? [[String: Any]] ?? []).filter { relationship in
        guard let source = relationship["source"] as? String, let target = relationship["target"] as? String else { return false }
        // A relationship between moved symbols, or from one to a symbol of another module
        // (a protocol of the standard library it conforms to).
        return movedIDs.contains(source) && (movedIDs.contains(target) || !storeIDs.contains(target))
    }
    let found = Set(moved.compactMap { ($0["pathComponents"] as? [String])?.first })
    if found != types {
        FileHandle.standardError.write(Data("BurrowStore's symbol graph has no \(types.subtracting(found).sorted()).\n".utf8))
        exit(1)
    }
    api["symbols"] = (api["symbols"] as? [[String: Any]] ?? []) + moved
    api["relationships"] = (api["relationships"] as? [[String: Any]] ?? []) + relationships
    try JSONSerialization.data(withJSONObject: api).write(to: output.appendingPathComponent("Burrow.symbols.json"))
} catch {
    FileHandle.standardError.write(Data("reexported-symbols.swift: \(error)\n".utf8))
    exit(1)
}
