import BurrowStore

/// The realm the observed wrappers use: the main actor's realm of a configuration, the one
/// `Realm(configuration:)` gives there.
@MainActor
enum ObservedRealm {
    /// The main actor's realm of `configuration` (the default configuration if nil). Traps if
    /// it cannot be opened, as RealmSwift's wrappers do: a wrapper has nothing to show
    /// without its realm.
    static func open(_ configuration: Realm.Configuration?) -> Realm {
        do {
            return try Realm(configuration: configuration ?? .defaultConfiguration)
        } catch {
            preconditionFailure("An observed property wrapper could not open its realm: \(error)")
        }
    }
}
