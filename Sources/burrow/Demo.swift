import BurrowStorage

/// `burrow demo`: the engine end to end on a real file — write in a transaction, close, reopen,
/// read back, scan a range, verify.
enum Demo {
    static func run(path: String) throws(StorageError) {
        let visits: Int
        do {
            let storage = try Storage.open(path: path)
            let before = try storage.statistics()
            print("Opened \(path) at version \(before.version) (\(before.pageCount) pages of \(before.pageSize) bytes).")

            let txn = try storage.beginWriteBlocking()
            let dogs = try txn.openTree(named: "dogs")
            let names = ["Rex", "Fido", "Bella", "Max", "Luna", "Charlie", "Daisy", "Rocky", "Molly", "Buster"]
            for i in 0..<1_000 {
                let key = Array("dog-\(String(i + 1_000).dropFirst())".utf8)
                let value = Array("\(names[i % names.count]), age \(i % 15), city \(i % 2 == 0 ? "Toronto" : "Oslo")".utf8)
                try txn.put(key, value, in: dogs)
            }
            let counter = try txn.openTree(named: "runs")
            let previous = try txn.value(forKey: Array("demo".utf8), in: counter).map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 } ?? 0
            visits = previous + 1
            try txn.put(Array("demo".utf8), Array(String(visits).utf8), in: counter)
            let version = try txn.commit(durability: .full)
            print("Wrote 1,000 dogs and committed version \(version) durably.")
            storage.close()
        }

        // A fresh handle: everything below comes from the file.
        let storage = try Storage.open(path: path)
        let snapshot = try storage.snapshot()
        guard let dogs = try snapshot.tree(named: "dogs"), let runs = try snapshot.tree(named: "runs") else {
            throw .noSuchTree(name: "dogs")
        }
        let stored = try runs.value(forKey: Array("demo".utf8)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        print("Reopened: version \(snapshot.version), \(dogs.count) dogs, demo run \(stored) on this file (expected \(visits)).")
        if let rex = try dogs.value(forKey: Array("dog-000".utf8)) {
            print("dog-000 → \(String(decoding: rex, as: UTF8.self))")
        }
        var cursor = dogs.makeCursor()
        var shown: [String] = []
        var more = try cursor.seek(Array("dog-995".utf8))
        while more && shown.count < 5 {
            shown.append("\(String(decoding: cursor.key, as: UTF8.self)) → \(String(decoding: try cursor.value(), as: UTF8.self))")
            more = try cursor.next()
        }
        print("Range scan from dog-995:\n  " + shown.joined(separator: "\n  "))
        let report = try snapshot.verify()
        print("verify: \(report.trees) trees, \(report.entries) entries, \(report.reachablePages) pages in use, \(report.freePages) free — sound.")
    }
}
