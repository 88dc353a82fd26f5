import Foundation

/// The seed of a randomized test: the one `BURROW_SEED` gives, so that a failing run replays,
/// or a fresh one; printed either way, so that every run can be replayed.
public enum TestSeed {
    /// The environment variable that replays a run: `BURROW_SEED=<seed> swift test --filter <test>`.
    public static let variable = "BURROW_SEED"

    /// The seed `text` spells, in decimal or in hex with `0x` (surrounding spaces ignored), or nil.
    public static func parse(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }

    /// The seed `BURROW_SEED` gives if it is set and parses, or nil.
    public static var fromEnvironment: UInt64? {
        ProcessInfo.processInfo.environment[variable].flatMap(parse)
    }

    /// The seed for the test `label` names: `BURROW_SEED`'s if set, otherwise a fresh random
    /// one. Prints `"<label>: seed N (replay with BURROW_SEED=N)"` once.
    public static func make(_ label: String) -> UInt64 {
        let seed = fromEnvironment ?? UInt64.random(in: 1...UInt64.max)
        print("\(label): seed \(seed) (replay with \(variable)=\(seed))")
        return seed
    }
}
