/// Lists and dictionaries inside an `AnyRealmValue`, which may nest in each other: how deep they
/// may go, and how every layer walks them without recursion, so that the stack stays the same
/// however deep a value nests.
@usableFromInline
package enum NestedValues {
    /// The deepest a collection inside an `AnyRealmValue` may nest: a list in a property's
    /// value is at depth 1, a list inside that list at 2. realm-core allows the same depth, so
    /// every value a `.realm` file holds fits. A deeper value is refused when it is stored, and
    /// a stored one deeper than this is damage.
    @usableFromInline package static let maximumDepth = 100

    /// What a node of a nested value is: a value holding no collection, or a list or
    /// dictionary of child nodes (a dictionary's in the order its keys are to be kept).
    @usableFromInline
    package enum Shape<Child> {
        case leaf
        case list([Child])
        case dictionary([(key: String, value: Child)])
    }

    /// Builds a result for `root` bottom-up, without recursion: each leaf's result from `leaf`,
    /// each list's or dictionary's from its children's results. `shape` tells what a node is.
    @inlinable
    package static func fold<Node, Result, E: Error>(
        _ root: Node,
        shape: (Node) throws(E) -> Shape<Node>,
        leaf: (Node) throws(E) -> Result,
        list: ([Result]) throws(E) -> Result,
        dictionary: ([(key: String, value: Result)]) throws(E) -> Result
    ) throws(E) -> Result {
        var stack: [FoldFrame<Node, Result>] = []
        var finished: Result
        switch try shape(root) {
        case .leaf: return try leaf(root)
        case .list(let children): stack.append(FoldFrame(keys: nil, children: children))
        case .dictionary(let entries): stack.append(FoldFrame(keys: entries.map(\.key), children: entries.map(\.value)))
        }
        while true {
            let top = stack.count - 1
            if stack[top].next < stack[top].children.count {
                let child = stack[top].children[stack[top].next]
                stack[top].next += 1
                switch try shape(child) {
                case .leaf: stack[top].results.append(try leaf(child))
                case .list(let children): stack.append(FoldFrame(keys: nil, children: children))
                case .dictionary(let entries): stack.append(FoldFrame(keys: entries.map(\.key), children: entries.map(\.value)))
                }
                continue
            }
            let frame = stack.removeLast()
            if let keys = frame.keys {
                finished = try dictionary(Array(zip(keys, frame.results).map { (key: $0, value: $1) }))
            } else {
                finished = try list(frame.results)
            }
            guard !stack.isEmpty else { return finished }
            stack[stack.count - 1].results.append(finished)
        }
    }

    /// How deep the collections in `root` nest: 0 for a value holding none, 1 for a list or
    /// dictionary of plain values, and so on. Stops counting once past `limit`.
    @inlinable
    package static func depth<Node, E: Error>(of root: Node, exceeding limit: Int, shape: (Node) throws(E) -> Shape<Node>) throws(E) -> Int {
        var deepest = 0
        var stack: [(node: Node, depth: Int)] = [(root, 0)]
        while let (node, depth) = stack.popLast() {
            switch try shape(node) {
            case .leaf: continue
            case .list(let children):
                deepest = max(deepest, depth + 1)
                if deepest > limit { return deepest }
                for child in children { stack.append((child, depth + 1)) }
            case .dictionary(let entries):
                deepest = max(deepest, depth + 1)
                if deepest > limit { return deepest }
                for entry in entries { stack.append((entry.value, depth + 1)) }
            }
        }
        return deepest
    }

    /// Calls `body` with every node of `root` that holds no collection (a scalar, a link or
    /// nil), in no particular order, without recursion.
    @inlinable
    package static func forEachLeaf<Node, E: Error>(of root: Node, shape: (Node) throws(E) -> Shape<Node>, _ body: (Node) throws(E) -> Void)
        throws(E)
    {
        var stack = [root]
        while let node = stack.popLast() {
            switch try shape(node) {
            case .leaf: try body(node)
            case .list(let children): stack.append(contentsOf: children)
            case .dictionary(let entries): stack.append(contentsOf: entries.map(\.value))
            }
        }
    }

    /// Orders dictionary keys as a nested dictionary keeps them: by their UTF-8 bytes, as a
    /// `Map`'s keys are ordered.
    @inlinable
    package static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

/// One list or dictionary `NestedValues.fold` is building: its children, how many it has
/// visited, and their results so far.
@usableFromInline
package struct FoldFrame<Node, Result> {
    @usableFromInline let keys: [String]?
    @usableFromInline let children: [Node]
    @usableFromInline var next = 0
    @usableFromInline var results: [Result] = []

    @inlinable init(keys: [String]?, children: [Node]) {
        self.keys = keys
        self.children = children
        results.reserveCapacity(children.count)
    }
}

extension StoredValue {
    /// What this value is as a node of a nested value.
    @inlinable
    package var nestedShape: NestedValues.Shape<StoredValue> {
        switch self {
        case .list(let elements): .list(elements)
        case .dictionary(let entries): .dictionary(entries.sorted { NestedValues.keyPrecedes($0.key, $1.key) }.map { (key: $0.key, value: $0.value) })
        default: .leaf
        }
    }

    /// How deep the collections in this value nest (see `NestedValues.depth`).
    @inlinable
    package func nestingDepth(exceeding limit: Int) -> Int {
        NestedValues.depth(of: self, exceeding: limit) { $0.nestedShape }
    }

    /// Whether this is a list or a dictionary.
    @inlinable
    package var isNestedCollection: Bool {
        switch self {
        case .list, .dictionary: true
        default: false
        }
    }
}
