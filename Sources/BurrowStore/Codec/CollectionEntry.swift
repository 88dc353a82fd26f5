import BurrowStorage

/// The parts of a stored collection entry, and the checks every read of one makes (the object
/// verifier makes them too, through the same functions). They compare lengths only: what a
/// decoder needs to slice the entry and to decode its element as the value it was written as.
package enum CollectionEntry {
    /// The element of the entry (`key`, `value`) of a collection of `property`, with its map
    /// key bytes if it is a map's, or what is wrong with the entry.
    @inline(__always)
    package static func parts(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, of property: StoredProperty
    ) -> Result<(mapKey: UnsafeRawBufferPointer?, element: UnsafeRawBufferPointer), Problem> {
        var mapKey: UnsafeRawBufferPointer?
        var element = value
        switch property.collection {
        case .single: break
        case .list:
            guard key.count == 16 else {
                return .failure(Problem("a list entry's key is \(counted(key.count, "byte")); it takes 16 (owner and position)"))
            }
        case .set: break
        case .map:
            guard let split = mapParts(value) else { return .failure(mapTooShort(value)) }
            mapKey = split.key
            element = split.element
        }
        if let problem = elementProblem(element, of: property) { return .failure(problem) }
        return .success((mapKey, element))
    }

    /// The element of `value`, the stored value of an entry of a map of `property` found by
    /// its key, or what is wrong with it.
    @inline(__always)
    package static func mapElement(_ value: UnsafeRawBufferPointer, of property: StoredProperty) -> Result<UnsafeRawBufferPointer, Problem> {
        guard let split = mapParts(value) else { return .failure(mapTooShort(value)) }
        if let problem = elementProblem(split.element, of: property) { return .failure(problem) }
        return .success(split.element)
    }

    private static func mapTooShort(_ value: UnsafeRawBufferPointer) -> Problem {
        Problem("a map entry of \(counted(value.count, "byte")) is too short for the map key it says it holds")
    }

    /// The map key bytes and the element of a map entry's stored value (a 4-byte key length,
    /// the key, the element), or nil if it is too short for the key length it says.
    @inline(__always)
    package static func mapParts(_ value: UnsafeRawBufferPointer) -> (key: UnsafeRawBufferPointer, element: UnsafeRawBufferPointer)? {
        guard value.count >= 4 else { return nil }
        let length = Int(ValueCodec.u32(value, 0))
        guard length <= value.count - 4 else { return nil }
        return (UnsafeRawBufferPointer(rebasing: value[4..<4 + length]), UnsafeRawBufferPointer(rebasing: value[(4 + length)...]))
    }

    /// What is wrong with `element` as an element of a collection of `property`: a nil where
    /// the collection holds none, or a length the element's type does not have.
    @inline(__always)
    package static func elementProblem(_ element: UnsafeRawBufferPointer, of property: StoredProperty) -> Problem? {
        if element.isEmpty {
            guard property.isOptional, property.type != .any else {
                return Problem("holds a nil element, which \(property.summary) cannot hold")
            }
            return nil
        }
        return ValueCodec.lengthProblem(element, as: property.type).map { Problem("has an element that \($0)") }
    }

    /// What is wrong with an entry, in words that follow "it".
    package struct Problem: Error {
        package let detail: String
        package init(_ detail: String) { self.detail = detail }
    }
}
