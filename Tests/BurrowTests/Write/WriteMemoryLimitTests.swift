import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow
@testable import BurrowStorage

/// Models for the write-memory tests: objects with a primary key, an index, a list and a link,
/// so that one `add` changes several trees.
enum WriteMemoryModels {
    final class Parcel: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var number = 0
        @Persisted(indexed: true) var label = ""
        @Persisted var weight = 0
        @Persisted var notes: List<String>
        @Persisted var previous: Parcel?
    }
}

/// `Configuration.writeMemoryLimit`: a write transaction that changes more pages than the limit
/// writes the least recently changed ones to the file before its commit. What it adds, changes
/// and deletes reads back inside the transaction (queries by index, sorts, links, lists) and
/// after the commit, a cancelled one leaves the last commit, and the file verifies.
@Suite(.temporaryDirectory) struct WriteMemoryLimitTests {
    typealias Parcel = WriteMemoryModels.Parcel

    /// Parcels added, then changed and deleted in the same transaction.
    static let count = 3_000

    private func realm(limit: Int) throws -> Realm {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [Parcel.self]
        configuration.writeMemoryLimit = limit
        return try Realm(configuration: configuration)
    }

    private func addParcels(_ realm: Realm) throws {
        var previous: Parcel?
        for number in 0..<Self.count {
            let parcel = Parcel(value: ["number": number, "label": "parcel \(number % 997)", "weight": number % 50])
            parcel.notes.append(objectsIn: (0..<(number % 4)).map { "note \($0) of \(number)" })
            parcel.previous = previous
            try realm.add(parcel)
            previous = number % 10 == 0 ? nil : parcel
        }
    }

    /// How many pages the realm's open write transaction has spilled.
    private func spilledPages(_ realm: Realm) throws -> Int {
        try #require(realm.write).store.transaction.dirtyPageCounts.spilled
    }

    @Test func aWritePastItsLimitReadsItsOwnChangesAndCommitsThem() throws {
        let realm = try realm(limit: 8 * 4096)
        try realm.beginWrite()
        try addParcels(realm)
        #expect(try spilledPages(realm) > 0)
        let parcels = realm.objects(Parcel.self)
        // Queries inside the transaction read the pages it spilled.
        #expect(parcels.count == Self.count)
        #expect(parcels.where { $0.label == "parcel 5" }.map(\.number).sorted() == [5, 1_002, 1_999, 2_996])
        #expect(try parcels.filter("weight == 49").count == Self.count / 50)
        #expect(realm.object(ofType: Parcel.self, forPrimaryKey: 2_345)?.previous?.number == 2_344)
        #expect(realm.object(ofType: Parcel.self, forPrimaryKey: 2_347)?.notes.last == "note 2 of 2347")
        // Changes to objects whose pages were spilled, and deletes of some.
        for parcel in parcels.where({ $0.weight < 10 }) { parcel.weight += 1_000 }
        try realm.delete(parcels.where { $0.number >= 2_700 })
        #expect(parcels.sorted(byKeyPath: "weight", ascending: false).first?.weight == 1_009)
        try realm.commitWrite()

        let expectedWeight = (0..<2_700).reduce(0) { $0 + ($1 % 50) + ($1 % 50 < 10 ? 1_000 : 0) }
        #expect(parcels.count == 2_700)
        #expect(parcels.sum(ofProperty: "weight") as Int == expectedWeight)
        #expect(parcels.where { $0.label == "parcel 5" }.map(\.number).sorted() == [5, 1_002, 1_999])
        #expect(realm.object(ofType: Parcel.self, forPrimaryKey: 1_234)?.previous?.notes.count == 1)
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).findings.isEmpty)
    }

    @Test func aCancelledWritePastItsLimitLeavesTheLastCommit() throws {
        let realm = try realm(limit: 8 * 4096)
        try realm.write { try realm.add(Parcel(value: ["number": -1, "label": "kept"])) }
        try realm.beginWrite()
        try addParcels(realm)
        #expect(try spilledPages(realm) > 0)
        try realm.cancelWrite()
        #expect(realm.objects(Parcel.self).map(\.label) == ["kept"])
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).findings.isEmpty)
        // The next write commits as usual.
        try realm.write { try addParcels(realm) }
        #expect(realm.objects(Parcel.self).count == Self.count + 1)
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).findings.isEmpty)
    }

    @Test(arguments: [0, -1, Int.min]) func aLimitBelowOnePageMeansOnePage(limit: Int) throws {
        let realm = try realm(limit: limit)
        try realm.beginWrite()
        try addParcels(realm)
        #expect(try spilledPages(realm) > 0)
        #expect(try #require(realm.write).store.transaction.memoryLimit == 4_096)
        try realm.commitWrite()
        #expect(realm.objects(Parcel.self).count == Self.count)
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).findings.isEmpty)
    }

    /// Two actors' writes past a small limit take turns on one file while a third reads it:
    /// every version it sees holds whole writes, in order, and every page spilled by one
    /// transaction is the next one's free space or its own.
    @Test func writersOnTwoActorsPastASmallLimitWhileAnotherReads() async throws {
        var setup = temporaryConfiguration()
        setup.objectTypes = [Parcel.self]
        setup.writeMemoryLimit = 8 * 4_096
        let configuration = setup
        let batches = 3
        let perBatch = 1_000
        let writersDone = LockedBox(false)
        let seen = LockedBox<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { writersDone.withLock { $0 = true } }
                try await withThrowingTaskGroup(of: Void.self) { writers in
                    for writer in 0..<2 {
                        writers.addTask {
                            let actor = try await RealmActor(configuration: configuration)
                            for batch in 0..<batches {
                                try await actor.asyncWrite { realm in
                                    for i in 0..<perBatch {
                                        let number = (writer * batches + batch) * perBatch + i
                                        try realm.add(Parcel(value: ["number": number, "label": "parcel \(number % 97)", "weight": writer]))
                                    }
                                    // Half the batch changes again once its pages may be spilled.
                                    for parcel in realm.objects(Parcel.self).where({ $0.weight == writer }).prefix(perBatch / 2) {
                                        parcel.label += "!"
                                    }
                                }
                            }
                        }
                    }
                    try await writers.waitForAll()
                }
            }
            group.addTask {
                let reader = try await RealmActor(configuration: configuration)
                while !writersDone.withLock({ $0 }) {
                    let count = try await reader.read { realm in realm.objects(Parcel.self).count }
                    seen.withLock { $0.append(count) }
                    try await Task.sleep(nanoseconds: 1_000_000)
                }
            }
            try await group.waitForAll()
        }
        let counts = seen.withLock { $0 }
        #expect(counts.allSatisfy { $0 % perBatch == 0 }, "a reader saw part of a write: \(counts)")
        #expect(counts == counts.sorted(), "a reader saw the count go back: \(counts)")
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(Parcel.self).count == 2 * batches * perBatch)
        #expect(Set(realm.objects(Parcel.self).map(\.number)) == Set(0..<(2 * batches * perBatch)))
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).findings.isEmpty)
    }

    @Test func theDefaultLimitHoldsAnOrdinaryWriteInMemory() throws {
        let realm = try realm(limit: Realm.Configuration().writeMemoryLimit)
        #expect(Realm.Configuration().writeMemoryLimit == 64 << 20)
        try realm.beginWrite()
        try addParcels(realm)
        #expect(try spilledPages(realm) == 0)
        try realm.commitWrite()
        #expect(realm.objects(Parcel.self).count == Self.count)
    }
}
