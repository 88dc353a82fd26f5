import BurrowStore

/// A named set of workloads. `burrow-bench <name>` runs one; `burrow-bench` runs them all.
///
/// To add a group (e.g. `objects`, `queries`): write a type with a `static let group`, whose
/// `run` measures its workloads in the workbench's temporary directory and returns one
/// `Measurement` per workload, and list it in `BenchmarkGroup.all`. A group that needs the main
/// actor (the observed property wrappers live there) runs `onMainActor` instead: the main
/// thread serves the main actor while such a group awaits.
struct BenchmarkGroup: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (Workbench) throws -> [Measurement]
    let runOnMainActor: (@MainActor @Sendable (Workbench) async throws -> [Measurement])?

    init(name: String, summary: String, run: @escaping @Sendable (Workbench) throws -> [Measurement]) {
        self.name = name
        self.summary = summary
        self.run = run
        runOnMainActor = nil
    }

    init(name: String, summary: String, onMainActor: @escaping @MainActor @Sendable (Workbench) async throws -> [Measurement]) {
        self.name = name
        self.summary = summary
        run = { _ in throw BenchmarkError("group \(name) runs on the main actor") }
        runOnMainActor = onMainActor
    }

    /// Runs the group's workloads, on the main actor if the group needs it.
    @MainActor
    func measure(_ bench: Workbench) async throws -> [Measurement] {
        if let runOnMainActor { return try await runOnMainActor(bench) }
        return try run(bench)
    }

    static let all: [BenchmarkGroup] = [
        StorageWorkloads.group,
        ObjectWorkloads.group,
        QueryWorkloads.group,
        ObservedWorkloads.group,
        ChangeStreamWorkloads.group,
        ProcessWorkloads.group,
        ScaleWorkloads.group,
        SyncWorkloads.group,
    ]

    static func named(_ name: String) -> BenchmarkGroup? {
        all.first { $0.name == name }
    }
}
