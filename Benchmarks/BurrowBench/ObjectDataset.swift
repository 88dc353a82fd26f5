import Burrow
import BurrowStore
import CSQLite

/// The model of the `objects` group: API.md's `Dog`, with its five scalar properties. The link
/// and collection properties of API.md's `Dog` (`favoriteToy`, `citiesVisited`, `companion`,
/// `favoriteParksByCity`, `owners`) are left out, so that a Dog is the same record as a row of
/// the SQLite table `dogs` (in SQLite they would be further tables).
final class Dog: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var currentCity = ""
}

/// The dogs of the `objects` group, prepared before any timing: Swift values for Burrow
/// (`ObjectId`s, `String`s, `Int`s) and the same values as contiguous bytes for SQLite's
/// `bind` (12-byte ids, UTF-8 text), so that neither side converts anything in a timed loop
/// except what its API makes it do.
///
/// Dog `i` has the id that the `i`-th `ObjectId.generate()` of a process would make within one
/// second (a fixed timestamp, 5 fixed "random" bytes, a counter), so ids ascend with `i`, as
/// generated ids do; a pseudo-random name such as "Buster 48213" (short enough to be a small,
/// inline Swift string); an age 0–19; a color and a city from small lists. "Toronto" and
/// "Vancouver" (the values `kvc_update` writes) are not among the cities.
struct ObjectDataset: Sendable {
    static let idSize = 12

    let count: Int
    let ids: [ObjectId]
    let names: [String]
    let ages: [Int]
    let colors: [String]
    let cities: [String]
    /// The 12 bytes of each id, back to back.
    let idBytes: [UInt8]
    let nameText: TextColumn
    let colorText: TextColumn
    let cityText: TextColumn
    /// The order `pk_lookup` reads the dogs in (a shuffle of 0..<count).
    let readOrder: [Int]

    static let firstNames = [
        "Buster", "Rex", "Bella", "Luna", "Max", "Charlie", "Lucy", "Cooper", "Daisy", "Milo",
        "Bailey", "Sadie", "Rocky", "Molly", "Bear", "Maggie", "Tucker", "Sophie", "Duke", "Chloe",
        "Zeus", "Penny", "Oliver", "Lola", "Jack", "Zoey", "Toby", "Roxy", "Winston", "Coco",
        "Murphy", "Ruby", "Teddy", "Stella", "Bentley", "Gracie", "Leo", "Nala", "Oscar", "Pepper",
    ]
    static let colorNames = ["black", "brown", "white", "golden", "grey", "cream", "red", "spotted"]
    static let cityNames = ["Berlin", "Lisbon", "Osaka", "Lima", "Cairo", "Oslo", "Quito", "Perth", "Austin", "Dakar"]

    init(count: Int, seed: UInt64 = 0xD0_6D06) {
        self.count = count
        var random = SplitMix64(seed: seed)
        // seconds (4 bytes) | process random (5 bytes) | counter (3 bytes), as ObjectId.generate().
        let seconds: UInt32 = 0x6553_F100
        let processRandom = random.next() & 0xFF_FFFF_FFFF
        let counterStart = UInt32(truncatingIfNeeded: random.next() % UInt64(0xFF_FFFF - count))
        var idBytes = [UInt8]()
        idBytes.reserveCapacity(count * Self.idSize)
        var ids: [ObjectId] = []
        var names: [String] = []
        var ages: [Int] = []
        var colors: [String] = []
        var cities: [String] = []
        ids.reserveCapacity(count)
        names.reserveCapacity(count)
        ages.reserveCapacity(count)
        colors.reserveCapacity(count)
        cities.reserveCapacity(count)
        for i in 0..<count {
            let counter = counterStart + UInt32(i)
            let start = idBytes.count
            withUnsafeBytes(of: seconds.bigEndian) { idBytes.append(contentsOf: $0) }
            withUnsafeBytes(of: processRandom.bigEndian) { idBytes.append(contentsOf: $0.suffix(5)) }
            withUnsafeBytes(of: counter.bigEndian) { idBytes.append(contentsOf: $0.suffix(3)) }
            ids.append(idBytes[start...].withUnsafeBytes { ObjectId(rawBytes: $0) })
            let r = random.next()
            names.append(Self.firstNames[Int(r % UInt64(Self.firstNames.count))] + " " + String((r >> 16) % 100_000))
            ages.append(Int((r >> 40) % 20))
            colors.append(Self.colorNames[Int((r >> 48) % UInt64(Self.colorNames.count))])
            cities.append(Self.cityNames[Int((r >> 56) % UInt64(Self.cityNames.count))])
        }
        self.ids = ids
        self.names = names
        self.ages = ages
        self.colors = colors
        self.cities = cities
        self.idBytes = idBytes
        nameText = TextColumn(names)
        colorText = TextColumn(colors)
        cityText = TextColumn(cities)
        var order = Array(0..<count)
        order.shuffle(using: &random)
        readOrder = order
    }

