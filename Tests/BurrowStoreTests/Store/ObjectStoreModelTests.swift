// Model-based tests of the object store on its own: random inserts, field changes, list, set
// and map edits, deletes, commits, cancels and reopens, driven through BurrowStore's API and
// checked after every commit and cancel against a plain model (class → object key → fields).
//
// Replay a failure with the seed it prints:
//     BURROW_SEED=<seed> swift test --filter ObjectStoreModel
// Make a run longer with BURROW_MODEL_OPS=<operations per case>.

import BurrowStorage
import BurrowStore
import BurrowTestSupport
import Foundation
import Testing

/// The classes the model stores: one without a primary key holding a field of every kind, one
/// per kind of primary key (int, string, objectId), and an embedded class.
enum StoreModelClasses {
    static let plain = "Plain"
    static let intKeyed = "IntKeyed"
    static let stringKeyed = "StringKeyed"
    static let oidKeyed = "OidKeyed"
    static let note = "Note"

    /// The classes whose objects stand alone (links in `AnyRealmValue` go to these).
    static let topLevel = [plain, intKeyed, stringKeyed, oidKeyed]

    static let scalarTypes: [PropertyType] = [.bool, .int, .float, .double, .string, .data, .date, .objectId, .uuid, .decimal128]

    static var declared: [DeclaredClass] {
        func p(
            _ name: String, _ type: PropertyType, optional: Bool, _ collection: CollectionKind, to target: String?, primary: Bool, indexed: Bool
        ) -> Property {
            TestProperty.make(name, type, optional: optional, collection, to: target, primary: primary, indexed: indexed)
        }
        var plainProperties: [Property] = []
        for type in scalarTypes {
            plainProperties.append(p(type.rawValue, type, optional: false, .single, to: nil, primary: false, indexed: type == .int))
        }
        for type in scalarTypes {
            plainProperties.append(p("opt_" + type.rawValue, type, optional: true, .single, to: nil, primary: false, indexed: type == .string))
        }
        plainProperties += [
            p("link", .object, optional: true, .single, to: plain, primary: false, indexed: false),
            p("any", .any, optional: true, .single, to: nil, primary: false, indexed: false),
            p("ints", .int, optional: false, .list, to: nil, primary: false, indexed: false),
            p("tags", .string, optional: false, .set, to: nil, primary: false, indexed: false),
            p("scores", .double, optional: true, .map, to: nil, primary: false, indexed: false),
            p("friends", .object, optional: false, .list, to: plain, primary: false, indexed: false),
            p("keyedSet", .object, optional: false, .set, to: intKeyed, primary: false, indexed: false),
            p("named", .object, optional: true, .map, to: stringKeyed, primary: false, indexed: false),
            p("note", .object, optional: true, .single, to: note, primary: false, indexed: false),
            p("notes", .object, optional: false, .list, to: note, primary: false, indexed: false),
            p("noteMap", .object, optional: true, .map, to: note, primary: false, indexed: false),
            p("anyList", .any, optional: true, .list, to: nil, primary: false, indexed: false),
        ]
        return [
            DeclaredClass(name: plain, properties: plainProperties, isEmbedded: false),
            DeclaredClass(
                name: intKeyed,
                properties: [
                    p("id", .int, optional: false, .single, to: nil, primary: true, indexed: false),
                    p("name", .string, optional: false, .single, to: nil, primary: false, indexed: false),
                    p("owner", .object, optional: true, .single, to: plain, primary: false, indexed: false),
                    p("extra", .any, optional: true, .single, to: nil, primary: false, indexed: false),
                    p("labels", .string, optional: true, .list, to: nil, primary: false, indexed: false),
                ], isEmbedded: false),
            DeclaredClass(
                name: stringKeyed,
                properties: [
                    p("code", .string, optional: false, .single, to: nil, primary: true, indexed: false),
                    p("weight", .double, optional: true, .single, to: nil, primary: false, indexed: false),
                    p("target", .object, optional: true, .single, to: intKeyed, primary: false, indexed: false),
                    p("flags", .int, optional: true, .set, to: nil, primary: false, indexed: false),
                ], isEmbedded: false),
            DeclaredClass(
                name: oidKeyed,
                properties: [
                    p("id", .objectId, optional: false, .single, to: nil, primary: true, indexed: false),
                    p("flag", .bool, optional: false, .single, to: nil, primary: false, indexed: true),
                    p("next", .object, optional: true, .single, to: oidKeyed, primary: false, indexed: false),
                    p("stuff", .any, optional: true, .map, to: nil, primary: false, indexed: false),
                    p("tag", .any, optional: true, .single, to: nil, primary: false, indexed: true),
                ], isEmbedded: false),
            DeclaredClass(
                name: note,
                properties: [
                    p("text", .string, optional: false, .single, to: nil, primary: false, indexed: false),
                    p("count", .int, optional: false, .single, to: nil, primary: false, indexed: false),
                    p("ref", .object, optional: true, .single, to: plain, primary: false, indexed: false),
                ], isEmbedded: true),
        ]
    }
}

/// What one field of a modelled object holds.
enum ModelField {
    case single(StoreValue)
    case list([StoreValue])
    /// Elements by their index key, the form a set's tree is keyed by (so equal elements, such
    /// as 0.0 and -0.0, are one element, the first inserted).
    case set([[UInt8]: StoreValue])
    case map([String: StoreValue])

    /// The links the field holds, once per time it holds each.
    var links: [ObjectLink] {
        func link(_ value: StoreValue) -> ObjectLink? {
            if case .object(let link) = value { return link }
            return nil
        }
        switch self {
        case .single(let value): return link(value).map { [$0] } ?? []
        case .list(let values): return values.compactMap(link)
        case .set(let values): return values.values.compactMap(link)
        case .map(let values): return values.values.compactMap(link)
        }
    }

    /// The field without the links to `target`: a single link becomes null, list and set
    /// elements go, map values become null (as deleting the target leaves them).
    func removing(_ target: ObjectLink) -> ModelField {
        func isTarget(_ value: StoreValue) -> Bool {
            if case .object(let link) = value { return link == target }
            return false
        }
        switch self {
        case .single(let value): return isTarget(value) ? .single(.null) : self
        case .list(let values): return .list(values.filter { !isTarget($0) })
        case .set(let values): return .set(values.filter { !isTarget($0.value) })
        case .map(let values): return .map(values.mapValues { isTarget($0) ? .null : $0 })
        }
    }

