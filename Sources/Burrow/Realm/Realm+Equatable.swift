import BurrowStore

extension Realm: Equatable, Hashable {
    /// Whether two realms are the same: the one live realm of a file in one isolation domain
    /// (`Realm()` called twice there gives equal realms; another domain's realm of the file is
    /// not equal), or frozen realms of one file at one version, as in RealmSwift.
    public static func == (lhs: Realm, rhs: Realm) -> Bool {
        if lhs === rhs { return true }
        guard let left = lhs.frozenVersion, let right = rhs.frozenVersion else { return false }
        return lhs.storage === rhs.storage && left.version == right.version
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        if let frozenVersion {
            hasher.combine(ObjectIdentifier(storage))
            hasher.combine(frozenVersion.version)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}
