import BurrowStore

/// Quick writes: the changes the observed wrappers' projected values make (`$dogs.append`,
/// `$dog.name`, `$person.dogs.remove(at:)`), each one write transaction on the realm of what
/// it changes, as in RealmSwift. They cannot throw, as in RealmSwift; unlike RealmSwift, a
/// failed one does not crash: it changes nothing, and its error is kept on the wrapper it was
/// made through (`error`), or logged where there is none.
@MainActor
enum QuickWrite {
    /// Runs `change` in one write transaction of `realm`, made `withoutNotifying:` `token`,
    /// or directly where `realm` is nil (the value is unmanaged) or already in a write
    /// transaction (the change joins it, and a failure is thrown by its commit). Reports the
    /// outcome to `reporter`: the error at once, the change at once unless it joined an open
    /// transaction, whose commit reports it.
    static func perform(in realm: Realm?, silencing token: ChangeToken?, reportingTo reporter: ObservedStorage?, _ change: () throws -> Void) {
        var failure: RealmError?
        // A change that joins the caller's open transaction is reported by its commit (through
        // the wrapper's stream), not now: a cancelled transaction then shows nothing it undid.
        let joinsOpenWrite = realm?.isInWriteTransaction ?? false
        do {
            if let realm, !joinsOpenWrite {
                try realm.write(withoutNotifying: token.map { [$0] } ?? []) { try change() }
            } else {
                try change()
            }
        } catch {
            failure = RealmError(wrapping: error)
        }
        if let reporter {
            reporter.finishQuickWrite(failure, reportsChange: !joinsOpenWrite)
        } else if let failure {
            Logger.log(.error, "A quick write failed and changed nothing: \(failure.description)")
        }
    }

    /// Throws if what a quick write changes was deleted: the write transaction reads the
    /// newest version, where another actor's commit may have deleted it since the wrapper's
    /// realm last refreshed. Call first in the change, before reading what it changes.
    /// `what` names it in the error ("Dog", "object holding the List<Dog>").
    static func requireValid(_ isInvalidated: Bool, _ what: @autoclosure () -> String) throws(RealmError) {
        if isInvalidated {
            throw RealmError(.invalidObject, "The \(what()) was deleted, by a commit made before this change could be written; nothing was changed.")
        }
    }

    /// `element`, or, if it is a frozen object (`Frozen.frozenObject`), its live object in
    /// `realm`, as RealmSwift's quick writes thaw frozen objects. Throws if a frozen object
    /// has no live object there (deleted since), belongs to another file, or has no realm to
    /// go to.
    static func thawingFrozen<E>(_ element: E, into realm: Realm?) throws(RealmError) -> E {
        guard let object = element as? ObjectBase, let state = object._state, case .frozen(let version) = state.source else { return element }
        guard let realm else {
            throw RealmError.frozenIntoUnmanaged(type(of: object))
        }
        guard version.snapshotReader.snapshot.storage === realm.storage else {
            throw RealmError(
                .invalidObject,
                "The frozen \(E.self) belongs to another file than \(realm.displayName); nothing was changed. Use create(_:value:update:) to copy it into this realm."
            )
        }
        guard let live = realm.liveObject(of: type(of: object), frozenAt: version, tableId: state.table.id, key: state.key) as? E else {
            throw RealmError.deletedSince(type(of: object))
        }
        return live
    }
}

extension RealmError {
    /// The error of a quick write that puts a frozen object into an unmanaged collection.
    static func frozenIntoUnmanaged(_ type: Any.Type) -> RealmError {
        RealmError(.invalidObject, "A frozen \(type) cannot go into an unmanaged collection; pass the live or an unmanaged object.")
    }
}
