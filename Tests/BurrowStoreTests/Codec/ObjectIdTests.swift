import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@Suite("ObjectId", .temporaryDirectory)
struct ObjectIdTests {
    @Test("the string form round-trips, in either case, and is 24 lowercase hex digits")
    func stringRoundTrip() throws {
        let id = try ObjectId.parse("5F0E3A1B2C3D4E5F60718293").get()
        #expect(id.stringValue == "5f0e3a1b2c3d4e5f60718293")
        #expect(id.bytes == [0x5F, 0x0E, 0x3A, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F, 0x60, 0x71, 0x82, 0x93])
        #expect(try ObjectId.parse(id.stringValue).get() == id)
        #expect("\(id)" == id.stringValue)
        for _ in 0..<100 {
            let generated = ObjectId.generate()
            #expect(try ObjectId.parse(generated.stringValue).get() == generated)
        }
    }

    @Test("a string that is not 24 hex digits is refused with a reason that says why")
    func badStrings() {
        for (text, reason) in [
            ("", "0 characters"), ("5f0e3a1b2c3d4e5f6071829", "23 characters"),
            ("5f0e3a1b2c3d4e5f607182934", "25 characters"), ("5f0e3a1b2c3d4e5f6071829g", "character 24"),
        ] {
            switch ObjectId.parse(text) {
            case .success(let id): Issue.record("\"\(text)\" parsed as \(id)")
            case .failure(let error): #expect(error.message.contains(reason), "\(error.message)")
            }
        }
    }

    @Test("generated ids are unique and, within a process, ordered by generation")
    func generatedIdsAreUniqueAndOrdered() {
        let ids = (0..<10_000).map { _ in ObjectId.generate() }
        #expect(Set(ids).count == ids.count)
        // Same second and process: only the counter differs, so order follows generation
        // (except across a counter wrap or a second boundary, at most once or twice here).
        let inversions = zip(ids, ids.dropFirst()).filter { !($0 < $1) }.count
        #expect(inversions <= 2)
        #expect(abs(ids[0].timestamp.timeIntervalSinceNow) < 5)
    }

    @Test("ids generated concurrently are unique")
    func concurrentGeneration() async {
        let batches = await withTaskGroup(of: [ObjectId].self) { group in
            for _ in 0..<8 { group.addTask { (0..<2_000).map { _ in ObjectId.generate() } } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(batches).count == 16_000)
    }

    @Test("the zero id, an id from parts, and ordering by bytes")
    func partsAndOrdering() throws {
        #expect(ObjectId().stringValue == String(repeating: "0", count: 24))
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let id = ObjectId(timestamp: date, machineId: 0xABCDEF, processId: 0x1234)
        #expect(id.timestamp == date)
        #expect(id.stringValue.hasPrefix("6553f100abcdef1234"))
        #expect(try ObjectId.parse("000000000000000000000001").get() < ObjectId.parse("000000000000000000000002").get())
        #expect(try ObjectId.parse("0000000000000000ffffffff").get() < ObjectId.parse("000000000000000100000000").get())
    }
}
