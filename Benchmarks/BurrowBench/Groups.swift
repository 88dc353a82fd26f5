/// A named set of workloads. `burrow-bench <name>` runs one; `burrow-bench` runs them all.
///
/// To add a group (e.g. `objects`, `queries`): write a type with a `static let group`, whose
/// `run` measures its workloads in the workbench's temporary directory and returns one
/// `Measurement` per workload, and list it in `BenchmarkGroup.all`.
struct BenchmarkGroup: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (Workbench) throws -> [Measurement]

    static let all: [BenchmarkGroup] = [
        StorageWorkloads.group,
        ObjectWorkloads.group,
        QueryWorkloads.group,
    ]

    static func named(_ name: String) -> BenchmarkGroup? {
        all.first { $0.name == name }
    }
}
