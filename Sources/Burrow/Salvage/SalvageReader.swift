import BurrowStorage
import BurrowStore

/// Reads the trees of a damaged version as far as their pages are sound: a scan visits every
/// entry of the tree's sound pages (`PageWalk`) and skips the damaged ones, and a lookup that
/// meets a damaged page finds nothing. Every page a scan skipped is kept, by tree, so that the
/// salvage can say what it lost. Used by one thread.
final class SalvageReader: TreeReader {
    let snapshot: Snapshot
    private let reader: SnapshotReader
    /// The trees the catalog's sound pages name, by name.
    private let trees: [String: TreeState]
    /// The damaged pages the scans met, by tree name.
    private(set) var skipped: [String: [PageProblem]] = [:]
    /// The problems of reading the catalog: trees it names on damaged pages are unknown.
    let catalogProblems: [PageProblem]

    init(_ snapshot: Snapshot) {
        self.snapshot = snapshot
        reader = SnapshotReader(snapshot)
        let walk = PageWalk(snapshot, problemLimit: .max)
        var trees: [String: TreeState] = [:]
        for (name, state) in snapshot.soundTrees(walk) { trees[name] = state }
        self.trees = trees
        catalogProblems = walk.problems.filter(\.isUnreadable)
    }

    var fileName: String { snapshot.name }

    var rowFormat: UInt32 { reader.rowFormat }

    /// The names of the trees the catalog's sound pages name.
    var treeNames: [String] { trees.keys.sorted() }

    func withValue<R>(_ tree: TreeName, _ key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        guard trees[tree.string] != nil else { return nil }
        do {
            return try reader.withValue(tree, key, body)
        } catch {
            guard case .corruptPage = error else { throw error }
            return nil
        }
    }

    func scan(_ tree: TreeName, from start: [UInt8], _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) throws(StorageError) {
        let name = tree.string
        guard let state = trees[name] else { return }
        let walk = PageWalk(snapshot, problemLimit: .max)
        walk.walk(state, tree: name, owner: "tree \"\(name)\"") { key, value in
            key.lexicographicallyPrecedes(start) ? true : body(key, value)
        }
        let lost = walk.problems.filter(\.isUnreadable)
        if !lost.isEmpty { skipped[name, default: []] += lost }
    }

    func count(_ tree: TreeName) throws(StorageError) -> Int {
        Int(entries(ofTree: tree.string))
    }

    /// The number of entries the catalog records for the tree called `name` (0 if it names none).
    func entries(ofTree name: String) -> UInt64 {
        trees[name]?.count ?? 0
    }

    func position(_ tree: TreeName, of key: [UInt8]) throws(StorageError) -> Int {
        try reader.position(tree, of: key)
    }

    func entry<R>(_ tree: TreeName, at position: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        try reader.entry(tree, at: position, body)
    }
}
