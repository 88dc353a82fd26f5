import BurrowStorage
import BurrowStore
import Foundation

// `description` itself is declared in the class (Object.swift), where a model can override it:
// Swift cannot override a member declared in an extension.
extension ObjectBase: CustomStringConvertible {
    /// How many levels of linked objects `description` prints, as RealmSwift does; an object
    /// deeper than that reads `<Maximum depth exceeded>`.
    static let descriptionMaxDepth = 5

    /// The class and its property values, as RealmSwift prints objects, with linked objects
    /// nested (indented) up to `descriptionMaxDepth` levels:
    /// `Person { id = 123; name = Ali; dog = Dog { … }; dogs = List<Dog>; }`. Invalidated
    /// objects say so. What `description` is unless a model overrides it.
    final var propertiesDescription: String {
        if isInvalidated { return "[invalid object]" }
        return description(maxDepth: Self.descriptionMaxDepth)
    }

    func description(maxDepth depth: Int) -> String {
        guard depth > 0 else { return "<Maximum depth exceeded>" }
        let info = classInfo
        let properties = info.properties.map { property -> String in
            let value = self.value(forKey: property.name)
            switch value {
            case let object as ObjectBase:
                let nested = object.isInvalidated ? "[invalid object]" : object.description(maxDepth: depth - 1)
                return "\t\(property.name) = \(nested.replacingOccurrences(of: "\n", with: "\n\t"));"
            case let collection as any DepthDescribable:
                return "\t\(property.name) = \(collection.description(maxDepth: depth - 1).replacingOccurrences(of: "\n", with: "\n\t"));"
            case let value?: return "\t\(property.name) = \(value);"
            case nil: return "\t\(property.name) = nil;"
            }
        }
        return "\(info.name) {\n" + properties.joined(separator: "\n") + "\n}"
    }
}

extension ObjectBase: Equatable, Hashable {
    /// Two objects are equal if they are the same instance, or managed objects of the same
    /// row of the same realm version source.
    public static func == (a: ObjectBase, b: ObjectBase) -> Bool {
        if a === b { return true }
        guard let sa = a._state, let sb = b._state else { return false }
        guard sa.key == sb.key, sa.table.id == sb.table.id else { return false }
        switch (sa.source, sb.source) {
        case (.live(let x), .live(let y)): return x === y
        case (.frozen(let x), .frozen(let y)): return x.isSameVersion(as: y)
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        if let state = _state {
            hasher.combine(state.table.id)
            hasher.combine(state.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}
