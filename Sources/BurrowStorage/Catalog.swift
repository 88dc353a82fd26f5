/// The catalog: tree names (UTF-8) to their `TreeState`. While it is small it lives inside the
/// meta page (`InlineCatalog`), so that a commit that changes trees rewrites no catalog page; a
/// catalog that outgrows the room the meta page keeps for it becomes a tree whose values are
/// the 16-byte encoded `TreeState`s. A catalog tree whose last entry goes becomes inline again
/// (its root is then 0).
enum Catalog {
    /// The state of the tree called `name` in the catalog `catalog` (a tree if its root is not
    /// 0, else `inline`), or nil.
    static func lookup<S: PageSource>(
        _ source: S, _ catalog: TreeState, inline: InlineCatalog, name: String
    ) throws(StorageError) -> TreeState? {
        try withUTF8Bytes(name) { key throws(StorageError) -> TreeState? in
            if catalog.root == 0 { return inline.state(named: key) }
            guard let (page, index) = try BTree.find(source, root: catalog.root, key: key) else { return nil }
            return try decode(source, page: page, index: index)
        }
    }

    static func decode<S: PageSource>(_ source: S, page: UnsafeRawPointer, index: Int) throws(StorageError) -> TreeState {
        let value = try BTree.value(source, leaf: page, index: index)
        guard value.count == TreeState.encodedSize else {
            throw .corruptPage(
                path: source.name, page: 0, detail: "holds a catalog entry of \(counted(value.count, "byte")) instead of \(TreeState.encodedSize)")
        }
        return TreeState.decode(value.baseAddress!)
    }

    /// Every tree name, in byte order.
    static func names<S: PageSource>(_ source: S, _ catalog: TreeState, inline: InlineCatalog) throws(StorageError) -> [String] {
        if catalog.root == 0 { return inline.entries.map { String(decoding: $0.name, as: UTF8.self) } }
        var cursor = Cursor(source: source, root: catalog.root)
        var names: [String] = []
        var more = try cursor.first()
        while more {
            names.append(String(decoding: cursor.key, as: UTF8.self))
            more = try cursor.next()
        }
        return names
    }
}

/// A catalog kept in the meta page: its entries in byte order of their names. Each is encoded
/// as the name's length (2 bytes), the name, the tree's root (4) and its entry count (8).
package struct InlineCatalog: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var name: [UInt8]
        var state: TreeState
    }

    private(set) var entries: [Entry]

    static let empty = InlineCatalog(entries: [])
    static let entryHeader = 14

    /// The bytes the catalog takes in the meta page.
    var encodedSize: Int { entries.reduce(0) { $0 + Self.entryHeader + $1.name.count } }

    func state(named key: UnsafeRawBufferPointer) -> TreeState? {
        let (index, found) = position(of: key)
        return found ? entries[index].state : nil
    }

    /// Sets the state of the tree `name`, adding it if it is not there.
    mutating func set(_ name: UnsafeRawBufferPointer, _ state: TreeState) {
        let (index, found) = position(of: name)
        if found { entries[index].state = state } else { entries.insert(Entry(name: Array(name), state: state), at: index) }
    }

    mutating func remove(_ name: UnsafeRawBufferPointer) {
        let (index, found) = position(of: name)
        if found { entries.remove(at: index) }
    }

    /// Where `key` is, or would go, by binary search.
    private func position(of key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            let order = entries[mid].name.withUnsafeBytes { compareKeys($0, key) }
            if order == 0 { return (mid, true) }
            if order < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    func encode(into p: UnsafeMutableRawPointer) {
        var at = 0
        for entry in entries {
            p.setU16(at, UInt16(entry.name.count))
            entry.name.withUnsafeBytes { (p + at + 2).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            at += 2 + entry.name.count
            p.setU32(at, entry.state.root)
            p.setU64(at + 4, entry.state.count)
            at += 12
        }
    }

    /// Reads `count` entries from `bytes`; nil unless they fill it exactly, with names of 1 to
    /// `maxKeySize` bytes in strictly increasing order and roots inside `pageCount` (0 for an
    /// empty tree, which counts no entries).
    static func decode(_ bytes: UnsafeRawBufferPointer, count: Int, maxKeySize: Int, pageCount: PageNumber) -> InlineCatalog? {
        if count == 0 { return bytes.isEmpty ? .empty : nil }
        guard let p = bytes.baseAddress else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var at = 0
        for _ in 0..<count {
            guard at + 2 <= bytes.count else { return nil }
            let length = Int(p.u16(at))
            guard length >= 1, length <= maxKeySize, at + 2 + length + 12 <= bytes.count else { return nil }
            let name = Array(UnsafeRawBufferPointer(start: p + at + 2, count: length))
            at += 2 + length
            let state = TreeState(root: p.u32(at), count: p.u64(at + 4))
            at += 12
            guard state.root < pageCount, state.root != 1, state.root != 0 || state.count == 0 else { return nil }
            if let last = entries.last {
                guard last.name.withUnsafeBytes({ a in name.withUnsafeBytes { b in compareKeys(a, b) < 0 } }) else { return nil }
            }
            entries.append(Entry(name: name, state: state))
        }
        guard at == bytes.count else { return nil }
        return InlineCatalog(entries: entries)
    }
}
