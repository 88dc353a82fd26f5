import Testing
@testable import BurrowStorage

@Test func smokeRandomModel() throws {
    let storage = try Storage(device: MemoryDevice(name: "smoke"))
    var model: [[UInt8]: [UInt8]] = [:]
    var rng = SystemRandomNumberGenerator()
    for round in 0..<60 {
        let txn = try storage.beginWriteBlocking()
        let tree = try txn.openTree(named: "t")
        for _ in 0..<400 {
            let k = (0..<Int.random(in: 1...12, using: &rng)).map { _ in UInt8.random(in: 0...7, using: &rng) }
            if Int.random(in: 0..<3, using: &rng) == 0 {
                try txn.delete(k, from: tree); model[k] = nil
            } else {
                let big = Int.random(in: 0..<20, using: &rng) == 0
                let v = (0..<(big ? 5000 : Int.random(in: 0...100, using: &rng))).map { _ in UInt8.random(in: 0...255, using: &rng) }
                try txn.put(k, v, in: tree); model[k] = v
            }
        }
        try txn.commit(durability: .normal)
        let snap = try storage.snapshot()
        _ = try snap.verify()
        let t = try snap.tree(named: "t")!
        #expect(t.count == model.count, "round \(round)")
        var c = t.makeCursor()
        var keys: [[UInt8]] = []
        var more = try c.first()
        while more { keys.append(Array(c.key)); #expect(Array(try c.value()) == model[Array(c.key)]); more = try c.next() }
        #expect(keys == model.keys.sorted { $0.lexicographicallyPrecedes($1) })
    }
}
