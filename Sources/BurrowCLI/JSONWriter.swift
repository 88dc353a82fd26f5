import BurrowStore

/// A value the tool writes as JSON: a scalar already in JSON text, or an array or object
/// whose members are produced one at a time. `JSONWriter` walks containers with a stack of
/// its own, so an object graph nested to any depth (a chain of embedded objects) is written
/// without deep recursion.
enum ValueNode {
    /// JSON text of a scalar: `null`, `true`, a number.
    case scalar(String)
    /// A string, quoted when written as JSON.
    case text(String)
    /// A link to an object of a class without a primary key, by object key: `{"$key": N}`
    /// in JSON, `#N` in a table cell.
    case key(UInt64)
    case array(AnyIterator<ValueNode>)
    case object(AnyIterator<(String, ValueNode)>)

    static var null: ValueNode { .scalar("null") }

    static func string(_ text: String) -> ValueNode { .text(text) }

    /// An object of the members `members`, in order.
    static func members(_ members: [(String, ValueNode)]) -> ValueNode { .object(AnyIterator(members.makeIterator())) }

    /// An array of `elements`, in order.
    static func elements(_ elements: [ValueNode]) -> ValueNode { .array(AnyIterator(elements.makeIterator())) }
}

/// Writes `ValueNode`s as JSON text. Compact: no spaces, the whole value on one line.
struct JSONWriter {
    /// One open container: its members still to write, and whether one was written.
    private enum Frame {
        case array(AnyIterator<ValueNode>, first: Bool)
        case object(AnyIterator<(String, ValueNode)>, first: Bool)
    }

    /// `node` as compact JSON text.
    static func text(of node: ValueNode) -> String {
        var out = ""
        write(node, to: &out)
        return out
    }

    /// Appends `node` as compact JSON text to `out`, with a stack of open containers rather
    /// than recursion.
    static func write(_ node: ValueNode, to out: inout String) {
        var stack: [Frame] = []
        var next: ValueNode? = node
        while true {
            if let node = next {
                next = nil
                switch node {
                case .scalar(let text): out += text
                case .text(let text): out += JSONValue.quoted(text)
                case .key(let key): out += "{\"$key\":\(key)}"
                case .array(let iterator):
                    out += "["
                    stack.append(.array(iterator, first: true))
                case .object(let iterator):
                    out += "{"
                    stack.append(.object(iterator, first: true))
                }
            }
            guard let top = stack.popLast() else { return }
            switch top {
            case .array(let iterator, let first):
                if let element = iterator.next() {
                    if !first { out += "," }
                    stack.append(.array(iterator, first: false))
                    next = element
                } else {
                    out += "]"
                }
            case .object(let iterator, let first):
                if let (name, member) = iterator.next() {
                    if !first { out += "," }
                    out += JSONValue.quoted(name) + ":"
                    stack.append(.object(iterator, first: false))
                    next = member
                } else {
                    out += "}"
                }
            }
        }
    }
}
