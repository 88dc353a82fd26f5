/// The group of a `.realm` file: its tables, by name, each with its key and the ref of its top
/// array.
///
/// The group's top array (at the header's top ref) holds, at slot 0, a short-string leaf of
/// table names and, at slot 1, a has-refs array of the tables' top refs, slot for slot; a
/// deleted table's slot holds a tagged number (its next key's tag) and an empty name. Slot 2
/// holds the file's size when it was written; the other slots (free space, history, …) say
/// nothing about the data.
package struct RealmGroup {
    /// One table of the file.
    package struct TableEntry: Sendable, Equatable {
        package let name: String
        /// The table's key: its slot's index, plus a reuse tag above bit 16.
        package let key: Int
        /// The ref of the table's top array.
        let ref: Int
    }

    package let header: FileHeader
    let image: FileImage
    /// The tables, in slot order.
    package let tables: [TableEntry]

    /// The group of the file `image` holds.
    package init(_ image: FileImage) throws(RealmFileError) {
        header = try FileHeader(image)
        self.image = image
        guard header.topRef != 0 else {
            tables = []
            return
        }
        let top = try Node(image, at: header.topRef)
        guard top.hasRefs, [3, 5, 7, 9, 10, 11, 12].contains(top.count) else {
            throw .damaged("the group's top array has \(top.count) entries, which no .realm file has", at: top.ref)
        }
        // Slot 2: the size the file had when it was written; a file shorter than that lost its end.
        let size = try top.tagged(2, in: image)
        guard size <= image.count else {
            throw RealmFileError(.damaged, "The .realm file is cut short: it was written with \(size) bytes and holds \(image.count).")
        }
        guard let namesRef = try top.ref(0, in: image), let refsRef = try top.ref(1, in: image) else {
            throw .damaged("the group lacks its list of tables", at: top.ref)
        }
        let names = try Node(image, at: namesRef)
        let refs = try Node(image, at: refsRef)
        guard names.scheme == .multiply, !names.hasRefs, refs.hasRefs, names.count == refs.count else {
            throw .damaged("the group's table names and tables disagree", at: top.ref)
        }
        let nameBytes = try StringLeaf.shortStrings(names, in: image)
        var tables: [TableEntry] = []
        for slot in 0..<refs.count {
            guard case .ref(let ref) = try refs.refOrTagged(slot, in: image) else { continue }
            guard let bytes = nameBytes[slot], let name = String(validating: bytes, as: UTF8.self) else {
                throw .damaged("a table's name is not a string", at: names.ref)
            }
            let table = try Node(image, at: ref)
            guard table.hasRefs, table.count >= 4 else { throw .damaged("table \(name)'s top array is too short", at: ref) }
            let key = try table.tagged(3, in: image)
            guard key & 0xFFFF == Int64(slot) else { throw .damaged("table \(name)'s key (\(key)) names another slot", at: ref) }
            tables.append(TableEntry(name: name, key: Int(key), ref: ref))
        }
        self.tables = tables
    }

    /// The table named `name`, if the file has one.
    package func table(named name: String) -> TableEntry? { tables.first { $0.name == name } }
}
