import Burrow
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `scale` group: one million dogs, Burrow against SQLite, each engine in a child process
/// of its own (`--scale-child`) so that its memory is its own.
///
/// - `million_peak_memory`: how far the process's peak resident set (VmHWM) rises while it adds
///   the dogs in one transaction and commits (`.full` against `synchronous=FULL`), above the
///   peak it had with the dogs' values prepared.
/// - `million_file_size`: the bytes the database's files hold once it is closed (Burrow's file
///   and its lock file; SQLite's database and, if any is left, its WAL and shared memory).
/// - `million_open_query`: a new process opens the file and counts the dogs of one age (no
///   index on either side): the time from before the open to the answer, the file's pages in the
///   page cache as the fill left them.
enum ScaleWorkloads {
    static let group = BenchmarkGroup(
        name: "scale",
        summary: "one million Dogs: peak memory and file size of the fill, then open and first query in a new process",
        run: { try run($0) })

    /// Dogs in the file: one million, or `BURROW_BENCH_SCALE_DOGS`.
    static let dogs = BenchEnvironment.count("BURROW_BENCH_SCALE_DOGS", default: 1_000_000)
    /// The age the first query counts.
    static let queriedAge = 3

    static func run(_ bench: Workbench) throws -> [Measurement] {
        bench.log("scale: \(dogs) Dogs in one transaction, each engine in a child process; then open and count by age in another")
        var fills: [String: [String: Double]] = [:]
        var opens: [String: [String: Double]] = [:]
        for engine in ["burrow", "sqlite"] {
            let path = bench.path("scale.\(engine)")
            defer { bench.remove("scale.\(engine)") }
            fills[engine] = try child(engine, "fill", path)
            opens[engine] = try child(engine, "open", path)
        }
        guard let bFill = fills["burrow"], let sFill = fills["sqlite"], let bOpen = opens["burrow"], let sOpen = opens["sqlite"] else {
            throw BenchmarkError("scale: a child printed no figures")
        }
        guard bOpen["found"] == sOpen["found"] else {
            throw BenchmarkError("scale: Burrow counted \(bOpen["found"] ?? -1) dogs of age \(queriedAge), SQLite \(sOpen["found"] ?? -1)")
        }
        let mib = 1024.0 * 1024.0
        var memory = Measurement(
            group: "scale", workload: "million_peak_memory", unit: "MiB", burrow: bFill["peak"]! / mib, sqlite: sFill["peak"]! / mib, better: .lower)
        memory.extras = [
            .init(key: "burrow_fill_seconds", value: bFill["seconds"]!, decimals: 2),
            .init(key: "sqlite_fill_seconds", value: sFill["seconds"]!, decimals: 2),
        ]
        memory.note =
            "rise of VmHWM during the fill of \(dogs) Dogs (1 txn); fill took \(Format.fixed(bFill["seconds"]!, 2)) s vs \(Format.fixed(sFill["seconds"]!, 2)) s"
        var size = Measurement(
            group: "scale", workload: "million_file_size", unit: "MiB", burrow: bFill["bytes"]! / mib, sqlite: sFill["bytes"]! / mib, better: .lower)
        size.note = "the database's files once closed"
        var open = Measurement(
            group: "scale", workload: "million_open_query", unit: "ms", burrow: bOpen["seconds"]! * 1e3, sqlite: sOpen["seconds"]! * 1e3,
            better: .lower)
        open.note = "a new process: open, then count the dogs of age \(queriedAge) (\(Int(bOpen["found"]!)) found; no index either side)"
        bench.log(
            "    peak memory \(Format.fixed(memory.burrow, 1)) / \(Format.fixed(memory.sqlite, 1)) MiB; file \(Format.fixed(size.burrow, 1)) / \(Format.fixed(size.sqlite, 1)) MiB; open and query \(Format.fixed(open.burrow, 2)) / \(Format.fixed(open.sqlite, 2)) ms"
        )
        return [memory, size, open]
    }

    /// Runs this program as `--scale-child engine phase path` and reads the figures it prints.
    static func child(_ engine: String, _ phase: String, _ path: String) throws -> [String: Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--scale-child", engine, phase, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let figures = try? JSONSerialization.jsonObject(with: data) as? [String: Double]
        else {
            throw BenchmarkError(
                "scale: the \(engine) \(phase) child failed (status \(process.terminationStatus)): \(String(decoding: data, as: UTF8.self))")
        }
        return figures
    }

    /// The child: `fill` adds the dogs and prints the seconds, the rise of the peak resident
    /// set and the files' bytes; `open` opens the file, counts the dogs of `queriedAge` and
    /// prints the seconds and the count. Exits.
    static func childMain(engine: String, phase: String, path: String) -> Never {
        do {
            if engine == "sqlite" { try SQLiteDatabase.loadLibrary() }
            var figures: [String: Double] = [:]
            switch phase {
            case "fill":
                let data = ObjectDataset(count: dogs)
                try data.withBuffers { buffers in
                    let base = ProcessMemory.peakResident() ?? 0
                    let seconds =
                        engine == "burrow"
                        ? try ObjectWorkloads.burrowBulkInsert(path, data)
                        : try ObjectWorkloads.sqliteBulkInsert(path, data, buffers)
                    figures["seconds"] = seconds
                    figures["peak"] = Double((ProcessMemory.peakResident() ?? 0) - base)
                }
                figures["bytes"] = Double(try filesBytes(path))
            case "open":
                let clock = ContinuousClock()
                let start = clock.now
                let found: Int
                if engine == "burrow" {
                    let realm = try Realm(configuration: ObjectWorkloads.configuration(path, durability: .full))
                    found = realm.objects(Dog.self).where { $0.age == queriedAge }.count
                } else {
                    let db = try SQLiteDatabase(path: path, create: false)
                    defer { db.close() }
                    found = Int(try db.scalar("SELECT count(*) FROM dogs WHERE age = \(queriedAge)") ?? "") ?? -1
                }
                figures["seconds"] = (clock.now - start).seconds
                figures["found"] = Double(found)
            default:
                throw BenchmarkError("unknown phase \(phase)")
            }
            let json = try JSONSerialization.data(withJSONObject: figures)
            print(String(decoding: json, as: UTF8.self))
            exit(0)
        } catch {
            printError("burrow-bench --scale-child \(engine) \(phase): \(error)")
            exit(1)
        }
    }

    /// The bytes of `path` and of every file beside it whose name starts with its name
    /// (a lock file, a WAL).
    static func filesBytes(_ path: String) throws -> Int {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        var total = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasPrefix(name) {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + file)
            total += (attributes[.size] as? Int) ?? 0
        }
        return total
    }
}
