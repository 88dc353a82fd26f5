import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Observation
import Testing

/// Quick writes on the main actor racing two `RealmActor`s that write the same objects: no
/// write is lost, and every state Observation reports is one a commit left (the account's
/// balances keep their sum; each actor's entries match the account's count of its writes).
@MainActor
@Suite(.temporaryDirectory) struct ObservedStressTests {
    /// Writes per writer (`BURROW_OBSERVED_STRESS_WRITES`, default 60).
    private static let writes = TestEnvironment.count("BURROW_OBSERVED_STRESS_WRITES", default: 60)
    private static let total = 1_000

    /// The account's balances keep their sum and each actor's entries match its count, in the
    /// state the wrappers show now. Returns that state's change count.
    private static func checkConsistent(_ account: ObservedTestModels.Account, _ entries: Results<ObservedTestModels.Entry>) -> Int {
        #expect(account.a + account.b == total)
        #expect(entries.where { $0.source == "first" }.count == account.byFirstActor)
        #expect(entries.where { $0.source == "second" }.count == account.bySecondActor)
        return account.changes
    }

    @Test func quickWritesRacingActorsLoseNothing() async throws {
        let writes = Self.writes
        print("ObservedStressTests: \(writes) writes per writer (BURROW_OBSERVED_STRESS_WRITES)")
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ObservedTestModels.Account(value: ["id": 1, "a": 0, "b": Self.total])) }

        @ObservedRealmObject var account = realm.object(ofType: ObservedTestModels.Account.self, forPrimaryKey: 1)!
        @ObservedResults(ObservedTestModels.Entry.self, configuration: config) var entries

        // Each actor write moves one unit from b to a (or back), counts itself, and adds an
        // entry, all in one transaction.
        func actorWrites(_ source: String, step: Int) async throws {
            let db = try await RealmActor(configuration: config)
            for seq in 0..<writes {
                try await db.asyncWrite { realm in
                    let account = realm.object(ofType: ObservedTestModels.Account.self, forPrimaryKey: 1)!
                    account.deposit = step
                    if source == "first" { account.byFirstActor += 1 } else { account.bySecondActor += 1 }
                    try realm.add(ObservedTestModels.Entry(value: ["source": source, "seq": seq]))
                }
                await Task.yield()
            }
        }
        let first = Task.detached { try await actorWrites("first", step: 1) }
        let second = Task.detached { try await actorWrites("second", step: -1) }

        // An observer on the main actor checks every state Observation reports.
        let done = Fired()
        let observer = Task { @MainActor () -> Int in
            var observed = 0
            while !done.isSet {
                let signal = track {
                    _ = account.changes
                    _ = entries.count
                }
                await signal.wait()
                _ = Self.checkConsistent(account, entries)
                observed += 1
            }
            return observed
        }

        // The main actor's quick writes: an entry appended, and a binding set that moves two
        // units, each its own write transaction.
        let deposit = $account.deposit
        for seq in 0..<writes {
            $entries.append(ObservedTestModels.Entry(value: ["source": "main", "seq": seq]))
            deposit.wrappedValue = 2
            #expect($entries.error == nil)
            #expect($account.error == nil)
            _ = Self.checkConsistent(account, entries)
            await Task.yield()
        }
        try await first.value
        try await second.value
        done.set()
        $entries.append(ObservedTestModels.Entry(value: ["source": "main", "seq": writes]))  // wakes the observer to end
        let observed = await observer.value
        _entries.update()
        _account.update()

        let final = Self.checkConsistent(account, entries)
        #expect(final == 3 * writes)  // every binding set and every actor write counted once
        #expect(account.byFirstActor == writes)
        #expect(account.bySecondActor == writes)
        #expect(account.a == 2 * writes + writes - writes)  // each move applied to the newest balances
        #expect(entries.count == 3 * writes + 1)
        #expect(Set(entries.where { $0.source == "main" }.map(\.seq)) == Set(0...writes))
        #expect(observed > 0)
        print("ObservedStressTests: \(observed) observed states, all consistent")
    }
}
