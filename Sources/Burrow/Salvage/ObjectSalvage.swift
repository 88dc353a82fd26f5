import BurrowStorage
import BurrowStore
import Foundation

/// A value of a salvaged object, ready to be written out: plain values as Swift values, links
/// by the class and key of the object they link to.
package enum SalvagedValue: Sendable {
    case null
    /// A `Bool`, `Int`, `Float`, `Double`, `String`, `Data`, `Date`, `ObjectId`, `UUID` or
    /// `Decimal128`.
    case plain(any Sendable)
    /// A link to a salvaged top-level object, with its primary key when its class has one.
    case link(className: String, key: UInt64, primaryKey: (any Sendable)?)
    /// A link to a salvaged embedded object: `ObjectSalvage.embedded(_:key:)` gives it, and it
    /// has no other parent.
    case embedded(className: String, key: UInt64)
    /// The elements of a list or a set.
    case elements([SalvagedValue])
    /// The entries of a map, in key order.
    case entries([(String, SalvagedValue)])
    /// A list inside an `AnyRealmValue`.
    case list([SalvagedValue])
    /// A dictionary inside an `AnyRealmValue`, in key order.
    case dictionary([(String, SalvagedValue)])
}

/// A salvaged object: its key in the damaged file and its values, one per property of its
/// class's `ObjectSchema`, in order.
package struct SalvagedObject: Sendable {
    package var key: UInt64
    package var values: [SalvagedValue]
}

/// What the salvage of one class recovered and lost.
package struct ClassSalvage: Sendable, Equatable {
    package var className: String
    package var isEmbedded: Bool
    /// How many objects the file records for the class.
    package var recorded: UInt64
    /// How many objects were recovered whole.
    package var recovered: Int
    /// Objects whose row was read but not all of it: a long value or collection elements on a
    /// damaged page, or a row that does not decode. They are not recovered.
    package var incomplete: Int
    /// The object-key ranges of the rows on damaged pages: from `lower` (inclusive; nil from
    /// the first) to `upper` (exclusive; nil to the last), with the number of objects the
    /// file records there.
    package var lostRanges: [(lower: UInt64?, upper: UInt64?, objects: UInt64?)]
    /// The name of the class's primary key when it is an `Int` and every object key of the
    /// class derives from it, in order, so that `primaryKey(ofObjectKey:)` turns `lostRanges`
    /// into primary keys; nil otherwise (a key that does not derive, after a collision or a
    /// migration that changed primary keys, is in the class's primary-key tree).
    package var intPrimaryKey: String?

    /// The `Int` primary key an object key of this class derives from (see `intPrimaryKey`).
    package func primaryKey(ofObjectKey key: UInt64) -> Int64 {
        Int64(bitPattern: key ^ (1 << 63))
    }

    /// How many of the objects the file records were not recovered.
    package var lost: UInt64 { recorded > UInt64(recovered) ? recorded - UInt64(recovered) : 0 }

    package static func == (a: ClassSalvage, b: ClassSalvage) -> Bool {
        a.className == b.className && a.isEmbedded == b.isEmbedded && a.recorded == b.recorded && a.recovered == b.recovered
            && a.incomplete == b.incomplete && a.lostRanges.elementsEqual(b.lostRanges) { $0 == $1 }
    }
}

/// What a salvage found and lost, beside the objects.
package struct SalvageReport: Sendable {
    /// The version salvaged.
    package var version: UInt64
    /// The check of the version's pages: every damaged page (up to its limit) and inconsistency.
    package var pages: VerifyReport
    /// Per class of the stored schema, in name order.
    package var classes: [ClassSalvage]
    /// Links to objects that were not recovered: set to null (a link or a map value) or left out
    /// (a list or a set element).
    package var droppedLinks: Int
    /// Trees that hold entries of a class the schema does not name (its schema entry was on a
    /// damaged page): what they hold cannot be read, and is lost. (Trees the catalog names on
    /// damaged pages are not known at all; the catalog's damaged pages are in `pages`.)
    package var unknownTrees: [String]
    /// Whether pages of the catalog were damaged: the trees it names there are unknown, and
    /// what they hold is lost.
    package var catalogDamaged: Bool
    /// Whether the stored schema's own pages (`schema` tree) were damaged: classes stored there
    /// may be missing from `classes`.
    package var schemaDamaged: Bool

    /// Whether every object the version holds was recovered, with every link: damage, if any,
    /// was only to pages the recovered objects do not need (indexes, primary keys and
    /// backlinks, which a new file builds again; the free tree).
    package var lostNothing: Bool {
        droppedLinks == 0 && unknownTrees.isEmpty && !schemaDamaged && classes.allSatisfy { $0.lost == 0 && $0.incomplete == 0 }
            && !catalogDamaged
    }

    /// Whether the version has no damage at all.
    package var isSound: Bool { pages.isSound }
}

