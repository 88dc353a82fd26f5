/// Queries on a managed `List`, `MutableSet` or `LinkingObjects` of objects: results over the collection's
/// objects (in the collection's order), live like any results: each evaluation reads the
/// collection as it is then.
protocol _QueryableObjectCollection: RandomAccessCollection where Element: ObjectBase {
    var realm: Realm? { get }
}

extension List: _QueryableObjectCollection where Element: ObjectBase {}
extension MutableSet: _QueryableObjectCollection where Element: ObjectBase {}

extension _QueryableObjectCollection {
    /// Results over the collection's objects. Traps for an unmanaged collection, which has no
    /// realm to query, as in RealmSwift.
    var queryResults: Results<Element> {
        guard let realm else {
            preconditionFailure("Only a managed \(type(of: self)) can be queried; add its object to a realm first.")
        }
        return Results(realm: realm, base: ResultsBase { self.map { $0._state!.key } })
    }
}

extension List where Element: ObjectBase {
    /// The objects of the list satisfying `isIncluded`, in list order (see `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        queryResults.where(isIncluded)
    }

    /// The objects of the list satisfying a query string (see `Results.filter(_:_:)`).
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> Results<Element> {
        try queryResults.filter(predicateFormat, arguments: args)
    }

    /// The objects of the list sorted by `keyPath`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        queryResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects of the list sorted by several key paths.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        queryResults.sorted(by: sortDescriptors)
    }

    /// The first object of each distinct combination of the values at `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        queryResults.distinct(by: keyPaths)
    }
}

extension MutableSet where Element: ObjectBase {
    /// The objects of the set satisfying `isIncluded` (see `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        queryResults.where(isIncluded)
    }

    /// The objects of the set satisfying a query string (see `Results.filter(_:_:)`).
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> Results<Element> {
        try queryResults.filter(predicateFormat, arguments: args)
    }

    /// The objects of the set sorted by `keyPath`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        queryResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }
}

extension LinkingObjects {
    /// Results over the objects linking here, read anew at each evaluation. Traps for the
    /// `LinkingObjects` of an unmanaged object, which has no realm to query.
    var queryResults: Results<Element> {
        guard let owner = linkedObject, let realm = owner.realm, let state = owner._state else {
            preconditionFailure("Only the LinkingObjects of a managed object can be queried; add the object to a realm first.")
        }
        let propertyName = self.propertyName
        return Results(realm: realm, base: ResultsBase {
            let executor = QueryExecutor(context: realm)
            guard let origin = realm.storedClassId(named: ClassInfo.storedName(of: Element.self)).flatMap(realm.table(id:)),
                let field = origin.stored.fieldIndex(of: propertyName)
            else { return [] }
            return executor.backlinks(to: state.key, of: state.table, from: origin, field: field)
        })
    }

    /// The objects linking here that satisfy `isIncluded` (see `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        queryResults.where(isIncluded)
    }

    /// The objects linking here that satisfy a query string (see `Results.filter(_:_:)`).
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> Results<Element> {
        try queryResults.filter(predicateFormat, arguments: args)
    }

    /// The objects linking here, sorted by `keyPath`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        queryResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }
}
