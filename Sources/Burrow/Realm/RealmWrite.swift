import BurrowStorage
import BurrowStore

/// What a realm tracks for its open write transaction, beside what the store tracks (`store`,
/// the transaction itself, which the store owns): the objects the transaction made managed, the
/// update policy of an add in progress, the links still to set, the streams its commit leaves
/// silent, and the first error met where none could be thrown.
///
/// Exclusivity: the state below is `@exclusivity(unchecked)`, so that adding objects pays no
/// runtime access tracking. A realm write is confined to its realm's isolation, and each access
/// to one of its properties is a single read or mutation that calls no code touching the same
/// property.
final class RealmWrite {
    /// The store's write transaction.
    let store: WriteState
    /// The objects this transaction made managed (see `AddedObjects`).
    @exclusivity(unchecked) var added = AddedObjects()
    /// The caller that began the transaction (`WriteOwners.currentToken`).
    @exclusivity(unchecked) var ownerToken = 0
    /// The migration whose block runs in this transaction, if one does: its old objects'
    /// values may be set on new objects.
    var migration: Migration?
    /// The first error met where none could be thrown (a property setter, `List.append`): the
    /// commit throws it and keeps nothing.
    @exclusivity(unchecked) var failure: RealmError?
    /// The update policy for unmanaged objects a change links to: that of the `add` or
    /// `create` in progress, `.error` for plain property changes.
    @exclusivity(unchecked) var cascadePolicy: UpdatePolicy = .error
    /// Objects made managed whose links and collections are still to be set, in the order
    /// they were reached, and the next one to set (see `Realm.setLinkedProperties`).
    @exclusivity(unchecked) var pendingLinks: [Realm.PendingLinks] = []
    @exclusivity(unchecked) var nextPendingLinks = 0
    /// Whether a call is working through `pendingLinks`; a nested call only appends to it.
    @exclusivity(unchecked) var isSettingLinks = false
    /// The streams this transaction's commit leaves silent (`write(withoutNotifying:)`).
    @exclusivity(unchecked) var silenced: Set<ChangeToken> = []

    init(_ store: WriteState) {
        self.store = store
    }

    /// Records `error` to be thrown at commit, unless an earlier one is recorded.
    func fail(_ error: RealmError) {
        if failure == nil { failure = error }
    }

    var transaction: WriteTransaction { store.transaction }
    /// Whether the transaction changed the stored schema.
    var schemaChanged: Bool { store.schemaChanged }
    /// What the transaction changed, if some change stream observes the file.
    var changes: ChangeSet? { store.changes }
    /// Whether a managed object's primary key may change (see `WriteState`).
    var primaryKeysMayChange: Bool {
        get { store.primaryKeysMayChange }
        set { store.primaryKeysMayChange = newValue }
    }
    /// Whether a link replaced to an embedded object leaves that object in place (see
    /// `WriteState`).
    var keepsReplacedEmbedded: Bool {
        get { store.keepsReplacedEmbedded }
        set { store.keepsReplacedEmbedded = newValue }
    }
}
