import Foundation

extension ObjectBase: CustomStringConvertible {
    /// The class and its property values, as RealmSwift prints objects:
    /// `Person { id = 123; name = Ali; dogs = List<Dog>(…); }`. Invalidated objects say so.
    public var description: String {
        let info = ClassInfo.of(type(of: self))
        if isInvalidated { return "[invalid object]" }
        let properties = info.schema.properties.map { property -> String in
            let value = self.value(forKey: property.name)
            switch value {
            case let object as ObjectBase: return "\t\(property.name) = \(ClassInfo.of(type(of: object)).name) { … };"
            case let objects as any Collection where property.type == .linkingObjects:
                return "\t\(property.name) = LinkingObjects (\(objects.count) objects);"
            case is any _CollectionValue:
                return "\t\(property.name) = \(property.description.split(separator: ":").last!.trimmingCharacters(in: .whitespaces));"
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
