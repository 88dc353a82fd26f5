import BurrowStorage

/// The open write transaction of a realm and what the realm tracks while it is open.
final class WriteState {
    let transaction: WriteTransaction
    let reader: TransactionReader
    /// The next object key of each table that inserted objects in this transaction (table id →
    /// key). Not stored: see `Realm.newObjectKey`.
    var nextKeys: [UInt32: UInt64] = [:]
    /// For tables with a primary key that inserted objects in this transaction: a key no object
    /// of the table exceeds (table id → key; nil while the table is empty). A derived key above
    /// it is free without a look into the rows tree, which makes inserting keys that grow (ids
    /// made in order, counting integers) cost no extra descent. Deletes only lower the largest
    /// key, so the bound stays true; a migration, which rewrites rows, forgets it.
    var keyCeilings: [UInt32: UInt64?] = [:]
    /// Tables whose primary keys this transaction probed; a table's ceiling is looked up at its
    /// second probe, so that a transaction adding one object does not pay for it.
    var probedTables: Set<UInt32> = []
    /// Objects this transaction made managed, so that cancelling makes them the unmanaged
    /// objects they were (their fields kept their unmanaged values meanwhile).
    var added: [ObjectBase] = []
    /// The first error met where none could be thrown (a property setter, `List.append`): the
    /// commit throws it and keeps nothing.
    var failure: RealmError?
    /// Whether the transaction changed the stored schema.
    var schemaChanged = false
    /// The update policy for unmanaged objects a change links to: that of the `add` or
    /// `create` in progress, `.error` for plain property changes.
    var cascadePolicy: UpdatePolicy = .error
    /// What the transaction changed, recorded while some change stream observes the file.
    var changes: ChangeSet?
    /// The streams this transaction's commit leaves silent (`write(withoutNotifying:)`).
    var silenced: Set<ChangeToken> = []

    init(_ transaction: WriteTransaction) {
        self.transaction = transaction
        reader = TransactionReader(transaction)
    }

    /// Records `error` to be thrown at commit, unless an earlier one is recorded.
    func fail(_ error: RealmError) {
        if failure == nil { failure = error }
    }

    static let sequencesTree = "sequences"
}
