import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `TextFieldTests`.
enum TextFieldModels {
    final class Note: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var title = ""
        @Persisted var subtitle: String?
        @Persisted var body = Data()
        @Persisted var attachment: Data?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }
}

/// A row keeps a string's or data's bytes alone, an escape byte before an empty value or one
/// that starts with a marker byte (`RowCodec+Text`): every value reads back as written, through
/// objects, queries, indexes, frozen values and a reopened file, on both sides of the limit past
/// which a value lives in the blob tree.
@Suite(.temporaryDirectory) struct TextFieldTests {
    /// The values the model test draws from: empty, short, starting with the marker bytes, and
    /// around the 1,024 bytes a row keeps inline (the escape byte included).
    static func data(_ random: inout TestRandom) -> Data {
        let size = [0, 1, 2, 7, 1_022, 1_023, 1_024, 1_025, 3_000][random.int(0..<9)]
        var bytes = random.bytes(size)
        if !bytes.isEmpty, random.chance(2) { bytes[0] = [0xFE, 0xFF, 0xFD, 0x00][random.int(0..<4)] }
        return Data(bytes)
    }

    static func string(_ random: inout TestRandom) -> String {
        switch random.int(0..<6) {
        case 0: return ""
        case 1: return "Rex"
        case 2: return String(repeating: "a", count: [1_022, 1_023, 1_024, 1_025][random.int(0..<4)])
        case 3: return String(repeating: "é", count: [511, 512, 513][random.int(0..<3)])
        case 4: return "🐕 \(random.int(0..<5))"
        default: return "title \(random.int(0..<5))"
        }
    }

    struct Expected: Equatable {
        var title: String
        var subtitle: String?
        var body: Data
        var attachment: Data?
    }

    private static func read(_ note: TextFieldModels.Note) -> Expected {
        Expected(title: note.title, subtitle: note.subtitle, body: note.body, attachment: note.attachment)
    }

