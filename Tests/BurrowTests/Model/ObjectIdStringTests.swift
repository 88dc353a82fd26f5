import Foundation
import Testing

@testable import Burrow

/// The API's forms of an `ObjectId`: `init(string:)`, which throws `RealmError`, and `Codable`
/// as its string. (The value itself is tested with the store, in BurrowStoreTests.)
@Suite("ObjectId strings")
struct ObjectIdStringTests {
    @Test("init(string:) reads either case, and a string that is not 24 hex digits throws an error that says why")
    func stringInitializer() throws {
        #expect(try ObjectId(string: "5F0E3A1B2C3D4E5F60718293").stringValue == "5f0e3a1b2c3d4e5f60718293")
        for (text, reason) in [
            ("", "0 characters"), ("5f0e3a1b2c3d4e5f6071829", "23 characters"),
            ("5f0e3a1b2c3d4e5f607182934", "25 characters"), ("5f0e3a1b2c3d4e5f6071829g", "character 24"),
        ] {
            #expect {
                _ = try ObjectId(string: text)
            } throws: { error in
                guard let error = error as? RealmError else { return false }
                return error.code == .invalidArgument && error.description.contains(reason)
            }
        }
    }

    @Test("Codable as its string")
    func codableAsString() throws {
        let id = ObjectId(timestamp: Date(timeIntervalSince1970: 1_700_000_000), machineId: 0xABCDEF, processId: 0x1234)
        let data = try JSONEncoder().encode([id])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(id.stringValue)\"]")
        #expect(try JSONDecoder().decode([ObjectId].self, from: data) == [id])
    }
}
