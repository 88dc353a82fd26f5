// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Burrow",
    // The lowest versions with the Synchronization module (Mutex, Atomic), which the library
    // uses; Observation, which the observed property wrappers use, came a year earlier.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Burrow", targets: ["Burrow"]),
        .library(name: "BurrowSync", targets: ["BurrowSync"]),
        .executable(name: "burrow", targets: ["BurrowCLI"]),
        .executable(name: "burrow-bench", targets: ["BurrowBench"]),
        .executable(name: "burrow-observed-demo", targets: ["ObservedDemo"]),
        .executable(name: "burrow-sync-demo", targets: ["SyncDemo"]),
    ],
    targets: [
        // The storage engine: pages, copy-on-write B+trees, versions, commit. No knowledge of objects.
        .target(name: "BurrowStorage", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The object store: values and their byte forms, tables and the stored schema, reading and
        // writing objects as keys and values, queries over rows. No knowledge of Swift classes.
        .target(name: "BurrowStore", dependencies: ["BurrowStorage"]),
        // realm-core's .realm files, read-only: the file and its encryption (libcrypto loaded at
        // run time), its nodes and B+trees, its tables and their objects.
        .target(
            name: "BurrowRealmFile", dependencies: ["BurrowStore"],
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The public API, RealmSwift's: objects, realms, results, changes. Built on the store.
        .target(name: "Burrow", dependencies: ["BurrowStore", "BurrowStorage", "BurrowRealmFile"]),
        // Replication of a Burrow file with PostgreSQL, through libpq loaded at run time.
        .target(
            name: "BurrowSync", dependencies: ["Burrow", "BurrowStore", "BurrowStorage"],
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The command-line tool `burrow` (demo, info, dump, verify).
        .executableTarget(name: "BurrowCLI", dependencies: ["Burrow", "BurrowStore", "BurrowStorage"]),
        // SQLite's C interface for the benchmark, bound to the system library at run time, so that
        // building needs no SQLite headers or library.
        .target(
            name: "CSQLite", path: "Benchmarks/CSQLite",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .executableTarget(
            name: "BurrowBench", dependencies: ["BurrowStorage", "BurrowStore", "Burrow", "BurrowSync", "BurrowTestSupport", "CSQLite"],
            path: "Benchmarks/BurrowBench"),
        // A dog list's model driven with the observed property wrappers and quick writes;
        // `ObservedDemoTests` runs it.
        .executableTarget(name: "ObservedDemo", dependencies: ["Burrow"], path: "Examples/ObservedDemo"),
        // Two sync clients of one PostgreSQL database converging: the Sync article's walk-through.
        .executableTarget(name: "SyncDemo", dependencies: ["Burrow", "BurrowSync"], path: "Examples/SyncDemo"),
        // Everything the tests share lives in Tests/BurrowTestSupport, as two modules. This one is
        // linked by every test target and every worker process the tests start: the seeded
        // generator, the seed a run replays from (`BURROW_SEED`), child processes, temporary
        // directories, waits, and `LockedBox`, the one box for values collected from `@Sendable`
        // code.
        .target(name: "BurrowTestSupport", path: "Tests/BurrowTestSupport", exclude: ["Traits"]),
        // The part that needs Swift Testing (traits such as `.temporaryDirectory` and `.ownThread`,
        // exit-test output, a timeout that records an issue), kept in a module of its own so that
        // the worker executables never link the Testing library. `#if canImport(Testing)` inside
        // BurrowTestSupport would not do that: the toolchain ships Testing, so the workers could
        // import it too and would then load it at run time.
        .target(
            name: "BurrowTestTraits", dependencies: ["BurrowTestSupport"], path: "Tests/BurrowTestSupport/Traits"),
        // The tests of the shared support code itself.
        .testTarget(name: "BurrowTestSupportTests", dependencies: ["BurrowTestSupport", "BurrowTestTraits"]),
        // A child process for the crash tests: commits random transactions until it is killed.
        .executableTarget(
            name: "StorageCrashWorker", dependencies: ["BurrowStorage", "BurrowTestSupport"], path: "Tests/StorageCrashWorker"),
        // Child processes for the shared-file tests: several open one file at once.
        .executableTarget(
            name: "SharedFileWorker", dependencies: ["BurrowStorage", "BurrowTestSupport"], path: "Tests/SharedFileWorker"),
        .testTarget(
            name: "BurrowStorageTests",
            dependencies: ["BurrowStorage", "BurrowTestSupport", "BurrowTestTraits", "StorageCrashWorker", "SharedFileWorker"]),
        // The object store on its own, below the API: values and codecs, tables and the stored
        // schema, and a model-based test of objects, links and collections.
        .testTarget(name: "BurrowStoreTests", dependencies: ["BurrowStore", "BurrowStorage", "BurrowTestSupport", "BurrowTestTraits"]),
        // realm-swift's example apps as a user ports them; `PortedProgramTests` runs it.
        .executableTarget(name: "PortedDogs", dependencies: ["Burrow"], path: "Tests/PortedDogs"),
        // A program with no model classes that prints a file's every object through the dynamic
        // API; `DynamicReaderTests` runs it.
        .executableTarget(name: "DynamicReader", dependencies: ["Burrow"], path: "Tests/DynamicReader"),
        // A program that shares a realm file with the test process; `SharedFileRealmTests` runs it.
        .executableTarget(name: "SharedRealmWorker", dependencies: ["Burrow"], path: "Tests/SharedRealmWorker"),
        // A program that syncs a file while `SyncKillTests` kills it.
        .executableTarget(name: "SyncWorker", dependencies: ["Burrow", "BurrowSync"], path: "Tests/SyncWorker"),
        // The programs the tests run (PortedDogs, ObservedDemo, DynamicReader, SharedRealmWorker,
        // SyncWorker) are built by `swift test` with every target, and not linked in: their model
        // classes are not this test program's.
        // BurrowSync against a real PostgreSQL the tests start themselves.
        .testTarget(name: "BurrowSyncTests", dependencies: ["BurrowSync", "Burrow", "BurrowStore", "BurrowTestSupport", "BurrowTestTraits"]),
        .testTarget(
            name: "BurrowTests", dependencies: ["Burrow", "BurrowStore", "BurrowTestSupport", "BurrowTestTraits"], exclude: ["Fixtures"]),
        // The reader of realm-core's files, on files realm-core wrote (Fixtures, with their note).
        .testTarget(
            name: "BurrowRealmFileTests", dependencies: ["BurrowRealmFile", "Burrow", "BurrowStore", "BurrowTestSupport", "BurrowTestTraits"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
