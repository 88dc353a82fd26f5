// Helpers for the model-based, snapshot, concurrent-read, write-lock and basics suites that need
// the engine's internals (`@testable import BurrowStorage`), so they cannot live in
// BurrowTestSupport. Every top-level name starts with `modelTest` so it cannot collide with other
// test helpers.

import BurrowTestSupport
import Foundation

@testable import BurrowStorage
@testable import StorageCrashWorker

/// Runs `body` in a write transaction of `storage` and commits it; returns the version.
@discardableResult
func modelTestCommit(
    _ storage: Storage, durability: Durability = .normal, _ body: (WriteTransaction) throws -> Void
) throws -> UInt64 {
    let txn = try storage.beginWriteBlocking()
    try body(txn)
    return try txn.commit(durability: durability)
}

/// Unsigned byte order, shorter prefix first: the engine's key order.
@inline(__always)
func modelTestKeyLess(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

/// Tree names in the engine's order (UTF-8 bytes).
func modelTestSortedNames<S: Sequence<String>>(_ names: S) -> [String] {
    names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
}

/// Reads every entry of a snapshot tree in key order.
func modelTestScan(_ tree: Tree) throws -> [(key: [UInt8], value: [UInt8])] {
    var cursor = tree.makeCursor()
    var entries: [(key: [UInt8], value: [UInt8])] = []
    var more = try cursor.first()
    while more {
        entries.append((Array(cursor.key), Array(try cursor.value())))
        more = try cursor.next()
    }
    return entries
}

/// Every tree of a snapshot, as dictionaries.
func modelTestContents(_ snapshot: Snapshot) throws -> [String: [[UInt8]: [UInt8]]] {
    var result: [String: [[UInt8]: [UInt8]]] = [:]
    for name in try snapshot.treeNames() {
        guard let tree = try snapshot.tree(named: name) else { continue }
        var entries: [[UInt8]: [UInt8]] = [:]
        for (key, value) in try modelTestScan(tree) { entries[key] = value }
        result[name] = entries
    }
    return result
}
