import Burrow

/// Runs `body` with `configuration` as `Realm.Configuration.defaultConfiguration`, which
/// `Realm()` opens, then puts the default back. It runs on the main actor, so the pages' samples
/// that open `Realm()` run one at a time; no other test changes the default.
@MainActor
func withDefaultConfiguration<T>(_ configuration: Realm.Configuration, _ body: () throws -> T) rethrows -> T {
    let saved = Realm.Configuration.defaultConfiguration
    Realm.Configuration.defaultConfiguration = configuration
    defer { Realm.Configuration.defaultConfiguration = saved }
    return try body()
}
