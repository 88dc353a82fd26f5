import BurrowStore
import Foundation

/// Counts a benchmark run takes from the environment, so that one workload can be made longer or
/// narrowed to one case for profiling without changing the code.
enum BenchEnvironment {
    /// The count the environment variable `variable` holds (at least 1), or `defaultValue` when
    /// it is unset or not a number.
    static func count(_ variable: String, default defaultValue: Int) -> Int {
        ProcessInfo.processInfo.environment[variable].flatMap { Int($0) }.map { max(1, $0) } ?? defaultValue
    }

    /// The positive counts the environment variable `variable` lists (comma-separated), or
    /// `defaultValue` when it lists none.
    static func counts(_ variable: String, default defaultValue: [Int]) -> [Int] {
        let listed = ProcessInfo.processInfo.environment[variable].map { $0.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 } } ?? []
        return listed.isEmpty ? defaultValue : listed
    }
}
