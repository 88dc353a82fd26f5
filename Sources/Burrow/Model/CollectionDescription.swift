import BurrowStore

/// A collection whose `description` nests in an object's, as RealmSwift's collections'
/// descriptions do, each level printing objects one level less deep.
protocol DepthDescribable {
    /// The description, with objects nested at most `depth` levels.
    func description(maxDepth depth: Int) -> String
}

/// RealmSwift's descriptions of collections (`RLMDescriptionWithMaxDepth`,
/// `RLMDictionaryDescriptionWithMaxDepth`): the kind, the element type, the instance's address,
/// then one element a line (at most 100, then how many were left out), objects printed as
/// their descriptions and indented:
///
///     List<Dog> <0x600000c0c0c0> (
///     	[0] Dog {
///     		name = Rex;
///     	}
///     )
///     Map<string, Dog> <0x600000c0c0c0> (
///     [rex]: Dog {
///     		name = Rex;
///     	}
///     )
enum CollectionDescription {
    /// How many elements a description lists, as RealmSwift's.
    static let maximumElements = 100

    /// The description of a list, set, results or linking objects named `kind` whose
    /// elements are `elements`.
    static func describe<S: Sequence>(_ kind: String, of elements: S, count: Int, instance: AnyObject?, depth: Int) -> String
    where S.Element: _Persistable {
        guard depth > 0 else { return "<Maximum depth exceeded>" }
        var text = "\(kind)<\(typeName(S.Element.self))> <\(address(of: instance))> (\n"
        var index = 0
        for element in elements.prefix(maximumElements) {
            text += "\t[\(index)] \(describe(element._stored, depth: depth).indented),\n"
            index += 1
        }
        if index > 0 { text.removeLast(2) }
        if count > maximumElements { text += "\n\t... \(count - maximumElements) objects skipped." }
        return text + "\n)"
    }

    /// The description of a map whose entries are `entries`, in key order.
    static func describe<Value: _Persistable>(map entries: [(key: String, value: Value)], instance: AnyObject, depth: Int) -> String {
        guard depth > 0 else { return "<Maximum depth exceeded>" }
        var text = "Map<string, \(typeName(Value.self))> <\(address(of: instance))> (\n"
        for entry in entries.prefix(maximumElements) {
            text += "[\(entry.key)]: \(describe(entry.value._stored, depth: depth))".indented + ",\n"
        }
        if !entries.isEmpty { text.removeLast(2) }
        if entries.count > maximumElements { text += "\n\t... \(entries.count - maximumElements) objects skipped." }
        return text + "\n)"
    }

    /// One element: an object's description one level less deep, nil as `<null>`, a value as
    /// Swift prints it.
    static func describe(_ value: _StoredValue, depth: Int) -> String {
        switch value {
        case .object(let object): return object.isInvalidated ? "[invalid object]" : object.description(maxDepth: depth - 1)
        case .null: return "<null>"
        default: return value.plainValue.map { "\($0)" } ?? "<null>"
        }
    }

    /// RealmSwift's name of an element type: the class name of objects, the property type's
    /// name of values (`int`, `string`, `mixed`, `object id`…).
    static func typeName<T: _Persistable>(_ type: T.Type) -> String {
        let shape = T._shape
        if let objectType = shape.objectType { return ClassInfo.storedName(of: objectType) }
        switch shape.type {
        case .any: return "mixed"
        case .objectId: return "object id"
        case .linkingObjects: return "linking objects"
        default: return shape.type.description
        }
    }

    /// The address of the object behind the collection (nil: none, as for unmanaged
    /// `LinkingObjects`), as RealmSwift prints its collection's.
    private static func address(of instance: AnyObject?) -> String {
        "0x" + String(instance.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0, radix: 16)
    }
}

extension String {
    /// The text with every line after the first indented one tab further, as a nested
    /// description is.
    fileprivate var indented: String { replacingOccurrences(of: "\n", with: "\n\t") }
}

extension List: DepthDescribable {}
extension MutableSet: DepthDescribable {}
extension Map: DepthDescribable {}
extension LinkingObjects: DepthDescribable {}
extension Results: DepthDescribable {}
