import BurrowStorage
import BurrowStore

extension Realm {
    /// The table of `type` in this realm, or nil if the file has no such class yet and
    /// `creating` is false (or no write transaction is open to create it in).
    ///
    /// Throws `.schemaMismatch` if the class cannot be stored as declared, differs from the
    /// class in the file, or is not one of the configuration's `objectTypes`.
    func table(for type: ObjectBase.Type, creating: Bool) throws(RealmError) -> Table? {
        if let table = store.knownTable(ObjectIdentifier(type)) { return table }
        let info = ClassInfo.of(type)
        if let problem = info.problem { throw problem }
        if let objectTypes = configuration.objectTypes, !objectTypes.contains(where: { $0 == type }) {
            throw RealmError(
                .schemaMismatch, "\(info.name) is not one of this realm's objectTypes; add \(type).self to Realm.Configuration.objectTypes.")
        }
        if let stored = currentFileSchema.classes[info.name] {
            if let other = store.tablesById[stored.id]?.info.type, other != type { throw Self.sameStoredName(other, type, in: displayName) }
            if let mismatch = Table.mismatch(info.declared, stored) {
                let isPending = currentFileSchema.info.pendingClasses?.contains(info.name) == true
                guard configuration.objectTypes == nil, configuration.schemaVersion > currentFileSchema.info.schemaVersion || isPending,
                    !configuration.readOnly, !isFrozen
                else {
                    throw RealmError(
                        .schemaMismatch,
                        "The class \(info.name) does not match its schema in \(displayName): \(mismatch). Raise Configuration.schemaVersion to migrate the file."
                    )
                }
                try migrateOnFirstUse(info, from: stored)
                guard let table = store.knownTable(ObjectIdentifier(type)) else {
                    throw RealmError(.schemaMismatch, "The class \(info.name) could not be migrated in \(displayName).")
                }
                return table
            }
            return store.register(Table(info: info, stored: stored), for: ObjectIdentifier(info.type))
        }
        guard creating, let write else { return nil }
        let stored = Table.newStoredClass(for: info.declared, id: currentFileSchema.info.nextClassId)
        var schema = currentFileSchema
        schema.info.nextClassId += 1
        // A file that stores no class yet takes the configured schema version with its first
        // class, as it does at open with objectTypes: a later release that raises the version
        // then migrates from the version these objects were written at.
        if schema.classes.isEmpty { schema.info.schemaVersion = max(schema.info.schemaVersion, configuration.schemaVersion) }
        schema.classes[info.name] = stored
        try mapped { () throws(StoreError) in try store.storeSchema(schema, changing: [stored], in: write.store) }
        return store.register(Table(info: info, stored: stored), for: ObjectIdentifier(info.type))
    }

    /// The table of `type`, created in the open write transaction if the file lacks it. A
    /// class whose stored entry records other `LinkingObjects` than the Swift class declares
    /// has them recorded now, for readers without the Swift class: they are computed, so a
    /// change to them needs no migration.
    func writableTable(for type: ObjectBase.Type) throws(RealmError) -> Table {
        guard let table = try table(for: type, creating: true) else {
            preconditionFailure("internal error: no write transaction to create \(type) in")
        }
        guard !table.recordsItsLinkingObjects, let write else { return table }
        var updated = currentFileSchema.classes[table.name] ?? table.stored
        updated.linkingObjects = StoredClass.linkingObjects(table.info.schema.computedProperties)
        var schema = currentFileSchema
        schema.classes[updated.name] = updated
        try mapped { () throws(StoreError) in try store.storeSchema(schema, changing: [updated], in: write.store) }
        return store.register(Table(info: table.info, stored: updated), for: ObjectIdentifier(table.info.type))
    }

    /// The error for two Swift classes stored under one name in one realm, which keeps one
    /// class per name (RealmSwift refuses such a schema too).
    static func sameStoredName(_ a: ObjectBase.Type, _ b: ObjectBase.Type, in displayName: String) -> RealmError {
        RealmError(
            .schemaMismatch,
            "\(String(reflecting: a)) and \(String(reflecting: b)) are both stored as '\(ClassInfo.storedName(of: a))' in \(displayName), and a realm keeps one class per name. Override class func _realmObjectName() in one of them to store it under another name."
        )
    }

