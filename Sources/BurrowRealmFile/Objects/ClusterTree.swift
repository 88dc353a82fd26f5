/// The cluster tree of a table's objects: leaves (clusters) holding up to 256 objects each,
/// column by column, under inner nodes that route by object key.
///
/// A leaf is a has-refs array: slot 0, the objects' keys relative to the leaf (a tagged count n
/// for keys 0 to n − 1, or a ref to an array of unsigned keys), then one ref per leaf index to
/// that column's leaf of values. An inner node: slot 0, 0 or a ref to its children's key
/// offsets; slot 1, its depth (tagged; 1 above leaves); slot 2, the objects below (tagged); then
/// the children. Without offsets, child i starts at `i << (depth × shift)`, where the shift is 8
/// in every build of realm-core an app uses (256 objects a leaf) and 2 in realm-core's test
/// builds of 4 objects a node. A key is the sum of the offsets on its path, wrapping, read as a
/// signed number: tombstones' keys are negative.
struct ClusterTree {
    /// One leaf: its node, and its objects' keys.
    struct Leaf {
        let node: Node
        let keys: [Int64]

        /// Column `leafIndex`'s leaf of values, nil if the column was never given one here.
        func columnLeaf(_ leafIndex: Int, in image: FileImage) throws(RealmFileError) -> Node? {
            guard 1 + leafIndex < node.count, let ref = try node.ref(1 + leafIndex, in: image) else { return nil }
            return try Node(image, at: ref)
        }
    }

    let leaves: [Leaf]

    /// The tree whose root is at `root`, its leaves in key order.
    init(_ image: FileImage, root: Int) throws(RealmFileError) {
        var inner: [Node] = []
        var largest = 0
        var pending: [(node: Node, offset: UInt64)] = [(try Node(image, at: root), 0)]
        var seen: Set<Int> = [root]
        // First every node, to learn the shift compact inner nodes route by.
        while let (node, _) = pending.popLast() {
            guard node.hasRefs, node.count >= 1 else { throw .damaged("a cluster is not an array of references", at: node.ref) }
            if node.isInnerBPlusTreeNode {
                guard node.count >= 4 else { throw .damaged("an inner cluster has no children", at: node.ref) }
                inner.append(node)
                largest = max(largest, node.count - 3)
                for child in 3..<node.count {
                    guard let ref = try node.ref(child, in: image) else { throw .damaged("an inner cluster lacks a child", at: node.ref) }
                    // realm-core never shares a node: one reached twice is a loop or damage.
                    guard seen.insert(ref).inserted else { throw .damaged("a cluster tree reaches one node twice", at: node.ref) }
                    pending.append((try Node(image, at: ref), 0))
                }
            } else {
                largest = max(largest, try Self.keys(of: node, in: image).count)
            }
        }
        let shift: UInt64 = !inner.isEmpty && largest <= 4 ? 2 : 8
        // Then the leaves in key order, each with the offsets of its path.
        var leaves: [Leaf] = []
        pending = [(try Node(image, at: root), 0)]
        while let (node, offset) = pending.popLast() {
            guard node.isInnerBPlusTreeNode else {
                leaves.append(Leaf(node: node, keys: try Self.keys(of: node, in: image).map { Int64(bitPattern: offset &+ $0) }))
                continue
            }
            let depth = try node.tagged(1, in: image)
            guard depth >= 1, depth < 32 else { throw .damaged("an inner cluster's depth is \(depth)", at: node.ref) }
            let offsets = try node.ref(0, in: image).map { (ref) throws(RealmFileError) in try Node(image, at: ref) }
            var children: [(Node, UInt64)] = []
            for child in 0..<(node.count - 3) {
                guard let ref = try node.ref(3 + child, in: image) else { throw .damaged("an inner cluster lacks a child", at: node.ref) }
                let childOffset: UInt64
                if let offsets {
                    guard child < offsets.count, offsets.scheme == .bits else {
                        throw .damaged("an inner cluster lacks a child's offset", at: node.ref)
                    }
                    childOffset = offsets.unsigned(child, in: image)
                } else {
                    childOffset = UInt64(child) << (UInt64(depth) * shift)
                }
                children.append((try Node(image, at: ref), offset &+ childOffset))
            }
            pending += children.reversed()
        }
        self.leaves = leaves
    }

    /// The keys of the objects of the leaf `node`, relative to it.
    static func keys(of node: Node, in image: FileImage) throws(RealmFileError) -> [UInt64] {
        switch try node.refOrTagged(0, in: image) {
        case .none: return []
        case .tagged(let count):
            guard count >= 0, count <= 0xFF_FFFF else { throw .damaged("a cluster holds \(count) objects", at: node.ref) }
            return (0..<UInt64(count)).map { $0 }
        case .ref(let ref):
            let keys = try Node(image, at: ref)
            guard keys.scheme == .bits else { throw .damaged("a cluster's keys are not numbers", at: ref) }
            return (0..<keys.count).map { keys.unsigned($0, in: image) }
        }
    }
}
