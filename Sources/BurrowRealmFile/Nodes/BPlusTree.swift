/// realm-core's B+trees (lists, sets, the values of a column's leaves): the leaves of the tree
/// whose root is at a ref, in order.
///
/// A root without the inner-node flag is the only leaf. An inner node's elements are: first the
/// layout of its children's sizes (a tagged count per child, or a ref to an array of running
/// totals), then one ref per child, then the tagged total of elements below it. The leaves are
/// found with a stack, never by recursion, and a tree that reaches a node twice, or runs deeper
/// than any real tree, is damaged (a cycle of refs would otherwise never end, and shared nodes
/// would multiply what is read).
enum BPlusTree {
    /// The deepest tree a real file holds: 1,000 elements a node give 1,000⁸ elements at depth 8.
    static let maximumDepth = 32

    /// The leaves under `root`, left to right.
    static func leaves(_ image: FileImage, root: Int) throws(RealmFileError) -> [Node] {
        let top = try Node(image, at: root)
        guard top.isInnerBPlusTreeNode else { return [top] }
        var leaves: [Node] = []
        var seen: Set<Int> = [root]
        // Each entry: an inner node and the index of its next child to visit.
        var stack: [(node: Node, next: Int)] = [(top, 0)]
        while let (node, next) = stack.last {
            guard node.hasRefs, node.count >= 2 else { throw .damaged("an inner node of a B+tree has no children", at: node.ref) }
            let children = node.count - 2
            if next == children {
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next = next + 1
            guard let childRef = try node.ref(1 + next, in: image) else { throw .damaged("a B+tree node lacks a child", at: node.ref) }
            // realm-core never shares a node: one reached twice is a loop or damage, and
            // reading it again would repeat its elements without end.
            guard seen.insert(childRef).inserted else { throw .damaged("a B+tree reaches one node twice", at: node.ref) }
            let child = try Node(image, at: childRef)
            if child.isInnerBPlusTreeNode {
                guard stack.count < maximumDepth else { throw .damaged("a B+tree is deeper than any real one", at: childRef) }
                stack.append((child, 0))
            } else {
                leaves.append(child)
            }
        }
        return leaves
    }
}
