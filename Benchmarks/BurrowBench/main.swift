import BurrowStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// burrow-bench [--runs N] [group ...]
//
// Runs the named benchmark groups (all of them when none is named), Burrow and SQLite side by
// side in this process, then prints a table, one JSON line per workload, and the peak RSS.
// The top level awaits each group, so the main thread serves the main actor while a group that
// needs it (`observed`) runs.

func usage() -> String {
    var text = "usage: burrow-bench [--runs N] [group ...]\n\ngroups:\n"
    for group in BenchmarkGroup.all {
        text += "  " + group.name.padding(to: 10) + group.summary + "\n"
    }
    text += "\nWith no group, every group runs. --runs sets the timed runs per workload (the median is"
    text += "\nreported; default 9). Progress goes to standard error; the report to standard output."
    return text
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

// The child processes of the `processes` and `scale` groups.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--process-child" {
    ProcessWorkloads.child(path: CommandLine.arguments[2])
}
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--scale-child" {
    ScaleWorkloads.childMain(engine: CommandLine.arguments[2], phase: CommandLine.arguments[3], path: CommandLine.arguments[4])
}

var selected: [BenchmarkGroup] = []
var runs = 9
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "-h", "--help", "help":
        print(usage())
        exit(0)
    case "--runs":
        guard let value = arguments.popFirst().flatMap({ Int($0) }), value >= 1 else {
            printError("burrow-bench: --runs needs a positive number\n\n" + usage())
            exit(2)
        }
        runs = value
    default:
        guard let group = BenchmarkGroup.named(argument) else {
            printError("burrow-bench: unknown group \"\(argument)\"\n\n" + usage())
            exit(2)
        }
        if !selected.contains(where: { $0.name == group.name }) { selected.append(group) }
    }
}
if selected.isEmpty { selected = BenchmarkGroup.all }
do {
    try SQLiteDatabase.loadLibrary()
} catch {
    printError("burrow-bench compares Burrow with the system SQLite: \(error)")
    exit(1)
}

let load = SystemLoad()
var measurements: [Measurement] = []
var failed = false
for group in selected {
    printError("[\(group.name)] \(group.summary)")
    let workbench: Workbench
    do {
        workbench = try Workbench(runs: runs)
    } catch {
        printError("burrow-bench: \(error)")
        exit(1)
    }
    do {
        measurements += try await group.measure(workbench)
    } catch {
        printError("burrow-bench: group \(group.name) failed: \(error)")
        failed = true
    }
    workbench.cleanUp()
}

if !measurements.isEmpty {
    print()
    print(Report.table(measurements))
    for m in measurements where m.inJSON { print(Report.json(m)) }
}
print()
print("SQLite \(SQLiteDatabase.libraryVersion) (system library), \(SystemLoad.cores) cores")
if let peak = ProcessMemory.peakResident() {
    // Includes the pages of the memory-mapped files this process touched (file-backed RSS).
    print("peak RSS (VmHWM): \(Format.bytes(peak))")
}
if let others = load.otherProcessesCores() {
    print("other processes kept \(Format.fixed(others, 2)) of \(SystemLoad.cores) cores busy during the run")
}
exit(failed ? 1 : 0)