    /// At open: checks the configured classes against the file, creating missing classes and
    /// migrating changed ones when the schema version was raised; then logs the open (see
    /// `Logger`).
    func prepareSchema() throws(RealmError) {
        try prepareClasses()
        Logger.log(
            .detail,
            "Opened \(displayName) at version \(version), schema version \(currentFileSchema.info.schemaVersion), \(counted(currentFileSchema.classes.count, "class"))\(configuration.readOnly ? ", read-only" : "")."
        )
        if let recovery {
            Logger.log(.warn, "\(displayName) was opened at an older version than its newest commit: \(recovery.description)")
        }
    }

    private func prepareClasses() throws(RealmError) {
        let oldVersion = currentFileSchema.info.schemaVersion
        let versionRaised = configuration.schemaVersion > oldVersion
        // Without objectTypes, a raised schema version migrates the file at open all the same:
        // the stored classes for which the program has one Swift class (`ProgramClasses`) are
        // brought to it, the migration block runs, and the other classes stay as they are
        // until their first use (`pendingClasses`). Otherwise each class is checked when first
        // used.
        let migratesWithoutTypes =
            configuration.objectTypes == nil && versionRaised && !currentFileSchema.classes.isEmpty
            && !configuration.readOnly && !isFrozen
        // deleteRealmIfMigrationNeeded empties a file that a migration would change, as in
        // RealmSwift: one whose schema version differs from the configured one, or whose
        // classes differ from the program's (without objectTypes, those `ProgramClasses` knows).
        let resetsInsteadOfMigrating =
            configuration.deleteRealmIfMigrationNeeded && !configuration.readOnly && !isFrozen
            && !currentFileSchema.classes.isEmpty
        let programTypes =
            migratesWithoutTypes || resetsInsteadOfMigrating
            ? currentFileSchema.classes.keys.sorted().compactMap(ProgramClasses.uniqueClass(named:)) : []
        let types = configuration.objectTypes ?? programTypes
        var typeByName: [String: ObjectBase.Type] = [:]
        for type in types {
            let name = ClassInfo.storedName(of: type)
            if let other = typeByName[name], other != type { throw Self.sameStoredName(other, type, in: displayName) }
            typeByName[name] = type
        }
        var missing: [ClassInfo] = []
        var changed: [(ClassInfo, StoredClass, String)] = []
        for type in types {
            let info = ClassInfo.of(type)
            if let problem = info.problem { throw problem }
            if let stored = currentFileSchema.classes[info.name] {
                if let mismatch = Table.mismatch(info.declared, stored) { changed.append((info, stored, mismatch)) }
            } else if configuration.objectTypes != nil {
                missing.append(info)
            }
        }
        if resetsInsteadOfMigrating, configuration.schemaVersion != oldVersion || !changed.isEmpty {
            // Another opener may have emptied (and filled) the file meanwhile: then decide again.
            guard try deleteEverything(decidedOn: try Self.schemaStamp(in: store.snapshotReader)) else { return try prepareClasses() }
            let reason =
                changed.isEmpty
                ? "its schema version is \(oldVersion) and the configuration's \(configuration.schemaVersion)"
                : "its classes differ from the program's (\(changed.map { "\($0.0.name): \($0.2)" }.joined(separator: "; ")))"
            Logger.log(
                .warn, "Deleted every object in \(displayName) instead of migrating it, because \(reason) and deleteRealmIfMigrationNeeded is set.")
            return try prepareClasses()
        }
        // A class an earlier migration left as stored (`pendingClasses`) is migrated to its
        // class now, at the file's version, its block having run then.
        let pendingNames = Set(currentFileSchema.info.pendingClasses ?? [])
        let unmigratable = changed.filter { !pendingNames.contains($0.0.name) }
        if !unmigratable.isEmpty, !versionRaised {
            let details = unmigratable.map { "\($0.0.name): \($0.2)" }.joined(separator: "; ")
            throw RealmError(
                .schemaMismatch,
                "The classes do not match the schema in \(displayName) (\(details)), and the schema version was not raised (it is \(configuration.schemaVersion); the file's is \(oldVersion)). Raise Configuration.schemaVersion to migrate, or set deleteRealmIfMigrationNeeded."
            )
        }
        if configuration.schemaVersion < oldVersion, !currentFileSchema.classes.isEmpty {
            throw RealmError(
                .schemaMismatch,
                "\(displayName) has schema version \(oldVersion), newer than this configuration's \(configuration.schemaVersion); it was written by a newer version of the app."
            )
        }
        // Without objectTypes and a raised version, nothing was checked: each class migrates
        // when first used (see `table(for:creating:)`).
        guard configuration.objectTypes != nil || migratesWithoutTypes, !missing.isEmpty || !changed.isEmpty || versionRaised else { return }
        if configuration.readOnly {
            if missing.isEmpty && changed.isEmpty { return }
            throw RealmError(
                .schemaMismatch,
                "\(displayName) is opened read-only, but its schema needs \(changed.isEmpty ? "new classes" : "a migration") (\((missing.map(\.name) + changed.map(\.0.name)).joined(separator: ", ")))."
            )
        }
        // What was decided above was decided on this schema; another opener may change it
        // before this one's write begins.
        let decidedStamp = try Self.schemaStamp(in: store.snapshotReader)
        var decidedOnAnotherSchema = false
        try writeBlocking { () throws(RealmError) in
            guard let write else { return }
            let stamp = try Self.schemaStamp(in: write.store.trees)
            // Another opener migrated (or created) the file meanwhile: decide again on what it
            // wrote, so that a migration runs once.
            guard stamp == decidedStamp else {
                decidedOnAnotherSchema = true
                return
            }
            // A file that has stored no schema yet (new, or emptied by
            // deleteRealmIfMigrationNeeded) is not migrated: it gets the current schema at
            // `schemaVersion`, and `migrationBlock` does not run, as in RealmSwift (realm-core's
            // ObjectStore::apply_schema_changes returns early for an unversioned file).
            let isNewFile = stamp == nil
            // What the migration block reads old values from: the version it starts from.
            let oldSchema = currentFileSchema
            let before = store.snapshotReader
            var schema = currentFileSchema
            var changedClasses: [StoredClass] = []
            for info in missing where schema.classes[info.name] == nil {
                let stored = Table.newStoredClass(for: info.declared, id: schema.info.nextClassId)
                schema.info.nextClassId += 1
                schema.classes[info.name] = stored
                changedClasses.append(stored)
            }
            for (info, old, _) in changed {
                let new = Table.newStoredClass(for: info.declared, id: old.id)
                schema.classes[info.name] = new
                changedClasses.append(new)
            }
            schema.info.schemaVersion = max(configuration.schemaVersion, oldVersion)
            // The classes whose program class is still unknown wait for their first use.
            let known = Set(types.map { ClassInfo.storedName(of: $0) })
            var pending = Set(schema.info.pendingClasses ?? []).subtracting(known)
            if migratesWithoutTypes { pending.formUnion(Set(oldSchema.classes.keys).subtracting(known)) }
            schema.info.pendingClasses = pending.isEmpty ? nil : pending.sorted()
            try mapped { () throws(StoreError) in try store.storeSchema(schema, changing: changedClasses, in: write.store) }
            var orphans: [EmbeddedOrphan] = []
            for (info, old, _) in changed {
                orphans += try migrateRows(of: info, from: old)
            }
            if versionRaised, !isNewFile, let block = configuration.migrationBlock {
                // Without objectTypes, a stored class several classes of the program could be
                // is in the new schema as it is stored; one no class of the program is stored
                // as is not in it (its objects have no new object), as in RealmSwift.
                let ambiguous = oldSchema.classes.keys.filter { (ProgramClasses.byStoredName[$0]?.count ?? 0) > 1 }
                let migration = Migration(
                    realm: self, oldSchemaVersion: oldVersion, oldSchema: oldSchema, before: before,
                    newClassNames: migratesWithoutTypes ? known.union(ambiguous) : known)
                write.primaryKeysMayChange = true
                write.migration = migration
                defer {
                    write.migration = nil
                    write.primaryKeysMayChange = false
                }
                do {
                    try block(migration, oldVersion)
                } catch let error as RealmError {
                    throw error
                } catch {
                    throw RealmError(.fail, "The migration block threw an error, so the file was left as it was: \(error)")
                }
            }
            // After the block, which may still read them as the old objects' values.
            try mapped { () throws(StoreError) in try store.deleteEmbeddedOrphans(orphans, in: write.store) }
            try settleObjectsThatBecameEmbedded(changed.filter { $0.0.isEmbedded && !$0.1.isEmbedded }.map(\.0.name), in: write)
        }
        if decidedOnAnotherSchema { return try prepareClasses() }
        // Classes only added (a new file, a new class) are routine; a migration is news.
        Logger.log(
            changed.isEmpty && oldVersion == currentFileSchema.info.schemaVersion ? .detail : .info,
            Self.schemaChangeMessage(
                displayName, from: oldVersion, to: currentFileSchema.info.schemaVersion, added: missing.map(\.name), changed: changed.map(\.0.name)))
    }

