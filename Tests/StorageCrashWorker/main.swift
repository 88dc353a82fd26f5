import BurrowStorage
import BurrowTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The child process of the crash tests.
//
//   StorageCrashWorker run <path> <seed> <full|normal|mixed|group> [page size]
//       Opens (or creates, with the page size given) the file, skips the seeded workload (CrashWorkload.swift) past the
//       commits the file already holds, then runs it until killed. It reports on stdout, each
//       line written straight to the descriptor before it goes on:
//         ready <version>                  the file is open at that version
//         limited <operations> <pages>     a transaction kept to that many pages in memory starts
//                                          (it spills the rest to the file as it goes)
//         begin <version> <operations>     a transaction that will commit as <version> starts committing
//         acked <version>                  commit returned: <version> is acknowledged
//       In group mode four threads take turns committing (`commitPendingSync`, then
//       `waitUntilDurableBlocking`), so waits share syncs; "acked" lines may come out of order.
//         aborted                          a transaction was aborted
//   StorageCrashWorker hold <path>
//       Opens the file, prints "holding", and keeps it open (and locked) until killed or until
//       its standard input closes.

func crashWorkerFail(_ message: String) -> Never {
    WorkerOutput.complain("StorageCrashWorker: " + message + "\n")
    exit(2)
}

func crashWorkerRun(path: String, seed: UInt64, durabilityMode: String, pageSize: Int) {
    let storage: Storage
    do {
        storage = try Storage.open(path: path, options: StorageOptions(pageSize: pageSize))
    } catch {
        crashWorkerFail("open failed: \(error)")
    }
    var workload = CrashWorkload(seed: seed)
    workload.skip(toCommits: storage.version)
    if durabilityMode == "group" { crashWorkerRunGroup(storage: storage, workload: workload) }
    var choice = TestRandom(seed: seed ^ 0x5EED_0F_D0AB ^ storage.version)
    WorkerOutput.say("ready \(storage.version)")
    while true {
        do {
            let performed = try workload.performNext(on: storage) { transaction in
                if let pages = transaction.memoryLimitPages { WorkerOutput.say("limited \(transaction.size) \(pages)") }
            }
            guard let (txn, transaction) = performed else {
                WorkerOutput.say("aborted")
                continue
            }
            let durability: Durability
            switch durabilityMode {
            case "full": durability = .full
            case "normal": durability = .normal
            default: durability = choice.chance(50) ? .full : .normal
            }
            let expected = txn.baseVersion + 1
            WorkerOutput.say("begin \(expected) \(transaction.size)")
            let version = try txn.commit(durability: durability)
            guard version == expected else { crashWorkerFail("commit returned version \(version), expected \(expected)") }
            WorkerOutput.say("acked \(version)")
        } catch {
            crashWorkerFail("transaction failed: \(error)")
        }
    }
}

/// The workload, taken one transaction at a time by whichever thread holds the write lock.
final class CrashWorkerSharedWorkload: @unchecked Sendable {
    // Touched only by the thread holding the storage's write lock, which orders the accesses.
    var workload: CrashWorkload
    init(_ workload: CrashWorkload) { self.workload = workload }
}

/// Group mode: four threads commit the workload in turn and wait for durability together.
func crashWorkerRunGroup(storage: Storage, workload: CrashWorkload) -> Never {
    let shared = CrashWorkerSharedWorkload(workload)
    WorkerOutput.say("ready \(storage.version)")
    for _ in 0..<4 {
        Thread.detachNewThread {
            while true {
                do {
                    let txn = try storage.beginWriteBlocking()
                    let transaction = shared.workload.nextTransaction()
                    try transaction.perform(in: txn)
                    guard transaction.commits else {
                        txn.abort()
                        WorkerOutput.say("aborted")
                        continue
                    }
                    let expected = txn.baseVersion + 1
                    WorkerOutput.say("begin \(expected) \(transaction.size)")
                    let receipt = try txn.commitPendingSync(durability: .full)
                    guard receipt.version == expected else { crashWorkerFail("commit published \(receipt.version), expected \(expected)") }
                    try storage.waitUntilDurableBlocking(receipt)
                    WorkerOutput.say("acked \(receipt.version)")
                } catch {
                    crashWorkerFail("transaction failed: \(error)")
                }
            }
        }
    }
    while true { sleep(1000) }  // the threads commit until the process is killed
}

func crashWorkerHold(path: String) {
    let storage: Storage
    do {
        storage = try Storage.open(path: path)
    } catch {
        crashWorkerFail("open failed: \(error)")
    }
    WorkerOutput.say("holding \(storage.version)")
    var byte: UInt8 = 0
    while true {
        let n = read(0, &byte, 1)
        if n > 0 || (n < 0 && errno == EINTR) { continue }
        break
    }
    storage.close()
}

let crashWorkerArguments = CommandLine.arguments
switch crashWorkerArguments.count > 1 ? crashWorkerArguments[1] : "" {
case "run" where crashWorkerArguments.count == 5 || crashWorkerArguments.count == 6:
    guard let seed = UInt64(crashWorkerArguments[3]) else { crashWorkerFail("bad seed \(crashWorkerArguments[3])") }
    let pageSize = crashWorkerArguments.count == 6 ? Int(crashWorkerArguments[5]) ?? 0 : 4096
    crashWorkerRun(path: crashWorkerArguments[2], seed: seed, durabilityMode: crashWorkerArguments[4], pageSize: pageSize)
case "hold" where crashWorkerArguments.count == 3:
    crashWorkerHold(path: crashWorkerArguments[2])
default:
    crashWorkerFail("usage: StorageCrashWorker run <path> <seed> <full|normal|mixed|group> [page size] | hold <path>")
}