    /// A new unmanaged Dog `i`, made as application code makes one: `Dog()`, then its
    /// properties. (`city` replaces its current city, for updates.)
    @inline(__always)
    func makeDog(_ i: Int, age: Int? = nil) -> Dog {
        let dog = Dog()
        dog._id = ids[i]
        dog.name = names[i]
        dog.age = age ?? ages[i]
        dog.color = colors[i]
        dog.currentCity = cities[i]
        return dog
    }

    /// Calls `body` with pointers into the SQLite-side buffers.
    func withBuffers<R>(_ body: (ObjectBuffers) throws -> R) rethrows -> R {
        try idBytes.withUnsafeBytes { ids in
            try nameText.bytes.withUnsafeBytes { names in
                try colorText.bytes.withUnsafeBytes { colors in
                    try cityText.bytes.withUnsafeBytes { cities in
                        try body(
                            ObjectBuffers(
                                ids: ids, names: names, nameOffsets: nameText.offsets, colors: colors,
                                colorOffsets: colorText.offsets, cities: cities, cityOffsets: cityText.offsets))
                    }
                }
            }
        }
    }

    /// The sum of the ages and of the names' UTF-8 lengths of every dog, which any pass that
    /// reads every dog's name and age must reproduce.
    var expectedChecksum: (ages: Int, nameBytes: Int) {
        (ages.reduce(0, &+), names.reduce(0) { $0 &+ $1.utf8.count })
    }
}

/// Strings stored back to back as UTF-8, with the offset of each (and one past the last).
struct TextColumn: Sendable {
    let bytes: [UInt8]
    let offsets: [Int]

    init(_ strings: [String]) {
        var bytes: [UInt8] = []
        var offsets: [Int] = [0]
        offsets.reserveCapacity(strings.count + 1)
        for string in strings {
            bytes.append(contentsOf: string.utf8)
            offsets.append(bytes.count)
        }
        self.bytes = bytes
        self.offsets = offsets
    }
}

/// Pointers into an `ObjectDataset`'s SQLite-side buffers, valid inside `withBuffers`.
/// `@unchecked Sendable`: the memory is only read, and the threads of `concurrent_writes` that
/// share it are joined before `withBuffers` returns.
struct ObjectBuffers: @unchecked Sendable {
    let ids: UnsafeRawBufferPointer
    let names: UnsafeRawBufferPointer
    let nameOffsets: [Int]
    let colors: UnsafeRawBufferPointer
    let colorOffsets: [Int]
    let cities: UnsafeRawBufferPointer
    let cityOffsets: [Int]

    @inline(__always) func id(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: ids.baseAddress! + i * ObjectDataset.idSize, count: ObjectDataset.idSize)
    }

    @inline(__always) private static func text(_ base: UnsafeRawBufferPointer, _ offsets: [Int], _ i: Int) -> UnsafeRawBufferPointer {
        let start = offsets[i]
        return UnsafeRawBufferPointer(start: base.baseAddress! + start, count: offsets[i + 1] - start)
    }

    @inline(__always) func name(_ i: Int) -> UnsafeRawBufferPointer { Self.text(names, nameOffsets, i) }
    @inline(__always) func color(_ i: Int) -> UnsafeRawBufferPointer { Self.text(colors, colorOffsets, i) }
    @inline(__always) func city(_ i: Int) -> UnsafeRawBufferPointer { Self.text(cities, cityOffsets, i) }

    /// Binds dog `i` to a statement whose parameters are (_id, name, age, color, currentCity).
    @inline(__always) func bindDog(_ i: Int, age: Int64, to statement: SQLiteStatement) {
        statement.bind(1, blob: id(i))
        statement.bind(2, text: name(i))
        statement.bind(3, age)
        statement.bind(4, text: color(i))
        statement.bind(5, text: city(i))
    }
}

extension SQLiteStatement {
    /// Binds UTF-8 text without copying (SQLITE_STATIC): the bytes must stay valid until the
    /// next reset or rebind.
    @inline(__always) func bind(_ index: Int32, text: UnsafeRawBufferPointer) {
        sqlite3_bind_text(handle, index, text.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(text.count), nil)
    }

    /// The column as a Swift `String` (what a Swift application reading SQLite builds).
    @inline(__always) func string(_ column: Int32) -> String {
        let text = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
    }
}
