import BurrowStorage

// The child process of the shared-file tests (SharedFileTests.swift): several of these open one
// file with `FileSharing.shared` at once. Each reports on stdout line by line, every line
// written straight to the descriptor before it goes on (SharedWorkerRoles.swift):
//
//   SharedFileWorker counter <path> <n> <full|normal|group> [threads]
//       n commits, each adding one to "counter"; "acked <version> <counter>" after each.
//   SharedFileWorker transfer <path> <seed> <accounts> <n>
//       n commits moving random amounts between accounts (0: until killed or standard input
//       ends); "ready <version> <counter>", then "acked <version> <counter>" after each.
//   SharedFileWorker check <path> <seconds> [seed] [ro]
//       checks snapshots (sums, held snapshots read again) until the time is up or standard
//       input ends; "checked <checks> <first> <last> <distinct versions> <re-reads>".
//   SharedFileWorker hold <path> <shared|exclusive> <pin|nopin> [ro]
//       opens (or prints "locked", status 4), pins a snapshot if asked, prints
//       "holding <version>" or "open <version>", and keeps it until killed or standard input ends.
//   SharedFileWorker writehold <path>
//       begins a write that adds one to "counter", prints "writing <base version>", and commits
//       once standard input ends: "acked <version> <counter>".
//
// Exit status: 0 done, 1 an invariant broken ("violation …"), 2 another failure ("failed …"),
// 4 the file is locked against this open.

let sharedWorkerArguments = CommandLine.arguments
let sharedWorkerRole = sharedWorkerArguments.count > 1 ? sharedWorkerArguments[1] : ""
let sharedWorkerUsage =
    "usage: SharedFileWorker counter <path> <n> <full|normal|group> [threads] | transfer <path> <seed> <accounts> <n> | "
    + "check <path> <seconds> [seed] [ro] | hold <path> <shared|exclusive> <pin|nopin> [ro] | writehold <path>"

func sharedWorkerNumber<T: FixedWidthInteger>(_ index: Int, _ type: T.Type) -> T {
    guard index < sharedWorkerArguments.count, let value = T(sharedWorkerArguments[index]) else { sharedWorkerFail(sharedWorkerUsage) }
    return value
}

switch sharedWorkerRole {
case "counter" where sharedWorkerArguments.count == 5 || sharedWorkerArguments.count == 6:
    let mode = sharedWorkerArguments[4]
    guard ["full", "normal", "group"].contains(mode) else { sharedWorkerFail(sharedWorkerUsage) }
    sharedWorkerCounter(
        path: sharedWorkerArguments[2], count: sharedWorkerNumber(3, Int.self), mode: mode,
        threads: sharedWorkerArguments.count == 6 ? sharedWorkerNumber(5, Int.self) : 4)
case "transfer" where sharedWorkerArguments.count == 6:
    sharedWorkerTransfer(
        path: sharedWorkerArguments[2], seed: sharedWorkerNumber(3, UInt64.self), accounts: sharedWorkerNumber(4, Int.self),
        count: sharedWorkerNumber(5, Int.self))
case "check" where (3...6).contains(sharedWorkerArguments.count):
    guard let seconds = Double(sharedWorkerArguments[3]) else { sharedWorkerFail(sharedWorkerUsage) }
    let seed = sharedWorkerArguments.count > 4 ? sharedWorkerNumber(4, UInt64.self) : 1
    sharedWorkerCheck(
        path: sharedWorkerArguments[2], seconds: seconds, seed: seed, readOnly: sharedWorkerArguments.count > 5 && sharedWorkerArguments[5] == "ro")
case "hold" where sharedWorkerArguments.count == 5 || sharedWorkerArguments.count == 6:
    let sharing: FileSharing
    switch sharedWorkerArguments[3] {
    case "shared": sharing = .shared
    case "exclusive": sharing = .exclusive
    default: sharedWorkerFail(sharedWorkerUsage)
    }
    sharedWorkerHold(
        path: sharedWorkerArguments[2], sharing: sharing, pin: sharedWorkerArguments[4] == "pin",
        readOnly: sharedWorkerArguments.count == 6 && sharedWorkerArguments[5] == "ro")
case "writehold" where sharedWorkerArguments.count == 3:
    sharedWorkerWriteHold(path: sharedWorkerArguments[2])
default:
    sharedWorkerFail(sharedWorkerUsage)
}