    /// What differs between `realm`'s notes and `model` (empty when nothing does).
    private static func differences(_ realm: Realm, _ model: [Int: Expected]) throws -> [String] {
        var found: [String] = []
        let notes = realm.objects(TextFieldModels.Note.self)
        if notes.count != model.count { found.append("\(notes.count) notes, expected \(model.count)") }
        for (id, expected) in model {
            guard let note = realm.object(ofType: TextFieldModels.Note.self, forPrimaryKey: id) else {
                found.append("note \(id) is missing")
                continue
            }
            if read(note) != expected { found.append("note \(id) differs") }
        }
        // The index on `title`, and string operators on the rows' bytes.
        for title in Set(model.values.map(\.title)) {
            let expected = Set(model.filter { $0.value.title == title }.keys)
            if Set(notes.where { $0.title == title }.map(\.id)) != expected { found.append("title == \(title.prefix(8))…") }
            if try Set(notes.filter("title == %@", title).map(\.id)) != expected { found.append("filter title == \(title.prefix(8))…") }
        }
        let empty = Set(model.filter { $0.value.title.isEmpty }.keys)
        if Set(notes.where { $0.title == "" }.map(\.id)) != empty { found.append("title == \"\"") }
        let prefixed = Set(model.filter { $0.value.title.hasPrefix("ti") }.keys)
        if Set(notes.where { $0.title.starts(with: "ti") }.map(\.id)) != prefixed { found.append("BEGINSWITH") }
        let containing = Set(model.filter { $0.value.subtitle?.contains("🐕") == true }.keys)
        if Set(notes.where { $0.subtitle.contains("🐕") }.map(\.id)) != containing { found.append("CONTAINS") }
        let nilSubtitles = Set(model.filter { $0.value.subtitle == nil }.keys)
        if Set(notes.where { $0.subtitle == nil }.map(\.id)) != nilSubtitles { found.append("subtitle == nil") }
        let sorted = notes.sorted(byKeyPath: "title").map(\.title)
        if sorted != model.values.map(\.title).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) { found.append("sorted by title") }
        return found
    }

    @Test func everyValueReadsBackAsWritten() throws {
        let seed = TestSeed.make("TextFieldTests.everyValueReadsBackAsWritten")
        var random = TestRandom(seed: seed)
        let config = temporaryConfiguration()
        var model: [Int: Expected] = [:]
        let realm = try Realm(configuration: config)
        var frozen: (FrozenResults<TextFieldModels.Note>, [Int: Expected])?
        for round in 0..<TestEnvironment.count("BURROW_MODEL_OPS", default: 40) {
            try realm.write {
                for _ in 0..<random.int(1...12) {
                    let id = random.int(0..<30)
                    switch random.int(0..<5) {
                    case 0, 1:
                        let note = TextFieldModels.Note()
                        note.id = id
                        note.title = Self.string(&random)
                        note.subtitle = random.chance(3) ? nil : Self.string(&random)
                        note.body = Self.data(&random)
                        note.attachment = random.chance(3) ? nil : Self.data(&random)
                        try realm.add(note, update: .modified)
                        model[id] = Self.read(note)
                    case 2:
                        guard let note = realm.object(ofType: TextFieldModels.Note.self, forPrimaryKey: id) else { continue }
                        note.title = Self.string(&random)
                        note.attachment = random.chance(3) ? nil : Self.data(&random)
                        model[id] = Self.read(note)
                    case 3:
                        // Every note at once, through key-value coding (a bulk rewrite of the rows).
                        let body = Self.data(&random)
                        realm.objects(TextFieldModels.Note.self).setValue(body, forKey: "body")
                        for key in model.keys { model[key]!.body = body }
                    default:
                        guard let note = realm.object(ofType: TextFieldModels.Note.self, forPrimaryKey: id) else { continue }
                        try realm.delete(note)
                        model[id] = nil
                    }
                }
                // Inside the write, the store reads its own rows.
                let inside = try Self.differences(realm, model)
                #expect(inside == [], "seed \(seed) round \(round), in the write: \(inside)")
            }
            let found = try Self.differences(realm, model)
            #expect(found == [], "seed \(seed) round \(round): \(found)")
            if found != [] { return }
            if round == 5 {
                let notes = try realm.objects(TextFieldModels.Note.self).freeze()
                frozen = (notes, model)
            }
        }
        if let frozen {
            let (notes, expected) = frozen
            #expect(notes.count == expected.count)
            for note in notes {
                let read: Expected? = Expected(title: note.title, subtitle: note.subtitle, body: note.body, attachment: note.attachment)
                #expect(read == expected[note.id], "seed \(seed): frozen note \(note.id)")
            }
        }
        let report = try ObjectVerifier.verify(realm.storage.snapshot())
        #expect(report.isSound, "seed \(seed): \(report.findings)")
        let reopened = try Realm(configuration: config)
        #expect(try Self.differences(reopened, model) == [], "seed \(seed): reopened")
    }

    @Test func aRowOfShortValuesTakesTheirBytesAndAByteAField() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let note = TextFieldModels.Note()
        note.id = 1
        note.title = "Rex"
        note.body = Data([0xFF])
        try realm.write { try realm.add(note) }
        let state = try #require(note._state)
        let row = try #require(try realm.store.reader.withValue(state.table.rowsTree, state.key.bytes) { Array($0) })
        // The header byte, four offsets (one per field but the last), the id in one byte, "Rex",
        // a null subtitle, the body's escape and byte, a null attachment.
        #expect(row.count == 1 + 4 + 1 + 3 + 0 + 2 + 0, "\(row)")
        #expect(note.title == "Rex" && note.subtitle == nil && note.body == Data([0xFF]) && note.attachment == nil)
        // An empty string is not nil: one escape byte.
        try realm.write { note.subtitle = "" }
        #expect(note.subtitle == "")
        #expect(realm.objects(TextFieldModels.Note.self).where { $0.subtitle == "" }.count == 1)
        #expect(realm.objects(TextFieldModels.Note.self).where { $0.subtitle == nil }.count == 0)
    }
}
