import BurrowStore

/// `Codable` models, as in RealmSwift: a class declared `class Dog: Object, Codable` gets a
/// synthesized `init(from:)` and `encode(to:)` over its `@Persisted` properties.
///
/// - Decoding makes an unmanaged object; add it to a realm as any other. A key missing from the
///   input (or null) leaves the property at its type's default value (0, "", nil, an empty
///   collection), not at the default written in its declaration, which decoding replaces.
/// - Encoding works on unmanaged objects. A managed property cannot reach its object from
///   `encode(to:)`, so encoding a managed or frozen object throws `EncodingError.invalidValue`:
///   write `encode(to:)` yourself, reading the properties through `self`, to encode those.
extension Persisted: Decodable where Value: Decodable {
    /// Decodes the property's value; the property is unmanaged, as on a new object.
    public init(from decoder: any Decoder) throws {
        // Through a container, so that the decoder's strategies (dates, data) apply.
        self.init(storage: .unmanaged(try decoder.singleValueContainer().decode(Value.self)), primaryKey: false, indexed: false)
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the value of an unmanaged property; throws `EncodingError.invalidValue` for a
    /// managed one (see the extension's note).
    public func encode(to encoder: any Encoder) throws {
        guard managedProperty < 0 else {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription:
                        "Only unmanaged objects can be encoded by the synthesized encode(to:): a managed @Persisted property cannot reach its object. Define encode(to:) on the model class, reading the properties through self, to encode managed and frozen objects."
                ))
        }
        var copy = self
        // Through a container, so that the encoder's strategies (dates, data) apply.
        var container = encoder.singleValueContainer()
        try container.encode(copy.unmanagedValue())
    }
}

extension KeyedDecodingContainer {
    /// Decodes a `@Persisted` property, or gives it its type's default value when the key is
    /// missing or null: what a synthesized `init(from:)` calls for each `@Persisted` property.
    public func decode<Value: Decodable>(_ type: Persisted<Value>.Type, forKey key: Key) throws -> Persisted<Value> {
        try decodeIfPresent(type, forKey: key) ?? Persisted()
    }
}
