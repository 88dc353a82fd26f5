import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// `move(fromOffsets:toOffset:)` through a list binding moves as SwiftUI's does (the elements
/// at the offsets, in their order, to just before the element at the destination), on
/// unmanaged and managed lists, for random offsets and destinations.
@MainActor
@Suite(.temporaryDirectory) struct QuickWriteMoveTests {
    /// SwiftUI's documented result, computed plainly.
    private func expected(_ values: [Int], moving offsets: IndexSet, to destination: Int) -> [Int] {
        let moved = offsets.map { values[$0] }
        var result: [Int] = []
        for index in 0...values.count {
            if index == destination { result += moved }
            if index < values.count, !offsets.contains(index) { result.append(values[index]) }
        }
        return result
    }

    @Test func movesMatchSwiftUIsOnUnmanagedAndManagedLists() throws {
        let seed = TestSeed.make("QuickWriteMoveTests")
        var generator = TestRandom(seed: seed)
        var config = temporaryConfiguration()
        config.objectTypes = [QuickWriteMoveModels.Holder.self]
        let realm = try Realm(configuration: config)
        for round in 0..<60 {
            let count = Int.random(in: 0...12, using: &generator)
            let values = Array(0..<count)
            var offsets = IndexSet()
            for index in 0..<count where Bool.random(using: &generator) { offsets.insert(index) }
            let destination = Int.random(in: 0...count, using: &generator)
            let want = expected(values, moving: offsets, to: destination)

            let holder = QuickWriteMoveModels.Holder()
            holder.values.append(objectsIn: values)
            @StateRealmObject var unmanaged = holder.values
            $unmanaged.move(fromOffsets: offsets, toOffset: destination)
            #expect(Array(holder.values) == want, "round \(round): \(values) moving \(Array(offsets)) to \(destination)")

            let managed = QuickWriteMoveModels.Holder()
            managed.values.append(objectsIn: values)
            try realm.write { try realm.add(managed) }
            @StateRealmObject var list = managed.values
            $list.move(fromOffsets: offsets, toOffset: destination)
            #expect(Array(managed.values) == want, "round \(round) (managed)")
            #expect(_list.error == nil)
            #expect(!realm.isInWriteTransaction)
        }
    }

    @Test func offsetsOutOfBoundsChangeNothingAndAreReported() throws {
        let holder = QuickWriteMoveModels.Holder()
        holder.values.append(objectsIn: [1, 2, 3])
        @StateRealmObject var list = holder.values
        $list.move(fromOffsets: [1, 3], toOffset: 0)
        #expect(_list.error?.code == .invalidArgument)
        $list.move(fromOffsets: [1], toOffset: 4)
        #expect(_list.error?.code == .invalidArgument)
        $list.remove(at: -1)
        #expect(_list.error?.code == .invalidArgument)
        $list.remove(atOffsets: [0, 9])
        #expect(Array(holder.values) == [1, 2, 3])
        $list.move(fromOffsets: [2], toOffset: 0)
        #expect(_list.error == nil)
        #expect(Array(holder.values) == [3, 1, 2])
    }
}

/// The model of `QuickWriteMoveTests`, stored under the name it had before it was namespaced.
enum QuickWriteMoveModels {
    final class Holder: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "MoveHolder" }
        @Persisted var values: List<Int>
    }
}
