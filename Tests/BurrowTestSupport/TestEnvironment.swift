import Foundation

/// Counts a run takes from the environment, so that a long randomized run is one variable away
/// (`BURROW_MODEL_OPS=100000 swift test --filter …`) while CI keeps the modest default.
public enum TestEnvironment {
    /// The positive integer the environment variable `variable` holds, or `defaultValue` when it
    /// is unset, not a number, or not positive.
    public static func count(_ variable: String, default defaultValue: Int) -> Int {
        if let text = ProcessInfo.processInfo.environment[variable], let value = Int(text.trimmingCharacters(in: .whitespaces)), value > 0 {
            return value
        }
        return defaultValue
    }
}