    var count: Int {
        switch self {
        case .single: 1
        case .list(let values): values.count
        case .set(let values): values.count
        case .map(let values): values.count
        }
    }
}

/// Everything the store should read: the objects of each class and what the store must remember
/// about keys. A cancelled write puts back the state of the last commit.
struct StoreModelState {
    /// Class name → object key → fields, in field order.
    var objects: [String: [ObjectKey: [ModelField]]] = [:]
    /// For classes without a primary key: the key the next new object gets (keys are never
    /// handed out twice, even after their object is deleted).
    var nextKey: [String: UInt64] = [:]
    /// Class name → keys of deleted objects, with the primary key each had.
    var deleted: [String: [ObjectKey: StoreValue]] = [:]
}

/// How the model test opens its engine.
enum StoreModelBacking: String, CustomStringConvertible, Sendable, CaseIterable {
    case memory
    case file

    var description: String { rawValue }
}

/// Drives one store through random write transactions, mirroring every change in the model.
final class StoreModelRunner {
    let backing: StoreModelBacking
    let seed: UInt64
    var rng: TestRandom
    let directory: TemporaryDirectory?
    var harness: StoreHarness!
    var committed = StoreModelState()
    var state = StoreModelState()
    var operations = 0
    var commits = 0
    var cancels = 0
    var reopens = 0
    var checks = 0
    /// Errors the store threw as expected (duplicate primary keys, deleted objects).
    var expectedErrors = 0
    /// Set by an operation after which the transaction keeps nothing and must be cancelled.
    var abandonsWrite = false

    /// A runner on `backing` replaying `seed` (the seed a run prints; each backing draws its
    /// own sequence from it).
    init(backing: StoreModelBacking, seed: UInt64) throws {
        self.backing = backing
        self.seed = seed
        rng = TestRandom(seed: seed ^ (backing == .file ? 0x5EED_F11E : 0))
        directory = backing == .file ? try TemporaryDirectory("store-model") : nil
        harness = try StoreHarness(storage: try openStorage(), declaring: StoreModelClasses.declared)
        for name in StoreModelClasses.declared.map(\.name) {
            committed.objects[name] = [:]
            committed.deleted[name] = [:]
            if harness.table(name).primaryKeyField == nil { committed.nextKey[name] = 1 }
        }
        state = committed
    }

    private func openStorage() throws -> Storage {
        switch backing {
        case .memory: try Storage.inMemory(identifier: "store-model-\(seed)-\(UInt64.random(in: 0...UInt64.max))")
        case .file: try Storage.open(path: directory!.file("model.burrow"))
        }
    }

    var store: ObjectStore { harness.store }
    var write: WriteState { harness.write }
    func table(_ name: String) -> Table { harness.table(name) }
    func name(of tableId: UInt32) -> String {
        guard let name = harness.tables.first(where: { $0.value.id == tableId })?.key else { preconditionFailure("no class #\(tableId)") }
        return name
    }

    var context: String { "seed \(seed) (\(backing)), commit #\(commits), cancel #\(cancels), op #\(operations)" }

    // MARK: Running

    func run(operations count: Int) throws {
        while operations < count {
            try harness.beginWrite(recordingChanges: rng.chance(30))
            let length = rng.int(1...12)
            abandonsWrite = false
            for _ in 0..<length where operations < count && !abandonsWrite {
                operations += 1
                try randomOperation()
            }
            if rng.chance(15) && !abandonsWrite { try check("inside the write") }
            let roll = rng.int(0..<100)
            if roll < 70 && !abandonsWrite {
                let ended = try harness.commit()
                commits += 1
                if let changes = ended.changes { try checkChanges(changes) }
                committed = state
                try check("after commit")
                if rng.chance(12) {
                    try reopen()
                    try check("after reopen")
                }
            } else {
                harness.cancel()
                cancels += 1
                state = committed
                try check("after cancel")
            }
        }
        try reopen()
        try check("at the end, reopened")
    }

    /// Lets go of the store (and, on a file, of the engine) and opens it again.
    func reopen() throws {
        reopens += 1
        let before = store.currentFileSchema
        switch backing {
        case .memory:
            harness = try StoreHarness(storage: harness.storage, declaring: StoreModelClasses.declared)
        case .file:
            harness.storage.close()
            harness = nil
            harness = try StoreHarness(storage: try openStorage(), declaring: StoreModelClasses.declared)
        }
        try #require(store.currentFileSchema == before, "\(context): the schema read back after reopening differs")
    }

    // MARK: Values

    func randomString() -> String {
        if rng.chance(4) { return String(repeating: "é", count: rng.int(520...900)) }
        let alphabet = ["a", "b", "é", "z", "\u{1F600}"]
        return (0..<rng.int(0...3)).map { _ in rng.element(alphabet) }.joined()
    }

    func randomObjectId() -> ObjectId {
        // Ids whose random middle bytes are a permutation of one another derive the same object
        // key (`ObjectId.orderedKeyBits` folds them by XOR), so collisions are common.
        var bytes: [UInt8] = [0, 0, 0, UInt8(rng.int(1...2))]
        let pool = (0..<5).map { _ in UInt8(rng.int(0...2)) }
        bytes += pool.shuffled(using: &rng)
        bytes += [0, 0, UInt8(rng.int(7...8))]
        return bytes.withUnsafeBytes { ObjectId(rawBytes: $0) }
    }

