import BurrowStorage
import BurrowStore

/// One way in which a file's objects disagree with the schema stored in it, or with each other:
/// the class, object and property it concerns (where it concerns one), and what is wrong.
package struct ObjectFinding: Sendable, Equatable, CustomStringConvertible {
    /// The class, or nil for a tree that belongs to no class.
    package var className: String?
    package var objectKey: UInt64?
    /// The object's primary key as text, when its class has one and its row holds a readable one.
    package var primaryKey: String?
    package var property: String?
    package var problem: String

    package var description: String {
        var subject = className ?? ""
        if let objectKey { subject += " #\(objectKey)" }
        if let primaryKey { subject += " (primary key \(primaryKey))" }
        if let property { subject += ", property '\(property)'" }
        return subject.isEmpty ? problem : "\(subject): \(problem)"
    }
}

/// What `ObjectVerifier` found in one version of a file.
package struct ObjectVerifyReport: Sendable, Equatable {
    package var version: UInt64
    package var classes: Int
    package var objects: Int
    /// The first findings, up to the limit the check was given, in the order met.
    package var findings: [ObjectFinding]
    /// Findings past the limit, counted but not listed.
    package var unlistedFindings: Int

    /// Whether nothing is wrong with the objects.
    package var isSound: Bool { findings.isEmpty && unlistedFindings == 0 }
}

/// The object-level check of a file, which `burrow verify` runs after the engine's `verify()`.
/// It works from the schema stored in the file (no Swift classes) and reads one snapshot:
///
/// - every row decodes against its class: offsets in order and inside the row, each field's
///   payload exactly as long as its type needs, strings valid UTF-8, long values present in the
///   blob tree (and no blob without its row);
/// - every link (single links, `AnyRealmValue` links, elements of lists, sets and maps) names
///   a class of the schema and an object that exists; every embedded object has exactly one
///   link to it, its parent's;
/// - the backlinks trees hold exactly the links the rows and collections hold, with their
///   counts;
/// - every index tree holds one entry per object with the object's current value and nothing
///   else; primary keys are unique, and the primary-key tree lists exactly the objects not at
///   the key their primary key derives;
/// - every collection entry belongs to an object that exists, its key encodes its element (a
///   set's) or map key (a map's), and each object's stored count equals its entries;
/// - every tree belongs to a class and field of the kind its name says (empty trees aside).
///
/// A row or field that cannot be read is one finding: the backlinks, counts, blobs and index
/// entries that depend on what it held are not judged as well.
///
/// Time and memory are linear in the file's size (set and dictionary lookups aside), and
/// nothing recurses on the data.
package enum ObjectVerifier {
    package static let defaultFindingLimit = 100

    /// Checks the objects of the version `snapshot` reads. Lists at most `findingLimit`
    /// findings and counts the rest.
    ///
    /// Throws `RealmError` when a tree cannot be read (a damaged page: run the engine's
    /// `verify()` first to locate it) or the stored schema does not decode.
    package static func verify(_ snapshot: Snapshot, findingLimit: Int = defaultFindingLimit) throws(RealmError) -> ObjectVerifyReport {
        let reader = SnapshotReader(snapshot)
        let stamp: [UInt8]?
        do {
            stamp = try FileSchema.stamp(in: reader)
        } catch {
            throw RealmError(error)
        }
        let schema: FileSchema
        do {
            schema = try FileSchema.load(from: reader, stamp: stamp, path: snapshot.name)
        } catch {
            throw RealmError(error)
        }
        let verification = ObjectVerification(reader: reader, schema: schema, limit: findingLimit)
        do {
            try verification.run()
            return try verification.report()
        } catch {
            throw RealmError(error)
        }
    }
}

/// The state of one run of `ObjectVerifier`. The checks live in extensions, by what they check.
final class ObjectVerification {
    /// One link as the backlinks tree of its target records it.
    struct Link: Hashable, Comparable {
        var targetTable: UInt32
        var target: UInt64
        var sourceTable: UInt32
        var field: UInt16
        var source: UInt64

        static func < (a: Link, b: Link) -> Bool {
            (a.sourceTable, a.source, a.field, a.targetTable, a.target) < (b.sourceTable, b.source, b.field, b.targetTable, b.target)
        }
    }

    /// A field of an object whose content could not be read (`field` -1: the whole row). The
    /// links it held are unknown, so the backlinks naming it are not judged.
    struct FieldRef: Hashable {
        var table: UInt32
        var key: UInt64
        var field: Int
    }

    /// A finding before its object's primary key is looked up (only listed ones are).
    struct Pending {
        var className: String?
        var classId: UInt32?
        var key: UInt64?
        var property: String?
        var problem: String
    }

    let reader: SnapshotReader
    let schema: FileSchema
    let limit: Int
    /// The stored classes by id.
    var classes: [UInt32: StoredClass] = [:]
    /// The object keys of every class, by class id.
    var keys: [UInt32: Set<UInt64>] = [:]
    /// Every link the rows and collections hold, with the number of times each occurs.
    var links: [Link: UInt32] = [:]
    /// The number of links to each embedded object, by class id and object key.
    var parents: [UInt32: [UInt64: Int]] = [:]
    /// The rows and fields found unreadable.
    var unreadable: Set<FieldRef> = []
    var pending: [Pending] = []
    var unlisted = 0
    var objects = 0

    init(reader: SnapshotReader, schema: FileSchema, limit: Int) {
        self.reader = reader
        self.schema = schema
        self.limit = max(0, limit)
    }

