import BurrowStorage

/// The byte form of a list or dictionary inside an `AnyRealmValue`:
///
/// - a list: the `list` tag, a UInt32 element count, then each element as a UInt32 length and
///   the element's `AnyRealmValue` payload (tag and all);
/// - a dictionary: the `dictionary` tag, a UInt32 entry count, then each entry as a UInt32 key
///   length, the key's UTF-8 bytes, a UInt32 length and the value's `AnyRealmValue` payload.
///   Keys are unique and in the order of their UTF-8 bytes.
///
/// Every walk over one is a loop over an explicit stack (`NestedValues`), never recursion.
extension ValueCodec {
    /// Appends the payload of `value`, a list or dictionary (nested up to
    /// `NestedValues.maximumDepth`, which the realm checks before it encodes).
    @usableFromInline
    package static func appendNested<Link: StoredLink>(_ value: StoredValue<Link>, to bytes: inout [UInt8]) {
        let payload = NestedValues.fold(
            value, shape: \.nestedShape,
            leaf: { (leaf: StoredValue<Link>) -> [UInt8] in
                var element: [UInt8] = []
                appendAny(leaf, to: &element)
                return element
            },
            list: { (elements: [[UInt8]]) -> [UInt8] in
                var list: [UInt8] = [Tag.list.rawValue]
                appendLE(UInt32(elements.count), to: &list)
                for element in elements { appendLengthPrefixed(element, count: element.count, to: &list) }
                return list
            },
            dictionary: { (entries: [(key: String, value: [UInt8])]) -> [UInt8] in
                var dictionary: [UInt8] = [Tag.dictionary.rawValue]
                appendLE(UInt32(entries.count), to: &dictionary)
                for entry in entries {
                    appendLengthPrefixed(entry.key.utf8, count: entry.key.utf8.count, to: &dictionary)
                    appendLengthPrefixed(entry.value, count: entry.value.count, to: &dictionary)
                }
                return dictionary
            })
        bytes.append(contentsOf: payload)
    }

    /// The children of `payload`, an `AnyRealmValue` payload: `.leaf` for one that holds no
    /// collection, the elements (or keys and values) of a list or dictionary, or nil for a
    /// list or dictionary whose lengths do not fit its bytes (or a key that is not UTF-8).
    package static func nestedParts(_ payload: UnsafeRawBufferPointer) -> NestedValues.Shape<UnsafeRawBufferPointer>? {
        guard let first = payload.first, let tag = Tag(rawValue: first), tag.isCollection else { return .leaf }
        guard payload.count >= 5 else { return nil }
        let count = Int(u32(payload, 1))
        var offset = 5
        /// The next length-prefixed part, or nil if it runs past the end.
        func part() -> UnsafeRawBufferPointer? {
            guard payload.count - offset >= 4 else { return nil }
            let length = Int(u32(payload, offset))
            guard length <= payload.count - offset - 4 else { return nil }
            defer { offset += 4 + length }
            return UnsafeRawBufferPointer(rebasing: payload[(offset + 4)..<(offset + 4 + length)])
        }
        // Each element takes at least 5 bytes (a length and a tag): a count beyond that is damage.
        guard count <= (payload.count - 5) / 5 else { return nil }
        var elements: [UnsafeRawBufferPointer] = []
        var keys: [String] = []
        elements.reserveCapacity(count)
        for _ in 0..<count {
            if tag == .dictionary {
                guard let bytes = part(), let key = String(validating: bytes, as: UTF8.self) else { return nil }
                keys.append(key)
            }
            guard let element = part() else { return nil }
            elements.append(element)
        }
        guard offset == payload.count else { return nil }
        if tag == .list { return .list(elements) }
        return .dictionary(zip(keys, elements).map { (key: $0, value: $1) })
    }

    /// The list or dictionary whose payload is `payload`. Lenient as `decode` is: a part whose
    /// lengths do not fit, or one nested deeper than `NestedValues.maximumDepth`, reads as null.
    @usableFromInline
    package static func decodeNested<Link>(_ payload: UnsafeRawBufferPointer, resolve: LinkResolver<Link>) -> StoredValue<Link> {
        typealias Node = (bytes: UnsafeRawBufferPointer, depth: Int)
        return NestedValues.fold(
            (payload, 0) as Node,
            shape: { (node: Node) -> NestedValues.Shape<Node> in
                guard node.depth < NestedValues.maximumDepth, let parts = nestedParts(node.bytes) else { return .leaf }
                switch parts {
                case .leaf: return .leaf
                case .list(let elements): return .list(elements.map { ($0, node.depth + 1) })
                case .dictionary(let entries): return .dictionary(entries.map { (key: $0.key, value: ($0.value, node.depth + 1)) })
                }
            },
            leaf: { (node: Node) -> StoredValue<Link> in
                // A collection reaching here is damaged or too deep.
                if let first = node.bytes.first, Tag(rawValue: first)?.isCollection == true { return .null }
                return decode(node.bytes, as: .any, linkTarget: 0, resolve: resolve)
            },
            list: { .list($0) },
            dictionary: { .dictionary(Dictionary($0.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })) })
    }

    /// What is wrong with `payload`, a list's or dictionary's payload, or nil if it is sound:
    /// lengths that do not fit, a dictionary's keys repeated or out of order, an element that
    /// is not an `AnyRealmValue` payload, nesting deeper than `NestedValues.maximumDepth`.
    @usableFromInline
    package static func nestedProblem(_ payload: UnsafeRawBufferPointer) -> String? {
        var stack: [(bytes: UnsafeRawBufferPointer, depth: Int)] = [(payload, 0)]
        while let node = stack.popLast() {
            guard let first = node.bytes.first, let tag = Tag(rawValue: first), tag.isCollection else {
                if let problem = lengthProblem(node.bytes, as: .any) { return "holds a nested value that \(problem)" }
                continue
            }
            guard node.depth < NestedValues.maximumDepth else {
                return "holds collections nested deeper than \(NestedValues.maximumDepth) levels"
            }
            switch nestedParts(node.bytes) {
            case nil, .leaf?:
                return tag == .list
                    ? "holds a list whose lengths do not fit its \(counted(node.bytes.count, "byte"))"
                    : "holds a dictionary whose lengths do not fit its \(counted(node.bytes.count, "byte")), or whose keys are not UTF-8"
            case .list(let elements)?:
                for element in elements { stack.append((element, node.depth + 1)) }
            case .dictionary(let entries)?:
                for (previous, entry) in zip(entries, entries.dropFirst()) where !NestedValues.keyPrecedes(previous.key, entry.key) {
                    return "holds a dictionary whose keys '\(previous.key)' and '\(entry.key)' are repeated or out of order"
                }
                for entry in entries { stack.append((entry.value, node.depth + 1)) }
            }
        }
        return nil
    }

    /// Calls `body` with the target (class id and object key) of every link in `payload`, an
    /// `AnyRealmValue` payload: its own link, or every link its lists and dictionaries hold.
    /// Parts whose lengths do not fit are skipped.
    package static func forEachLink(inAny payload: UnsafeRawBufferPointer, _ body: (UInt32, ObjectKey) -> Void) {
        NestedValues.forEachLeaf(of: payload, shape: { nestedParts($0) ?? .leaf }) { leaf in
            if let link = linkKey(leaf, as: .any), let table = link.table { body(table, link.key) }
        }
    }
}