    func randomScalar(_ type: PropertyType, optional: Bool) -> StoreValue {
        if optional && rng.chance(20) { return .null }
        switch type {
        case .bool: return .bool(rng.chance(50))
        case .int: return rng.chance(80) ? .int(Int64(rng.int(-3...3))) : .int(Int64(bitPattern: rng.next()))
        case .float: return .float(rng.element([0, -0.0, 1.5, .nan, .infinity, -2.25, Float(rng.int(-100...100)) / 8]))
        case .double: return .double(rng.element([0, -0.0, 0.1, .nan, -.infinity, 1e300, Double(rng.int(-100...100)) / 8]))
        case .string: return .string(randomString())
        case .data: return .data(Data(rng.bytes(rng.chance(5) ? rng.int(1025...3000) : rng.int(0...20))))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(rng.int(-1000...1000)) * 1.5))
        case .objectId: return .objectId(randomObjectId())
        case .uuid:
            let b = rng.bytes(16)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .decimal128:
            return .decimal128(rng.chance(70) ? Decimal128(Int64(rng.int(-50...50))) : Decimal128(Double(rng.int(-1000...1000)) / 16))
        case .object, .any, .linkingObjects: preconditionFailure("not a scalar type: \(type)")
        }
    }

    /// A link to a random object of class `name`, or nil if it has none.
    func randomLink(to name: String) -> StoreValue? {
        guard let keys = state.objects[name], !keys.isEmpty else { return nil }
        return .object(ObjectLink(table: table(name).id, key: rng.element(keys.keys.sorted())))
    }

    func randomAny() -> StoreValue {
        if rng.chance(15) { return .null }
        if rng.chance(30), let link = randomLink(to: rng.element(StoreModelClasses.topLevel)) { return link }
        return randomScalar(rng.element(StoreModelClasses.scalarTypes), optional: false)
    }

    /// A value for an element (or the value) of `property`, which is not an embedded link;
    /// nil if it is a link and no object can be linked to.
    func randomValue(_ property: StoredProperty) -> StoreValue? {
        switch property.type {
        case .any: return randomAny()
        case .object:
            if property.isOptional && rng.chance(20) { return .null }
            return randomLink(to: property.objectClassName!)
        default: return randomScalar(property.type, optional: property.isOptional)
        }
    }

    func randomPrimaryKey(_ name: String) -> StoreValue {
        switch name {
        case StoreModelClasses.intKeyed: .int(Int64(rng.int(-20...20)))
        case StoreModelClasses.stringKeyed: .string("k\(rng.int(0...25))")
        default: .objectId(randomObjectId())
        }
    }

    func isEmbeddedLink(_ property: StoredProperty) -> Bool {
        property.type == .object && property.objectClassName == StoreModelClasses.note
    }

    func randomMapKey() -> String { rng.element(["a", "b", "c", "ab", "é", ""]) }

    // MARK: Operations

    func randomOperation() throws {
        let roll = rng.int(0..<100)
        switch roll {
        case 0..<22: try insertRandomObject()
        case 22..<38: try setRandomSingleField()
        case 38..<52: try editRandomList()
        case 52..<60: try editRandomSet()
        case 60..<68: try editRandomMap()
        case 68..<72: try replaceRandomCollection()
        case 72..<82: try deleteRandomObject()
        case 82..<87: try changeDeletedObject()
        case 87..<92: try insertDuplicatePrimaryKey()
        case 92..<95: try changePrimaryKey()
        case 95..<98: try setFieldInBulk()
        case 98: if rng.chance(25) { try deleteAllObjects() }
        default: try insertRandomObject()
        }
    }

    /// A random live object of a class among `names` (every top-level class if nil).
    func randomObject(among names: [String] = StoreModelClasses.topLevel) -> (name: String, key: ObjectKey)? {
        let candidates = names.filter { !(state.objects[$0]?.isEmpty ?? true) }
        guard !candidates.isEmpty else { return nil }
        let name = rng.element(candidates)
        return (name, rng.element(state.objects[name]!.keys.sorted()))
    }

    /// Inserts an object of a random top-level class, as the API inserts one: scalars in the
    /// row, then links, `AnyRealmValue`s and collections through their setters.
    func insertRandomObject() throws {
        let name = rng.element(StoreModelClasses.topLevel)
        let table = table(name)
        var primaryKey: StoreValue?
        if table.primaryKeyField != nil {
            var value = randomPrimaryKey(name)
            for _ in 0..<5 where primaryKeyHolder(name, value) != nil { value = randomPrimaryKey(name) }
            guard primaryKeyHolder(name, value) == nil else { return }
            primaryKey = value
        }
        _ = try insertObject(name, primaryKey: primaryKey)
    }

    /// The live object of class `name` whose primary key is `value`, in the model.
    func primaryKeyHolder(_ name: String, _ value: StoreValue) -> ObjectKey? {
        guard let field = table(name).primaryKeyField else { return nil }
        return state.objects[name]!.first { _, fields in
            if case .single(let held) = fields[field] { return sameStoredValue(held, value) }
            return false
        }?.key
    }

    /// Inserts an object of class `name` (an embedded one too) with random fields, and returns
    /// its key.
    func insertObject(_ name: String, primaryKey: StoreValue?) throws -> ObjectKey {
        let table = table(name)
        let properties = table.stored.properties
        var fields: [ModelField] = []
        var later: [(field: Int, content: ModelField)] = []
        var newFields: [NewField<ObjectLink>] = []
        for (field, property) in properties.enumerated() {
            switch property.collection {
            case .single:
                if property.isPrimary {
                    fields.append(.single(primaryKey!))
                    newFields.append(.stored(primaryKey!))
                } else if property.type == .object || property.type == .any {
                    let value = isEmbeddedLink(property) ? StoreValue.null : randomValue(property) ?? .null
                    fields.append(.single(.null))
                    if value._isNull {
                        newFields.append(.empty)
                    } else {
                        newFields.append(.later)
                        later.append((field, .single(value)))
                    }
                } else {
                    let value = randomScalar(property.type, optional: property.isOptional)
                    fields.append(.single(value))
                    newFields.append(.stored(value))
                }
            case .list:
                fields.append(.list([]))
                let elements = isEmbeddedLink(property) ? [] : (0..<rng.int(0...3)).compactMap { _ in randomValue(property) }
                newFields.append(elements.isEmpty ? .empty : .later)
                if !elements.isEmpty { later.append((field, .list(elements))) }
            case .set:
                fields.append(.set([:]))
                let elements = (0..<rng.int(0...3)).compactMap { _ in randomValue(property) }
                newFields.append(elements.isEmpty ? .empty : .later)
                if !elements.isEmpty { later.append((field, .list(elements))) }
            case .map:
                fields.append(.map([:]))
                let entries =
                    isEmbeddedLink(property) ? [] : (0..<rng.int(0...3)).compactMap { _ in randomValue(property).map { (randomMapKey(), $0) } }
                newFields.append(entries.isEmpty ? .empty : .later)
                if !entries.isEmpty { later.append((field, .map(Dictionary(entries, uniquingKeysWith: { $1 })))) }
            }
        }
        var probe: PrimaryKeyProbe?
        if let primaryKey, rng.chance(50) { probe = try store.probePrimaryKey(table, primaryKey, in: write) }
        let key = try store.insertObject(table, primaryKey: primaryKey, probed: probe, in: write) { newFields[$0] }
        if table.primaryKeyField == nil {
            let expected = state.nextKey[name]!
            try #require(key.rawValue == expected, "\(context): a new \(name) got key \(key), not \(expected): keys are never reused")
            state.nextKey[name] = expected + 1
        } else {
            try #require(state.objects[name]![key] == nil, "\(context): a new \(name) got the key \(key) of a live object")
        }
        state.objects[name]![key] = fields
        state.deleted[name]![key] = nil
        for (field, content) in later {
            switch content {
            case .single(let value): try setSingle(name, key, field, value)
            case .list(let elements):
                for element in elements {
                    if properties[field].collection == .list {
                        try listInsert(name, key, field, element, at: listCount(name, key, field))
                    } else {
                        try setInsert(name, key, field, element)
                    }
                }
            case .map(let entries):
                for (mapKey, value) in entries.sorted(by: { $0.key < $1.key }) { try mapSet(name, key, field, mapKey, value) }
            case .set: preconditionFailure("unreachable")
            }
        }
        if name == StoreModelClasses.plain {
            if rng.chance(40) { try setSingle(name, key, properties.firstIndex { $0.name == "note" }!, .object(try newNote())) }
            if rng.chance(40) {
                let notesField = properties.firstIndex { $0.name == "notes" }!
                for index in 0..<rng.int(1...3) { try listInsert(name, key, notesField, .object(try newNote()), at: index) }
            }
            if rng.chance(40) {
                let noteMapField = properties.firstIndex { $0.name == "noteMap" }!
                for _ in 0..<rng.int(1...3) { try mapSet(name, key, noteMapField, randomMapKey(), .object(try newNote())) }
            }
        }
        return key
    }

    /// A new embedded object, to be linked at once from its owner.
    func newNote() throws -> ObjectLink {
        let key = try insertObject(StoreModelClasses.note, primaryKey: nil)
        return ObjectLink(table: table(StoreModelClasses.note).id, key: key)
    }

    func fields(_ name: String, _ key: ObjectKey) -> [ModelField] { state.objects[name]![key]! }

    func listCount(_ name: String, _ key: ObjectKey, _ field: Int) -> Int { fields(name, key)[field].count }

    // MARK: Operations on the store and the model together

    /// Sets single field `field` of an object, through `setField` or `setPayload`.
    func setSingle(_ name: String, _ key: ObjectKey, _ field: Int, _ value: StoreValue) throws {
        let table = table(name)
        let property = table.stored.properties[field]
        if rng.chance(50) {
            try store.setField(table, key, field, .single(value), in: write)
        } else {
            try store.setPayload(table, key, field, ObjectStore.payload(of: value, as: property.type), in: write)
        }
        guard case .single(let old) = fields(name, key)[field] else { preconditionFailure("not a single field") }
        state.objects[name]![key]![field] = .single(value)
        // An embedded object whose link is replaced is deleted.
        if isEmbeddedLink(property), case .object(let oldLink) = old, !sameStoredValue(old, value) {
            modelDelete(StoreModelClasses.note, oldLink.key)
        }
    }

    func listInsert(_ name: String, _ key: ObjectKey, _ field: Int, _ element: StoreValue, at index: Int) throws {
        try store.listInsert(table(name), key, field, element, at: index, in: write)
        guard case .list(var elements) = fields(name, key)[field] else { preconditionFailure("not a list") }
        elements.insert(element, at: index)
        state.objects[name]![key]![field] = .list(elements)
    }

    func setInsert(_ name: String, _ key: ObjectKey, _ field: Int, _ element: StoreValue) throws {
        let inserted = try store.setInsert(table(name), key, field, element, in: write)
        guard case .set(var elements) = fields(name, key)[field] else { preconditionFailure("not a set") }
        let indexKey = IndexKey.encode(element)
        try #require(inserted == (elements[indexKey] == nil), "\(context): setInsert of \(describeStoredValue(element)) returned \(inserted)")
        if elements[indexKey] == nil { elements[indexKey] = element }
        state.objects[name]![key]![field] = .set(elements)
    }

    func mapSet(_ name: String, _ key: ObjectKey, _ field: Int, _ mapKey: String, _ value: StoreValue) throws {
        try store.mapSet(table(name), key, field, mapKey, value, in: write)
        guard case .map(var entries) = fields(name, key)[field] else { preconditionFailure("not a map") }
        let old = entries[mapKey]
        entries[mapKey] = value
        state.objects[name]![key]![field] = .map(entries)
        // An embedded object whose key is given another value is deleted.
        if isEmbeddedLink(table(name).stored.properties[field]), case .object(let oldLink) = old, !sameStoredValue(old!, value) {
            modelDelete(StoreModelClasses.note, oldLink.key)
        }
    }

    /// The fields of `name` of `collection` kind (single fields: not the primary key).
    func fieldIndices(_ name: String, _ collection: CollectionKind) -> [Int] {
        table(name).stored.properties.indices.filter {
            let property = table(name).stored.properties[$0]
            return property.collection == collection && !property.isPrimary
        }
    }

    func setRandomSingleField() throws {
        guard let (name, key) = randomObject(among: StoreModelClasses.topLevel + [StoreModelClasses.note]) else { return }
        let field = rng.element(fieldIndices(name, .single))
        let property = table(name).stored.properties[field]
        let value: StoreValue
        if isEmbeddedLink(property) {
            value = rng.chance(25) ? .null : .object(try newNote())
        } else if rng.chance(10), case .single(let current) = fields(name, key)[field] {
            value = current  // The same value again: a change that changes nothing.
        } else {
            guard let random = randomValue(property) else { return }
            value = random
        }
        try setSingle(name, key, field, value)
    }

    func editRandomList() throws {
        guard let (name, key) = randomObject(among: [StoreModelClasses.plain, StoreModelClasses.intKeyed]) else { return }
        let field = rng.element(fieldIndices(name, .list))
        let table = table(name)
        let property = table.stored.properties[field]
        let embedded = isEmbeddedLink(property)
        guard case .list(var elements) = fields(name, key)[field] else { preconditionFailure("not a list") }
        let count = elements.count
        func newElement() throws -> StoreValue? { embedded ? .object(try newNote()) : randomValue(property) }
        switch rng.int(0..<6) {
        case 0, 1:
            let index = rng.int(0...count)
            guard let element = try newElement() else { return }
            try listInsert(name, key, field, element, at: index)
            return
        case 2:
            guard count > 0 else { return }
            let index = rng.int(0..<count)
            try store.listRemove(table, key, field, at: index, in: write)
            let removed = elements.remove(at: index)
            state.objects[name]![key]![field] = .list(elements)
            if embedded, case .object(let link) = removed { modelDelete(StoreModelClasses.note, link.key) }
        case 3:
            guard count > 0 else { return }
            let from = rng.int(0..<count)
            let to = rng.int(0..<count)
            try store.listMove(table, key, field, from: from, to: to, in: write)
            elements.insert(elements.remove(at: from), at: to)
            state.objects[name]![key]![field] = .list(elements)
        case 4:
            guard count > 0 else { return }
            let i = rng.int(0..<count)
            let j = rng.int(0..<count)
            try store.listSwap(table, key, field, i, j, in: write)
            elements.swapAt(i, j)
            state.objects[name]![key]![field] = .list(elements)
        default:
            guard count > 0, let element = try newElement() else { return }
            let index = rng.int(0..<count)
            try store.listSet(table, key, field, element, at: index, in: write)
            let replaced = elements[index]
            elements[index] = element
            state.objects[name]![key]![field] = .list(elements)
            if embedded, case .object(let link) = replaced { modelDelete(StoreModelClasses.note, link.key) }
        }
        // A run of insertions at one place uses up the position numbers between two elements,
        // and the list spreads them out again.
        if rng.chance(5), !embedded {
            let index = rng.int(0...listCount(name, key, field))
            for _ in 0..<rng.int(20...45) {
                guard let element = randomValue(property) else { break }
                try listInsert(name, key, field, element, at: index)
            }
        }
    }

    func editRandomSet() throws {
        guard let (name, key) = randomObject(among: [StoreModelClasses.plain, StoreModelClasses.stringKeyed]) else { return }
        let field = rng.element(fieldIndices(name, .set))
        let table = table(name)
        guard case .set(var elements) = fields(name, key)[field] else { preconditionFailure("not a set") }
        if rng.chance(60) || elements.isEmpty {
            guard let element = randomValue(table.stored.properties[field]) else { return }
            try setInsert(name, key, field, element)
        } else {
            // An element there, or (sometimes) one that may not be.
            let present = elements.keys.sorted { $0.lexicographicallyPrecedes($1) }
            let element = rng.chance(80) ? elements[rng.element(present)]! : randomValue(table.stored.properties[field]) ?? .null
            let removed = try store.setRemove(table, key, field, element, in: write)
            let indexKey = IndexKey.encode(element)
            try #require(removed == (elements[indexKey] != nil), "\(context): setRemove of \(describeStoredValue(element)) returned \(removed)")
            elements[indexKey] = nil
            state.objects[name]![key]![field] = .set(elements)
        }
    }

    func editRandomMap() throws {
        guard let (name, key) = randomObject(among: [StoreModelClasses.plain, StoreModelClasses.oidKeyed]) else { return }
        let field = rng.element(fieldIndices(name, .map))
        let table = table(name)
        guard case .map(var entries) = fields(name, key)[field] else { preconditionFailure("not a map") }
        let mapKey = randomMapKey()
        let embedded = isEmbeddedLink(table.stored.properties[field])
        if rng.chance(65) {
            let value: StoreValue
            if embedded {
                value = rng.chance(20) ? .null : .object(try newNote())
            } else {
                guard let random = randomValue(table.stored.properties[field]) else { return }
                value = random
            }
            try mapSet(name, key, field, mapKey, value)
        } else {
            let removed = try store.mapRemove(table, key, field, mapKey, in: write)
            try #require(removed == (entries[mapKey] != nil), "\(context): mapRemove of \"\(mapKey)\" returned \(removed)")
            let old = entries.removeValue(forKey: mapKey)
            state.objects[name]![key]![field] = .map(entries)
            // The embedded object the key held is deleted with it.
            if embedded, case .object(let link) = old { modelDelete(StoreModelClasses.note, link.key) }
        }
    }

    /// Replaces a whole collection with `setField`, as assigning a collection does.
    func replaceRandomCollection() throws {
        guard let (name, key) = randomObject(among: [StoreModelClasses.plain, StoreModelClasses.intKeyed, StoreModelClasses.stringKeyed])
        else { return }
        let table = table(name)
        let field = rng.element(table.stored.properties.indices.filter { table.stored.properties[$0].collection != .single })
        let property = table.stored.properties[field]
        if isEmbeddedLink(property) {
            // A list or map of embedded objects is given new ones; the ones it held are deleted.
            let old = fields(name, key)[field].links
            if property.collection == .map {
                // Each key once: a note made for a key given twice would be linked from nowhere.
                let mapKeys = Set((0..<rng.int(0...3)).map { _ in randomMapKey() }).sorted()
                var entries: [(key: String, value: StoreValue)] = []
                for mapKey in mapKeys { entries.append((mapKey, rng.chance(20) ? .null : .object(try newNote()))) }
                try store.setField(table, key, field, .entries(entries), in: write)
                state.objects[name]![key]![field] = .map(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }))
            } else {
                var notes: [StoreValue] = []
                for _ in 0..<rng.int(0...3) { notes.append(.object(try newNote())) }
                try store.setField(table, key, field, .elements(notes), in: write)
                state.objects[name]![key]![field] = .list(notes)
            }
            for link in old { modelDelete(StoreModelClasses.note, link.key) }
            return
        }
        switch property.collection {
        case .list, .set:
            let elements = (0..<rng.int(0...4)).compactMap { _ in randomValue(property) }
            try store.setField(table, key, field, .elements(elements), in: write)
            if property.collection == .list {
                state.objects[name]![key]![field] = .list(elements)
            } else {
                var set: [[UInt8]: StoreValue] = [:]
                for element in elements where set[IndexKey.encode(element)] == nil { set[IndexKey.encode(element)] = element }
                state.objects[name]![key]![field] = .set(set)
            }
        case .map:
            let entries = (0..<rng.int(0...4)).compactMap { _ in randomValue(property).map { (key: randomMapKey(), value: $0) } }
            try store.setField(table, key, field, .entries(entries), in: write)
            var map: [String: StoreValue] = [:]
            for entry in entries { map[entry.key] = entry.value }
            state.objects[name]![key]![field] = .map(map)
        case .single: preconditionFailure("unreachable")
        }
    }

    /// Deletes a random object: a top-level one, or sometimes an embedded one, which leaves its
    /// owner's field (a list element goes, a map value becomes nil, a link becomes nil).
    func deleteRandomObject() throws {
        let embedded = rng.chance(25)
        guard let (name, key) = randomObject(among: embedded ? [StoreModelClasses.note] : StoreModelClasses.topLevel) else { return }
        try store.deleteObject(table(name), key, in: write)
        modelDelete(name, key)
    }

    /// Sets one plain field of many objects at once (`setPayloads`), as `setValue(_:forKey:)` on
    /// a collection does. A deleted object among them makes it throw `.invalidObject`, after
    /// which the transaction keeps nothing: the run cancels it.
    func setFieldInBulk() throws {
        guard let (name, _) = randomObject(among: [StoreModelClasses.plain, StoreModelClasses.oidKeyed]) else { return }
        let table = table(name)
        let field = rng.element(
            fieldIndices(name, .single).filter { table.stored.properties[$0].type != .object && table.stored.properties[$0].type != .any })
        let property = table.stored.properties[field]
        let value = randomScalar(property.type, optional: property.isOptional)
        let payload = ObjectStore.payload(of: value, as: property.type)
        guard ObjectStore.setsInBulk(table, field, payload) else { return }
        let live = state.objects[name]!.keys.sorted()
        var keys = live.filter { _ in rng.chance(50) }.shuffled(using: &rng)
        let gone = state.deleted[name]!.keys.filter { state.objects[name]![$0] == nil }.sorted()
        let failing = !gone.isEmpty && rng.chance(10)
        if failing { keys.insert(rng.element(gone), at: rng.int(0...keys.count)) }
        let all = !failing && rng.chance(30)
        var failure: StoreError?
        do throws(StoreError) {
            try store.setPayloads(table, all ? .all : .keys(keys), field, payload, in: write)
        } catch {
            failure = error
        }
        if let failure {
            try #require(failing && failure.kind == .invalidObject, "\(context): setting \(name) '\(property.name)' in bulk threw \(failure)")
            expectedErrors += 1
            abandonsWrite = true
            return
        }
        try #require(!failing, "\(context): setting \(name) '\(property.name)' in bulk on a deleted object did not throw")
        for key in all ? live : keys { state.objects[name]![key]![field] = .single(value) }
    }

    /// Deletes every object of every class; the schema stays, and no object key is handed out
    /// again.
    func deleteAllObjects() throws {
        try store.deleteAllObjects(in: write)
        for name in StoreModelClasses.declared.map(\.name) {
            for (key, fields) in state.objects[name]! {
                if let field = table(name).primaryKeyField, case .single(let primaryKey) = fields[field] {
                    state.deleted[name]![key] = primaryKey
                } else {
                    state.deleted[name]![key] = .null
                }
            }
            state.objects[name] = [:]
        }
    }

    /// Changing a deleted object throws `.invalidObject`, and changes nothing.
    func changeDeletedObject() throws {
        let candidates = StoreModelClasses.topLevel.flatMap { name in
            state.deleted[name]!.keys.filter { state.objects[name]![$0] == nil }.map { (name, $0) }
        }
        guard !candidates.isEmpty else { return }
        let (name, key) = rng.element(candidates.sorted { ($0.0, $0.1.rawValue) < ($1.0, $1.1.rawValue) })
        let table = table(name)
        let listFields = fieldIndices(name, .list)
        let singleFields = fieldIndices(name, .single).filter { table.stored.properties[$0].type != .object }
        do throws(StoreError) {
            if !listFields.isEmpty, rng.chance(50) {
                try store.listInsert(table, key, rng.element(listFields), .null, at: 0, in: write)
            } else {
                let field = rng.element(singleFields)
                guard let value = randomValue(table.stored.properties[field]) else { return }
                try store.setField(table, key, field, .single(value), in: write)
            }
            Issue.record("\(context): changing deleted \(name) \(key) did not throw")
        } catch {
            try #require(error.kind == .invalidObject, "\(context): changing deleted \(name) \(key) threw \(error.kind): \(error)")
            expectedErrors += 1
        }
    }

    /// Inserting an object with a primary key another object has throws `.primaryKeyExists`
    /// before anything is written.
    func insertDuplicatePrimaryKey() throws {
        guard let (name, key) = randomObject(among: [StoreModelClasses.intKeyed, StoreModelClasses.stringKeyed, StoreModelClasses.oidKeyed])
        else { return }
        let table = table(name)
        let field = table.primaryKeyField!
        guard case .single(let primaryKey) = fields(name, key)[field] else { preconditionFailure("not a single field") }
        do throws(StoreError) {
            _ = try store.insertObject(table, primaryKey: primaryKey, probed: nil, in: write) { field -> NewField<ObjectLink> in
                field == table.primaryKeyField ? .stored(primaryKey) : .empty
            }
            Issue.record("\(context): a second \(name) with primary key \(describeStoredValue(primaryKey)) was inserted")
        } catch {
            try #require(error.kind == .primaryKeyExists, "\(context): a duplicate primary key threw \(error.kind): \(error)")
            expectedErrors += 1
        }
    }

    /// Changing a primary key outside a migration throws `.invalidArgument`; setting the same
    /// value changes nothing.
    func changePrimaryKey() throws {
        guard let (name, key) = randomObject(among: [StoreModelClasses.intKeyed, StoreModelClasses.stringKeyed, StoreModelClasses.oidKeyed])
        else { return }
        let table = table(name)
        let field = table.primaryKeyField!
        guard case .single(let current) = fields(name, key)[field] else { preconditionFailure("not a single field") }
        let value = rng.chance(30) ? current : randomPrimaryKey(name)
        do throws(StoreError) {
            try store.setField(table, key, field, .single(value), in: write)
            #expect(sameStoredValue(value, current), "\(context): the primary key of \(name) \(key) changed outside a migration")
        } catch {
            try #require(!sameStoredValue(value, current), "\(context): setting the same primary key threw \(error)")
            try #require(error.kind == .invalidArgument, "\(context): changing a primary key threw \(error.kind): \(error)")
            expectedErrors += 1
        }
    }

    /// Deletes object `key` of `name` from the model, as the store deletes it: links to it
    /// become null or leave their collections, and the embedded objects it owns are deleted.
    func modelDelete(_ name: String, _ key: ObjectKey) {
        guard let fields = state.objects[name]![key] else { return }
        state.objects[name]![key] = nil
        let properties = table(name).stored.properties
        if let field = table(name).primaryKeyField, case .single(let primaryKey) = fields[field] {
            state.deleted[name]![key] = primaryKey
        } else {
            state.deleted[name]![key] = .null
        }
        let target = ObjectLink(table: table(name).id, key: key)
        for (source, objects) in state.objects {
            for (sourceKey, sourceFields) in objects where sourceFields.contains(where: { $0.links.contains(target) }) {
                state.objects[source]![sourceKey] = sourceFields.map { $0.removing(target) }
            }
        }
        for (field, property) in properties.enumerated() where isEmbeddedLink(property) {
            for link in fields[field].links { modelDelete(StoreModelClasses.note, link.key) }
        }
    }

    // MARK: Checking

    /// Compares everything the store reads with the model.
    func check(_ when: String) throws {
        checks += 1
        let place = "\(context), \(when)"
        var expectedBacklinks: [UInt32: [[UInt8]: UInt32]] = [:]
        for (name, table) in harness.tables.sorted(by: { $0.key < $1.key }) {
            let objects = state.objects[name]!
            let keys = try store.objectKeys(table)
            try #require(keys == objects.keys.sorted(), "\(place): the keys of \(name) are \(keys), the model's \(objects.keys.sorted())")
            var blobs = 0
            var collectionEntries = Array(repeating: 0, count: table.stored.properties.count)
            for key in keys {
                let fields = objects[key]!
                for (field, property) in table.stored.properties.enumerated() {
                    let content = store.content(table, key, field) { .object(ObjectLink(table: $0, key: $1)) }
                    let expected = fields[field]
                    let label = "\(place): \(name) \(key) '\(property.name)'"
                    switch (content, expected) {
                    case (.single(let value), .single(let model)):
                        try #require(
                            sameStoredValue(value, model), "\(label) reads \(describeStoredValue(value)), the model \(describeStoredValue(model))")
                        if let payload = ObjectStore.payload(of: model, as: property.type), payload.count > ObjectStore.inlinePayloadLimit {
                            blobs += 1
                        }
                    case (.elements(let values), .list(let model)):
                        try #require(
                            sameStoredValues(values, model),
                            "\(label) reads \(values.map(describeStoredValue)), the model \(model.map(describeStoredValue))")
                    case (.elements(let values), .set(let model)):
                        let ordered = model.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { model[$0]! }
                        try #require(
                            sameStoredValues(values, ordered),
                            "\(label) reads \(values.map(describeStoredValue)), the model \(ordered.map(describeStoredValue))")
                    case (.entries(let entries), .map(let model)):
                        let ordered = model.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
                        try #require(
                            entries.map(\.key) == ordered && sameStoredValues(entries.map(\.value), ordered.map { model[$0]! }),
                            "\(label) reads \(entries.map { "\($0.key): \(describeStoredValue($0.value))" }), the model \(ordered.map { "\($0): \(describeStoredValue(model[$0]!))" })"
                        )
                    default:
                        Issue.record("\(label) reads \(content), a field of another kind than the model's")
                    }
                    if property.collection != .single {
                        let count = store.collectionCount(table, key, field)
                        try #require(count == expected.count, "\(label) counts \(count) elements, the model \(expected.count)")
                        collectionEntries[field] += expected.count
                    }
                    for link in expected.links {
                        expectedBacklinks[link.table, default: [:]][
                            Backlinks.key(link.key, from: table.id, field: field, source: key), default: 0] += 1
                    }
                }
            }
            let storedBlobs = try store.reader.count(table.blobsTree)
            try #require(storedBlobs == blobs, "\(place): \(name) keeps \(storedBlobs) blobs, the model \(blobs)")
            for (field, tree) in table.collectionTrees.enumerated() {
                guard let tree else { continue }
                let entries = try store.reader.count(tree)
                try #require(entries == collectionEntries[field], "\(place): \(tree) holds \(entries) entries, the model \(collectionEntries[field])")
            }
            try checkPrimaryKeys(name, table, place)
            try checkIndexes(name, table, place)
        }
        for (name, table) in harness.tables.sorted(by: { $0.key < $1.key }) {
            var stored: [[UInt8]: UInt32] = [:]
            try store.reader.scan(table.backlinksTree, from: []) { key, value in
                stored[Array(key)] = value.loadUnaligned(as: UInt32.self).littleEndian
                return true
            }
            let expected = expectedBacklinks[table.id] ?? [:]
            if stored != expected {
                func describe(_ entries: [[UInt8]: UInt32]) -> String {
                    entries.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { key in
                        key.withUnsafeBytes { bytes in
                            let source = Backlinks.source(bytes)!
                            return
                                "\(ObjectKey.read(bytes)) ← \(self.name(of: source.table)) \(ObjectKey.read(bytes, at: 14)) field \(source.field) ×\(entries[key]!)"
                        }
                    }.joined(separator: ", ")
                }
                Issue.record("\(place): the backlinks of \(name) are [\(describe(stored))], the model's [\(describe(expected))]")
                throw HarnessError("backlinks differ")
            }
        }
    }

    /// The changes a committed write recorded (for change streams) cover what it changed: the
    /// objects it inserted and deleted exactly, and every field it changed of the others.
    func checkChanges(_ changes: ChangeSet) throws {
        for (name, table) in harness.tables.sorted(by: { $0.key < $1.key }) {
            let before = committed.objects[name]!
            let after = state.objects[name]!
            let recorded = changes.changes(of: table.id)
            let inserted = Set(after.keys.filter { before[$0] == nil })
            let deleted = Set(before.keys.filter { after[$0] == nil })
            try #require(
                recorded.inserted == inserted,
                "\(context): the write recorded \(name) \(recorded.inserted.sorted()) inserted, the model \(inserted.sorted())")
            try #require(
                recorded.deleted == deleted,
                "\(context): the write recorded \(name) \(recorded.deleted.sorted()) deleted, the model \(deleted.sorted())")
            for (key, fields) in after {
                guard let old = before[key] else { continue }
                let fieldsRecorded = recorded.modified[key] ?? []
                for field in fields.indices where !sameField(old[field], fields[field]) {
                    try #require(
                        fieldsRecorded.contains(field) || fieldsRecorded.contains(ChangeSet.ClassChanges.allFields),
                        "\(context): the write changed \(name) \(key) '\(table.stored.properties[field].name)' and recorded \(fieldsRecorded.sorted())"
                    )
                }
            }
        }
    }

    func sameField(_ a: ModelField, _ b: ModelField) -> Bool {
        switch (a, b) {
        case (.single(let x), .single(let y)): sameStoredValue(x, y)
        case (.list(let x), .list(let y)): sameStoredValues(x, y)
        case (.set(let x), .set(let y)): x.keys == y.keys
        case (.map(let x), .map(let y)): x.keys == y.keys && x.keys.allSatisfy { sameStoredValue(x[$0]!, y[$0]!) }
        default: false
        }
    }

    /// Every live object is found by its primary key; the primary keys of deleted objects find
    /// nothing (unless an object has it again).
    func checkPrimaryKeys(_ name: String, _ table: Table, _ place: String) throws {
        guard let field = table.primaryKeyField else { return }
        for (key, fields) in state.objects[name]! {
            guard case .single(let primaryKey) = fields[field] else { continue }
            let found = try store.objectKey(table, primaryKey: primaryKey)
            try #require(
                found == key, "\(place): primary key \(describeStoredValue(primaryKey)) of \(name) finds \(String(describing: found)), not \(key)")
        }
        for (key, primaryKey) in state.deleted[name]! where state.objects[name]![key] == nil {
            let holder = primaryKeyHolder(name, primaryKey)
            let found = try store.objectKey(table, primaryKey: primaryKey)
            try #require(
                found == holder,
                "\(place): primary key \(describeStoredValue(primaryKey)) of deleted \(name) \(key) finds \(String(describing: found)), the model \(String(describing: holder))"
            )
        }
    }

    /// Each index lists every object once, and a lookup finds the first object (in key order)
    /// holding each value.
    func checkIndexes(_ name: String, _ table: Table, _ place: String) throws {
        for (field, tree) in table.fieldIndexTrees.enumerated() {
            guard let tree else { continue }
            let objects = state.objects[name]!
            let entries = try store.reader.count(tree)
            try #require(entries == objects.count, "\(place): index \(tree) holds \(entries) entries for \(objects.count) objects")
            var first: [[UInt8]: (key: ObjectKey, value: StoreValue)] = [:]
            for key in objects.keys.sorted() {
                guard case .single(var value) = objects[key]![field] else { continue }
                if case .object = value { value = .null }  // Links are not indexed.
                let indexKey = IndexKey.encode(value)
                if first[indexKey] == nil { first[indexKey] = (key, value) }
            }
            for (indexKey, holder) in first {
                let found = try indexKey.withUnsafeBytes { bytes throws(StorageError) in try store.firstIndexed(tree, value: bytes) }
                try #require(
                    found == holder.key,
                    "\(place): index \(tree) finds \(String(describing: found)) for \(describeStoredValue(holder.value)), not \(holder.key)")
            }
            let type = table.fieldTypes[field]
            let absent = IndexKey.encode(randomScalar(type == .any ? rng.element(StoreModelClasses.scalarTypes) : type, optional: false))
            if first[absent] == nil {
                let found = try absent.withUnsafeBytes { bytes throws(StorageError) in try store.firstIndexed(tree, value: bytes) }
                try #require(found == nil, "\(place): index \(tree) finds \(String(describing: found)) for a value no object holds")
            }
        }
    }
}

@Suite("ObjectStoreModel")
struct ObjectStoreModelTests {
    @Test("random writes, cancels and reopens leave the store reading what the model holds", arguments: StoreModelBacking.allCases)
    func storeMatchesTheModel(backing: StoreModelBacking) throws {
        let operations = TestEnvironment.count("BURROW_MODEL_OPS", default: 500)
        let base = TestSeed.make("ObjectStoreModel, \(backing), \(operations) operations")
        let runner = try StoreModelRunner(backing: backing, seed: base)
        try runner.run(operations: operations)
        let objects = runner.committed.objects.values.reduce(0) { $0 + $1.count }
        print(
            "ObjectStoreModel \(backing): \(runner.commits) commits, \(runner.cancels) cancelled, \(runner.reopens) reopens,",
            "\(runner.checks) checks, \(runner.expectedErrors) expected errors, \(objects) objects at the end")
        #expect(runner.commits > 0)
    }
}