    /// What a schema change at open did, for the log.
    private static func schemaChangeMessage(_ file: String, from old: UInt64, to new: UInt64, added: [String], changed: [String]) -> String {
        var parts: [String] = []
        if !added.isEmpty { parts.append("added \(added.sorted().joined(separator: ", "))") }
        if !changed.isEmpty { parts.append("migrated \(changed.sorted().joined(separator: ", "))") }
        if parts.isEmpty { parts.append("no class changed") }
        return "Schema of \(file) went from version \(old) to \(new): \(parts.joined(separator: "; "))."
    }

    /// Migrates one changed class when it is first used, for a realm opened without
    /// `objectTypes` and with a raised schema version: in the open write transaction, or in one
    /// of its own.
    private func migrateOnFirstUse(_ info: ClassInfo, from old: StoredClass) throws(RealmError) {
        let migrate = { () throws(RealmError) in
            guard let write = self.write else { return }
            var schema = self.currentFileSchema
            let new = Table.newStoredClass(for: info.declared, id: old.id)
            schema.classes[info.name] = new
            let pending = (schema.info.pendingClasses ?? []).filter { $0 != info.name }
            schema.info.pendingClasses = pending.isEmpty ? nil : pending
            try self.mapped { () throws(StoreError) in try self.store.storeSchema(schema, changing: [new], in: write.store) }
            let orphans = try self.migrateRows(of: info, from: old)
            try self.mapped { () throws(StoreError) in try self.store.deleteEmbeddedOrphans(orphans, in: write.store) }
            if info.isEmbedded, !old.isEmbedded { try self.settleObjectsThatBecameEmbedded([info.name], in: write) }
        }
        if write != nil {
            try migrate()
        } else {
            try writeBlocking(migrate)
        }
        Logger.log(.info, "Migrated class \(info.name) of \(displayName) on first use to its declared properties.")
        _ = try table(for: info.type, creating: false)
    }

