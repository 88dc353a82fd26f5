import BurrowStorage

/// The open write transaction of a store and what the store tracks while it is open. The store
/// owns it: `ObjectStore.beginWrite` makes it, `commitWrite` and `cancelWrite` end it. What the
/// API tracks for the same transaction (the objects it made managed, the update policy of an
/// add in progress) it keeps beside this, in its own state.
///
/// Exclusivity: the state below is `@exclusivity(unchecked)`, so that adding objects pays no
/// runtime access tracking. A write state is confined to its store's isolation, and each access
/// to one of its properties is a single read or mutation that calls no code touching the same
/// property.
@usableFromInline
package final class WriteState {
    package let transaction: WriteTransaction
    package let trees: TransactionTrees
    /// The next object key of each table that inserted objects in this transaction (table id →
    /// key). Not stored: see `ObjectStore.newObjectKey`.
    @exclusivity(unchecked) package var nextKeys = TableIDMap<UInt64>()
    /// For tables with a primary key that inserted objects in this transaction: a key no object
    /// of the table exceeds (table id → key; nil while the table is empty). A derived key above
    /// it is free without a look into the rows tree, which makes inserting keys that grow (ids
    /// made in order, counting integers) cost no extra descent. Deletes only lower the largest
    /// key, so the bound stays true; a migration, which rewrites rows, forgets it.
    @exclusivity(unchecked) package var keyCeilings = TableIDMap<UInt64?>()
    /// Tables whose primary keys this transaction probed; a table's ceiling is looked up at its
    /// second probe, so that a transaction adding one object does not pay for it.
    @exclusivity(unchecked) package var probedTables = TableIDMap<Bool>()
    /// A buffer that index keys and rows are built in, one at a time, reused so that adding an
    /// object allocates no array per index entry.
    @exclusivity(unchecked) @usableFromInline package var keyBuffer: [UInt8] = []
    /// Whether the transaction changed the stored schema.
    @exclusivity(unchecked) package var schemaChanged = false
    /// Whether a managed object's primary key may change: only while a migration block runs,
    /// as in RealmSwift.
    @exclusivity(unchecked) package var primaryKeysMayChange = false
    /// Whether a link replaced to an embedded object leaves that object in place: while a
    /// migration gives each parent of an object it made embedded a copy of its own, the
    /// original stays with its first parent.
    package var keepsReplacedEmbedded = false
    /// Objects to delete (an object and the embedded objects it owns), and whether a call is
    /// working through them (see `ObjectStore.deleteObject`).
    @exclusivity(unchecked) package var pendingDeletes: [(table: Table, key: ObjectKey)] = []
    @exclusivity(unchecked) package var isDeleting = false
    /// Whether the commit queues the changes of synced classes for upload: false for a write
    /// of the sync client's that applies what it downloaded (see `ObjectStore+Sync`).
    package var queuesSyncChanges = true
    /// What the transaction changed, recorded while some change stream observes the file or
    /// some class is synced.
    @exclusivity(unchecked) package var changes: ChangeSet?

    package init(_ transaction: WriteTransaction) {
        self.transaction = transaction
        trees = TransactionTrees(transaction)
    }
}