    /// The class ids in increasing order, so that findings come in a stable order.
    private(set) lazy var classIds: [UInt32] = classes.keys.sorted()

    func run() throws(StorageError) {
        checkSchema()
        for id in classIds { try collectKeys(id) }
        for id in classIds {
            let counts = try checkRows(id)
            try checkCollections(id, counts: counts)
        }
        for id in classIds { try checkBacklinks(id) }
        noteLinksWithoutBacklinks()
        checkParents()
        try checkTreeNames()
    }

    func report() throws(StorageError) -> ObjectVerifyReport {
        var findings: [ObjectFinding] = []
        for finding in pending {
            findings.append(
                ObjectFinding(
                    className: finding.className, objectKey: finding.key,
                    primaryKey: try primaryKeyText(finding.classId, finding.key), property: finding.property,
                    problem: finding.problem))
        }
        return ObjectVerifyReport(
            version: reader.snapshot.version, classes: classes.count, objects: objects, findings: findings,
            unlistedFindings: unlisted)
    }

    // MARK: Findings

    /// Records a finding about object `key` (if any) of the class stored with `id` (if any),
    /// at row field `field` (if any).
    func note(_ id: UInt32?, _ key: UInt64?, field: Int? = nil, _ problem: String) {
        guard pending.count < limit else {
            unlisted += 1
            return
        }
        let stored = id.flatMap { classes[$0] }
        let property = field.flatMap { field in stored.flatMap { field < $0.properties.count ? $0.properties[field].name : nil } }
        pending.append(
            Pending(
                className: stored?.name ?? id.map { "class id \($0)" }, classId: id, key: key,
                property: property ?? field.map { "field \($0)" }, problem: problem))
    }

    /// Records a finding that field `field` (or with `field` nil, the row) of object `key` of
    /// class `id` cannot be read, and remembers it as unreadable.
    func noteUnreadable(_ id: UInt32, _ key: UInt64, field: Int?, _ problem: String) {
        unreadable.insert(FieldRef(table: id, key: key, field: field ?? -1))
        note(id, key, field: field, problem)
    }

    /// Whether field `field` of object `key` of class `id`, or its whole row, was unreadable.
    func isUnreadable(_ id: UInt32, _ key: UInt64, field: Int) -> Bool {
        unreadable.contains(FieldRef(table: id, key: key, field: field)) || unreadable.contains(FieldRef(table: id, key: key, field: -1))
    }

    /// Records a finding about the tree named `tree` as a whole.
    func noteTree(_ tree: String, _ problem: String) {
        note(nil, nil, "tree \"\(tree)\" \(problem)")
    }

    /// Notes a problem with tree `tree`.
    func noteTree(_ tree: TreeName, _ problem: String) {
        noteTree(tree.string, problem)
    }

    /// The name of the class stored with `id`, for messages.
    func className(_ id: UInt32) -> String {
        classes[id]?.name ?? "class id \(id)"
    }

    /// The primary key of object `key` of the class stored with `id`, as text, or nil if the
    /// class has none or the row does not hold a readable one.
    private func primaryKeyText(_ id: UInt32?, _ key: UInt64?) throws(StorageError) -> String? {
        guard let id, let key, let stored = classes[id], let field = stored.properties.firstIndex(where: \.isPrimary) else { return nil }
        let type = stored.properties[field].type
        let format = reader.rowFormat
        let text = try reader.withValue(TreeName(.rows, id), ObjectKey(key).bytes) { storedRow -> String? in
            Self.withSoundRow(storedRow, of: stored, format: format) { row -> String? in
                guard let payload = RowCodec.field(row, field) else { return "nil" }
                guard Self.payloadProblem(payload, as: type, inRow: true) == nil else { return nil }
                return PrimaryKey.describe(RowCodec.decode(payload, as: type, linkTarget: 0) { _, _ in StoreValue.null })
            } ?? nil
        }
        return text ?? nil
    }

    // MARK: Schema

    /// The id of the class a typed link property points into, if the schema has it.
    func targetId(_ property: StoredProperty) -> UInt32? {
        property.objectClassName.flatMap { schema.classes[$0]?.id }
    }

    private func checkSchema() {
        for stored in schema.classes.values.sorted(by: { $0.id < $1.id }) {
            if let other = classes[stored.id] {
                note(nil, nil, "classes \(other.name) and \(stored.name) have the same id \(stored.id)")
                continue
            }
            classes[stored.id] = stored
        }
        for id in classIds {
            let stored = classes[id]!
            if stored.properties.filter(\.isPrimary).count > (stored.isEmbedded ? 0 : 1) {
                note(id, nil, stored.isEmbedded ? "is embedded but has a primary key" : "has more than one primary key")
            }
            for (field, property) in stored.properties.enumerated() {
                // A link property may name a class the file does not hold yet (classes are
                // stored when first used); only a link that is there needs its class.
                if property.type == .linkingObjects {
                    note(id, nil, field: field, "is stored, but LinkingObjects are computed from backlinks and never stored")
                }
            }
        }
    }

    /// Reads every object key of the class stored with `id` (links are checked against them).
    private func collectKeys(_ id: UInt32) throws(StorageError) {
        var found = Set<UInt64>()
        found.reserveCapacity(try reader.count(TreeName(.rows, id)))
        try reader.scan(TreeName(.rows, id), from: []) { key, _ in
            if key.count == 8 {
                found.insert(ObjectKey.read(key).rawValue)
            } else {
                note(id, nil, "its rows tree holds a key of \(counted(key.count, "byte")); object keys are 8")
            }
            return true
        }
        objects += found.count
        keys[id] = found
    }
}
