import Burrow
import Synchronization

/// Runs `body` with `configuration` as `Realm.Configuration.defaultConfiguration`, which
/// `Realm()` opens, then puts the default back. The pages' samples that open `Realm()` run
/// through it one at a time; no other test changes the default.
@MainActor
func withDefaultConfiguration<T>(_ configuration: Realm.Configuration, _ body: () throws -> T) throws -> T {
    try defaultConfigurationLock.withLock { _ in
        let saved = Realm.Configuration.defaultConfiguration
        Realm.Configuration.defaultConfiguration = configuration
        defer { Realm.Configuration.defaultConfiguration = saved }
        return try body()
    }
}

private let defaultConfigurationLock = Mutex(())
