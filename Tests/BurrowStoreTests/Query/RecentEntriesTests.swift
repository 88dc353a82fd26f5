import BurrowStore
import Testing

/// The small cache of each thread (`RecentEntries`): the newest entries kept, found by key.
struct RecentEntriesTests {
    @Test func testRecentEntriesKeepTheNewestAndFindByKey() {
        var entries = RecentEntries<Int, String>(capacity: 4)
        for key in 0..<4 { entries.add(key, "v\(key)") }
        #expect((0..<4).map { entries.value(for: $0) } == ["v0", "v1", "v2", "v3"])
        // Past the capacity each new entry replaces the oldest.
        entries.add(4, "v4")
        entries.add(5, "v5")
        #expect(entries.value(for: 0) == nil)
        #expect(entries.value(for: 1) == nil)
        #expect((2..<6).map { entries.value(for: $0) } == ["v2", "v3", "v4", "v5"])
        #expect(entries.contains(4) { $0 == "v4" })
        #expect(!entries.contains(4) { $0 == "v5" })
        #expect(!entries.contains(9) { _ in true })
    }
}
