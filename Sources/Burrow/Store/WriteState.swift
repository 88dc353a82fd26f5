import BurrowStorage
import BurrowStore

/// The open write transaction of a realm and what the realm tracks while it is open.
///
/// Exclusivity: the state below is `@exclusivity(unchecked)`, so that adding objects pays no
/// runtime access tracking. A write state is confined to its realm's isolation, and each access
/// to one of its properties is a single read or mutation that calls no code touching the same
/// property.
final class WriteState {
    let transaction: WriteTransaction
    let trees: TransactionTrees
    /// The next object key of each table that inserted objects in this transaction (table id →
    /// key). Not stored: see `ObjectStore.newObjectKey`.
    @exclusivity(unchecked) var nextKeys = TableIDMap<UInt64>()
    /// For tables with a primary key that inserted objects in this transaction: a key no object
    /// of the table exceeds (table id → key; nil while the table is empty). A derived key above
    /// it is free without a look into the rows tree, which makes inserting keys that grow (ids
    /// made in order, counting integers) cost no extra descent. Deletes only lower the largest
    /// key, so the bound stays true; a migration, which rewrites rows, forgets it.
    @exclusivity(unchecked) var keyCeilings = TableIDMap<UInt64?>()
    /// Tables whose primary keys this transaction probed; a table's ceiling is looked up at its
    /// second probe, so that a transaction adding one object does not pay for it.
    @exclusivity(unchecked) var probedTables = TableIDMap<Bool>()
    /// The objects this transaction made managed (see `AddedObjects`).
    @exclusivity(unchecked) var added = AddedObjects()
    /// The caller that began the transaction (`WriteOwners.currentToken`).
    @exclusivity(unchecked) var ownerToken = 0
    /// A buffer that index keys are built in, one at a time, reused so that adding an object
    /// allocates no array per index entry.
    @exclusivity(unchecked) var keyBuffer: [UInt8] = []
    /// The migration whose block runs in this transaction, if one does: its old objects'
    /// values may be set on new objects.
    var migration: Migration?
    /// The first error met where none could be thrown (a property setter, `List.append`): the
    /// commit throws it and keeps nothing.
    @exclusivity(unchecked) var failure: RealmError?
    /// Whether the transaction changed the stored schema.
    @exclusivity(unchecked) var schemaChanged = false
    /// Whether a managed object's primary key may change: only while a migration block runs,
    /// as in RealmSwift.
    @exclusivity(unchecked) var primaryKeysMayChange = false
    /// Whether a link replaced to an embedded object leaves that object in place: while a
    /// migration gives each parent of an object it made embedded a copy of its own, the
    /// original stays with its first parent.
    var keepsReplacedEmbedded = false
    /// The update policy for unmanaged objects a change links to: that of the `add` or
    /// `create` in progress, `.error` for plain property changes.
    @exclusivity(unchecked) var cascadePolicy: UpdatePolicy = .error
    /// Objects made managed whose links and collections are still to be set, in the order
    /// they were reached, and the next one to set (see `Realm.setLinkedProperties`).
    @exclusivity(unchecked) var pendingLinks: [Realm.PendingLinks] = []
    @exclusivity(unchecked) var nextPendingLinks = 0
    /// Whether a call is working through `pendingLinks`; a nested call only appends to it.
    @exclusivity(unchecked) var isSettingLinks = false
    /// Objects to delete (an object and the embedded objects it owns), and whether a call is
    /// working through them (see `ObjectStore.deleteObject`).
    @exclusivity(unchecked) var pendingDeletes: [(table: Table, key: ObjectKey)] = []
    @exclusivity(unchecked) var isDeleting = false
    /// What the transaction changed, recorded while some change stream observes the file.
    @exclusivity(unchecked) var changes: ChangeSet?
    /// The streams this transaction's commit leaves silent (`write(withoutNotifying:)`).
    @exclusivity(unchecked) var silenced: Set<ChangeToken> = []

    init(_ transaction: WriteTransaction) {
        self.transaction = transaction
        trees = TransactionTrees(transaction)
    }

    /// Records `error` to be thrown at commit, unless an earlier one is recorded.
    func fail(_ error: RealmError) {
        if failure == nil { failure = error }
    }

}
