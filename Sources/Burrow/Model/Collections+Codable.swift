import BurrowStore

/// `Codable` for the collection property types, so that models holding them can be `Codable`
/// (see `Persisted+Codable.swift`): `List` and `MutableSet` as arrays, `Map` as a dictionary
/// keyed by its keys. Decoding makes an unmanaged collection. `LinkingObjects` and `Results`
/// encode as arrays of their objects; a `LinkingObjects` decodes as empty, whatever the input
/// says, since it is computed from the links that point at its object. The frozen collections
/// encode as their live ones do.

extension List: Decodable where Element: Decodable {
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        append(objectsIn: try [Element](from: decoder))
    }
}

extension List: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

extension MutableSet: Decodable where Element: Decodable {
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        insert(objectsIn: try [Element](from: decoder))
    }
}

extension MutableSet: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

/// A key of a map, as a coding key.
private struct MapCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Map: Decodable where Value: Decodable {
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: MapCodingKey.self)
        for key in container.allKeys {
            updateValue(try container.decode(Value.self, forKey: key), forKey: Key(_mapKey: key.stringValue))
        }
    }
}

extension Map: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try encodeEntries(asKeyValueSequence(), to: encoder)
    }
}

/// Encodes a map's entries as a keyed container.
private func encodeEntries<Key: _MapKey, Value: Encodable>(_ entries: some Sequence<(key: Key, value: Value)>, to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: MapCodingKey.self)
    for (key, value) in entries {
        try container.encode(value, forKey: MapCodingKey(stringValue: key._mapKey))
    }
}

extension LinkingObjects: Decodable where Element: Decodable {
    /// An empty, unmanaged `LinkingObjects`: the input's value is not read, since linking
    /// objects are computed from the links that point at their object.
    public init(from decoder: any Decoder) throws {
        self.init(fromType: Element.self, property: "")
    }
}

extension LinkingObjects: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

extension Results: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

extension Frozen: Encodable where T: Encodable {
    /// Encodes the frozen object with its class's `encode(to:)`. The synthesized one throws for
    /// managed objects, frozen ones included (see `Persisted+Codable.swift`); one written by
    /// hand, reading the properties through `self`, works from any thread.
    public func encode(to encoder: any Encoder) throws {
        try object.encode(to: encoder)
    }
}

extension FrozenResults: Encodable where T: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

extension FrozenList: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

extension FrozenMutableSet: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

extension FrozenMap: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try encodeEntries(asKeyValueSequence(), to: encoder)
    }
}

extension FrozenLinkingObjects: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}