    /// Rewrites every row of a migrated class into its new field layout (see
    /// `ObjectStore.migrateRows(of:from:in:)`). Returns the embedded objects that the fields it
    /// drops owned, for `deleteEmbeddedOrphans`.
    private func migrateRows(of info: ClassInfo, from old: StoredClass) throws(RealmError) -> [EmbeddedOrphan] {
        guard let table = try table(for: info.type, creating: false), let write else { return [] }
        return try mapped { () throws(StoreError) in try store.migrateRows(of: table, from: old, in: write.store) }
    }

    /// Removes every class and object from the file (for `deleteRealmIfMigrationNeeded`), if
    /// its stored schema is still the one whose stamp is `decided`. Returns whether it did.
    private func deleteEverything(decidedOn decided: [UInt8]?) throws(RealmError) -> Bool {
        var deleted = false
        try writeBlocking { () throws(RealmError) in
            guard let write, try Self.schemaStamp(in: write.store.trees) == decided else { return }
            try mapped { () throws(StoreError) in try store.dropEverything(in: write.store) }
            deleted = true
        }
        return deleted
    }

    /// The stamp of the schema stored in the version `reader` reads (see `FileSchema.stamp`).
    private static func schemaStamp(in reader: any TreeReader) throws(RealmError) -> [UInt8]? {
        do {
            return try FileSchema.stamp(in: reader)
        } catch {
            throw RealmError(wrapping: error)
        }
    }
}