/// The salvage of a damaged file: every object whose row, long values and collection elements
/// lie on sound pages, read through the schema the file stores (no Swift classes), with links to
/// objects that were lost set to null or left out of their collections, and a report of what
/// was lost. Reads one snapshot; never writes. It keeps the objects it recovered in memory.
///
/// Derived trees (indexes, the primary-key tree, backlinks) are not read: whoever writes the
/// objects into a new file builds them again. Nothing recurses on the data.
package final class ObjectSalvage {
    /// The classes of the stored schema that could be read, in name order.
    package let classes: [ObjectSchema]
    /// The stored schema version (0 if the schema's `info` could not be read).
    package let schemaVersion: UInt64
    /// The id each class of `classes` is stored with, which the names of its trees carry.
    package let classIds: [String: UInt32]
    package private(set) var report: SalvageReport
    private var objectsByClass: [String: [SalvagedObject]] = [:]
    private var embeddedByClass: [String: [UInt64: SalvagedObject]] = [:]

    /// The recovered top-level objects of class `className`, in key order.
    package func objects(of className: String) -> [SalvagedObject] { objectsByClass[className] ?? [] }

    /// The recovered embedded object of class `className` with key `key`.
    package func embedded(_ className: String, key: UInt64) -> SalvagedObject? { embeddedByClass[className]?[key] }

    /// Salvages the version `snapshot` reads, with a check of its pages listing at most
    /// `problemLimit` problems. Throws `RealmError` only for a failed read of the file itself
    /// (a system call), never for damage.
    package convenience init(_ snapshot: Snapshot, problemLimit: Int = 100) throws(RealmError) {
        try self.init(snapshot, checked: snapshot.check(problemLimit: problemLimit))
    }

    /// Salvages the version `snapshot` reads, whose check (`Snapshot.check`) is `pages`.
    /// Throws as `init(_:problemLimit:)` does.
    package init(_ snapshot: Snapshot, checked pages: VerifyReport) throws(RealmError) {
        let reader = SalvageReader(snapshot)
        let schema: FileSchema
        do {
            let stamp = try FileSchema.stamp(in: reader)
            schema = (try? FileSchema.load(from: reader, stamp: stamp, path: snapshot.name)) ?? .empty
        } catch {
            throw RealmError(error)
        }
        let stored = schema.classes.values.sorted { $0.name < $1.name }
        classes = stored.map(ObjectSchema.init)
        schemaVersion = schema.info.schemaVersion
        classIds = Dictionary(stored.map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
        report = SalvageReport(
            version: snapshot.version, pages: pages, classes: [], droppedLinks: 0, unknownTrees: [],
            catalogDamaged: !reader.catalogProblems.isEmpty,
            schemaDamaged: reader.skipped[TreeName.schema.string] != nil || reader.withSchemaInfoMissing(schema))
        var read = RawObjects(reader: reader, schema: schema)
        do {
            for storedClass in stored { try read.load(storedClass) }
        } catch {
            throw RealmError(error)
        }
        resolve(read, stored)
        let known = Set(stored.flatMap { read.treeNames(of: $0) } + [TreeName.schema.string, "sequences"])
        // Derived trees (indexes, primary keys, backlinks) hold nothing the salvage needs.
        let derived: Set<StoreTreeName.Family> = [.primaryKey, .index, .backlinks]
        report.unknownTrees = reader.treeNames.filter { name in
            guard !known.contains(name), reader.entries(ofTree: name) > 0 else { return false }
            return TreeName(parsing: name)?.storeTree.map { !derived.contains($0.family) } ?? true
        }
    }

    /// Builds the salvaged objects from the raw ones: links to objects that were not recovered
    /// are dropped. Embedded objects are kept as they are reached from top-level objects, each
    /// from its first parent only: a second link to one is dropped, so what is written is a
    /// tree under each top-level object, however the damaged file's links run.
    private func resolve(_ read: RawObjects, _ stored: [StoredClass]) {
        let byId = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var dropped = 0
        func target(_ link: RawLink) -> SalvagedValue? {
            guard let targetClass = byId[link.table], let object = read.whole[link.table]?[link.key] else { return nil }
            if targetClass.isEmbedded { return .embedded(className: targetClass.name, key: link.key) }
            let primaryKey = targetClass.properties.firstIndex(where: \.isPrimary).flatMap { field -> (any Sendable)? in
                if case .plain(let value) = object.fields[field] { return value }
                return nil
            }
            return .link(className: targetClass.name, key: link.key, primaryKey: primaryKey)
        }
        func element(_ raw: RawValue) -> SalvagedValue? {
            switch raw {
            case .link(let link):
                guard let resolved = target(link) else {
                    dropped += 1
                    return nil
                }
                return resolved
            case .plain(let plain): return .plain(plain)
            case .list, .dictionary: return nested(raw)
            case .null, .elements, .entries: return .null
            }
        }
        // A list or dictionary inside an `AnyRealmValue`: a lost link leaves a list, and is
        // nil in a dictionary, as a deleted one does.
        func nested(_ raw: RawValue) -> SalvagedValue? {
            NestedValues.fold(
                raw,
                shape: { (raw: RawValue) -> NestedValues.Shape<RawValue> in
                    switch raw {
                    case .list(let elements): .list(elements)
                    case .dictionary(let entries): .dictionary(entries.map { (key: $0.0, value: $0.1) })
                    default: .leaf
                    }
                },
                leaf: { element($0) },
                list: { .list($0.compactMap { $0 }) },
                dictionary: { .dictionary($0.map { ($0.key, $0.value ?? .null) }) })
        }
        func value(_ raw: RawValue) -> SalvagedValue {
            switch raw {
            case .elements(let elements): return .elements(elements.compactMap(element))
            case .entries(let entries): return .entries(entries.map { ($0.0, element($0.1) ?? .null) })
            default: return element(raw) ?? .null
            }
        }
        // Every object's values, with the number of links each dropped.
        var built: [UInt32: [UInt64: (object: SalvagedObject, dropped: Int)]] = [:]
        for storedClass in stored {
            for (key, object) in read.whole[storedClass.id] ?? [:] {
                let before = dropped
                let values = object.fields.map(value)
                built[storedClass.id, default: [:]][key] = (SalvagedObject(key: key, values: values), dropped - before)
            }
        }
        // From the top-level objects down: each embedded object once.
        var reached: Set<RawLink> = []
        var pending: [RawLink] = []
        var droppedLinks = 0
        func claim(_ value: SalvagedValue) -> SalvagedValue? {
            guard case .embedded(let className, let key) = value, let id = classIds[className] else { return value }
            guard reached.insert(RawLink(table: id, key: key)).inserted else {
                droppedLinks += 1
                return nil
            }
            pending.append(RawLink(table: id, key: key))
            return value
        }
        func claimAll(_ object: SalvagedObject) -> SalvagedObject {
            var object = object
            object.values = object.values.map { value in
                switch value {
                case .elements(let elements): return .elements(elements.compactMap(claim))
                case .entries(let entries): return .entries(entries.map { ($0.0, claim($0.1) ?? .null) })
                default: return claim(value) ?? .null
                }
            }
            return object
        }
        for storedClass in stored where !storedClass.isEmbedded {
            let objects = built[storedClass.id] ?? [:]
            objectsByClass[storedClass.name] = objects.keys.sorted().map { key in
                droppedLinks += objects[key]!.dropped
                return claimAll(objects[key]!.object)
            }
        }
        while let link = pending.popLast() {
            guard let (object, droppedHere) = built[link.table]?[link.key], let name = byId[link.table]?.name else { continue }
            droppedLinks += droppedHere
            embeddedByClass[name, default: [:]][link.key] = claimAll(object)
        }
        report.classes = stored.map { storedClass in
            ClassSalvage(
                className: storedClass.name, isEmbedded: storedClass.isEmbedded, recorded: read.recorded[storedClass.id] ?? 0,
                recovered: storedClass.isEmbedded ? embeddedByClass[storedClass.name]?.count ?? 0 : objectsByClass[storedClass.name]?.count ?? 0,
                incomplete: read.incomplete[storedClass.id] ?? 0, lostRanges: read.lostRanges[storedClass.id] ?? [],
                intPrimaryKey: Self.intPrimaryKey(of: storedClass, read.reader))
        }
        report.droppedLinks = droppedLinks
    }
}

extension ObjectSalvage {
    /// The name of `stored`'s primary key when it is an `Int` from which every object key of the
    /// class derives: none is in the primary-key tree, which holds the objects whose key is not
    /// the one their primary key derives (`ObjectKey(derivedFrom:)`).
    fileprivate static func intPrimaryKey(of stored: StoredClass, _ reader: SalvageReader) -> String? {
        guard !stored.isEmbedded, reader.entries(ofTree: TreeName(.primaryKey, stored.id).string) == 0 else { return nil }
        return stored.properties.first { $0.isPrimary && $0.type == .int && $0.collection == .single }?.name
    }
}

/// A link as stored: the class id and the object key it points at.
struct RawLink: Hashable {
    var table: UInt32
    var key: UInt64
}

/// A value as read from a row or a collection, its links not yet resolved.
enum RawValue {
    case null
    case plain(any Sendable)
    case link(RawLink)
    case elements([RawValue])
    case entries([(String, RawValue)])
    /// A list or dictionary inside an `AnyRealmValue` (a dictionary's entries in key order).
    case list([RawValue])
    case dictionary([(String, RawValue)])
}

/// The objects of a damaged version as read from their sound pages, before links are resolved:
/// only the objects whose row, long values and collection elements were all read.
struct RawObjects {
    struct Object {
        /// One value per stored property.
        var fields: [RawValue]
    }

    let reader: SalvageReader
    let schema: FileSchema
    /// The objects read whole, by class id and object key.
    var whole: [UInt32: [UInt64: Object]] = [:]
    /// Per class id: the objects the file records, those read in part, and the key ranges lost.
    var recorded: [UInt32: UInt64] = [:]
    var incomplete: [UInt32: Int] = [:]
    var lostRanges: [UInt32: [(lower: UInt64?, upper: UInt64?, objects: UInt64?)]] = [:]

    /// The names of the trees whose contents the salvage reads for `stored`.
    func treeNames(of stored: StoredClass) -> [String] {
        [TreeName(.rows, stored.id).string, TreeName(.blobs, stored.id).string]
            + stored.properties.indices.compactMap { Table.collectionTreeName(stored.id, $0, stored.properties[$0].collection)?.string }
    }

    /// Reads the objects of `stored`.
    mutating func load(_ stored: StoredClass) throws(StorageError) {
        let id = stored.id
        let rowsTree = TreeName(.rows, id)
        recorded[id] = UInt64(try reader.count(rowsTree))
        var objects: [UInt64: Object] = [:]
        var counts: [Int: [UInt64: UInt64]] = [:]
        var broken = Set<UInt64>()
        var failure: StorageError?
        let fieldCount = stored.properties.count
        let format = reader.rowFormat
        try reader.scan(rowsTree, from: []) { keyBytes, storedRow in
            guard keyBytes.count == 8 else { return true }
            let key = ObjectKey.read(keyBytes).rawValue
            let read = ObjectVerification.withSoundRow(storedRow, of: stored, format: format) { row -> Bool in
                var fields: [RawValue] = []
                fields.reserveCapacity(fieldCount)
                for (field, property) in stored.properties.enumerated() {
                    let payload = RowCodec.field(row, field)
                    if property.collection != .single {
                        if let payload, let count = ValueCodec.int(payload), count > 0 { counts[field, default: [:]][key] = UInt64(count) }
                        fields.append(property.collection == .map ? .entries([]) : .elements([]))
                        continue
                    }
                    guard let payload else {
                        fields.append(.null)
                        continue
                    }
                    if RowCodec.isExternal(payload, as: property.type) {
                        let value: RawValue??
                        do throws(StorageError) {
                            value = try reader.withValue(TreeName(.blobs, id), ObjectStore.blobKey(ObjectKey(key), field)) {
                                Self.decode($0, property, schema)
                            }
                        } catch {
                            failure = error
                            return false
                        }
                        guard let found = value, let decoded = found else {
                            broken.insert(key)
                            break
                        }
                        fields.append(decoded)
                    } else {
                        guard let decoded = Self.decode(payload, property, schema, inRow: true) else {
                            broken.insert(key)
                            break
                        }
                        fields.append(decoded)
                    }
                }
                if !broken.contains(key) { objects[key] = Object(fields: fields) }
                return true
            }
            guard let read else {
                broken.insert(key)
                return true
            }
            return read
        }
        if let failure { throw failure }
        for problem in reader.skipped[rowsTree.string] ?? [] {
            lostRanges[id, default: []].append(
                (problem.lowerKey.map(Self.objectKey), problem.upperKey.map(Self.objectKey), problem.lostEntries))
        }
        for (field, property) in stored.properties.enumerated() {
            guard let tree = Table.collectionTreeName(id, field, property.collection) else { continue }
            var read: [UInt64: [RawValue]] = [:]
            var mapKeys: [UInt64: [String]] = [:]
            try reader.scan(tree, from: []) { key, value in
                guard key.count >= 8 else { return true }
                let owner = ObjectKey.read(key).rawValue
                guard objects[owner] != nil else { return true }
                guard case .success(let parts) = CollectionEntry.parts(key: key, value: value, of: property),
                    let element = parts.element.isEmpty ? RawValue.null : Self.decode(parts.element, property, schema)
                else {
                    broken.insert(owner)
                    return true
                }
                if let mapKey = parts.mapKey {
                    guard let text = String(validating: mapKey, as: UTF8.self) else {
                        broken.insert(owner)
                        return true
                    }
                    mapKeys[owner, default: []].append(text)
                }
                read[owner, default: []].append(element)
                return true
            }
            for (owner, var object) in objects {
                let elements = read[owner] ?? []
                guard UInt64(elements.count) == counts[field]?[owner] ?? 0 else {
                    broken.insert(owner)
                    continue
                }
                if property.collection == .map {
                    object.fields[field] = .entries(Array(zip(mapKeys[owner] ?? [], elements)))
                } else {
                    object.fields[field] = .elements(elements)
                }
                objects[owner] = object
            }
        }
        for key in broken {
            objects.removeValue(forKey: key)
        }
        incomplete[id] = broken.count
        whole[id] = objects
    }

    /// `bytes`, a key bound in a rows tree, as an object key (a shorter bound is padded).
    static func objectKey(_ bytes: [UInt8]) -> UInt64 {
        var padded = Array(bytes.prefix(8))
        padded += [UInt8](repeating: 0, count: 8 - padded.count)
        return padded.withUnsafeBytes { ObjectKey.read($0).rawValue }
    }

    /// `payload`, a sound payload of `property`'s type (a row field's when `inRow`, else a
    /// collection element's), as a raw value; nil if it is not one.
    static func decode(_ payload: UnsafeRawBufferPointer, _ property: StoredProperty, _ schema: FileSchema, inRow: Bool = false) -> RawValue? {
        if ObjectVerification.payloadProblem(payload, as: property.type, inRow: inRow) != nil { return nil }
        let linkTarget = property.objectClassName.flatMap { schema.classes[$0]?.id } ?? 0
        let resolve: ValueCodec.LinkResolver<ObjectLink> = { table, key in .object(ObjectLink(table: table, key: key)) }
        let value: StoreValue =
            inRow
            ? RowCodec.decode(payload, as: property.type, linkTarget: linkTarget, resolve: resolve)
            : ValueCodec.decode(payload, as: property.type, linkTarget: linkTarget, resolve: resolve)
        return NestedValues.fold(
            value, shape: \.nestedShape,
            leaf: { (leaf: StoreValue) -> RawValue in
                if case .object(let link) = leaf { return .link(RawLink(table: link.table, key: link.key.rawValue)) }
                return leaf.plainValue.map { .plain($0) } ?? .null
            },
            list: { .list($0) },
            dictionary: { .dictionary($0.map { ($0.key, $0.value) }) })
    }
}

extension SalvageReader {
    /// Whether the schema stores classes but its `info` entry could not be read.
    fileprivate func withSchemaInfoMissing(_ schema: FileSchema) -> Bool {
        !schema.classes.isEmpty && (try? FileSchema.stamp(in: self)) == nil
    }
}
