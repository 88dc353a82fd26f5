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
    /// outcome to `reporter`.
    static func perform(in realm: Realm?, silencing token: ChangeToken?, reportingTo reporter: ObservedStorage?, _ change: () throws -> Void) {
        var failure: RealmError?
        do {
            if let realm, !realm.isInWriteTransaction {
                try realm.write(withoutNotifying: token.map { [$0] } ?? []) { try change() }
            } else {
                try change()
            }
        } catch {
            failure = RealmError(wrapping: error)
        }
        if let reporter {
            reporter.finishQuickWrite(failure)
        } else if let failure {
            Logger.log(.error, "A quick write failed and changed nothing: \(failure.description)")
        }
    }
}
