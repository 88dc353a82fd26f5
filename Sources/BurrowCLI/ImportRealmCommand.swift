import Burrow
import BurrowStore
import Foundation

/// `burrow import-realm FILE.realm OUTPUT [--key HEX]`: converts a RealmSwift app's `.realm`
/// file into a new Burrow file with `Realm.importRealmFile`, the file's classes taken as they
/// are, and prints the report: the classes and their object counts, and anything left out with
/// its reason. FILE.realm is only read; OUTPUT must not exist, and is not left behind when the
/// import fails.
@MainActor
enum ImportRealmCommand {
    static func run(_ arguments: CommandArguments) throws {
        let source = arguments.operands[0]
        let output = arguments.operands[1]
        var key: Data?
        if let hex = arguments.values["key"] {
            guard let bytes = Self.bytes(hex: hex), bytes.count == 64 else {
                throw UsageError(
                    message:
                        "--key takes the 64-byte encryption key as 128 hexadecimal digits; \"\(hex.prefix(20))\(hex.count > 20 ? "…" : "")\" is not one"
                )
            }
            key = Data(bytes)
        }
        guard FileManager.default.fileExists(atPath: source) else { throw ToolError(message: "\(source): no such file") }
        guard URL(fileURLWithPath: source).standardizedFileURL != URL(fileURLWithPath: output).standardizedFileURL else {
            throw UsageError(message: "OUTPUT must be a new file, not the .realm file itself")
        }
        var line = ProgressLine()
        line.show("reading \(source)…")
        let report: RealmImportReport
        do {
            report = try Realm.importRealmFile(
                at: URL(fileURLWithPath: source), encryptionKey: key, configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: output)),
                progress: { progress in
                    MainActor.assumeIsolated { line.update("writing \(output): \(progress.written) of \(progress.total) objects") }
                })
        } catch let error as RealmError {
            line.finish()
            throw ToolError(message: error.description)
        }
        line.finish()
        let lines =
            [
                "Imported \(report.objectCount) objects of \(report.importedClasses.count) classes from \(source) (realm-core file format \(report.fileFormatVersion)) into \(output):"
            ] + report.details
        print(lines.joined(separator: "\n"))
    }

    /// The bytes `hex` spells, two digits a byte; nil if it is not hexadecimal.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = ObjectId.nibble(digits[index]), let low = ObjectId.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
