import BurrowStorage

extension FileSchema {
    /// The bytes of the schema's `info` entry in the version `reader` reads: every schema change
    /// rewrites it, so comparing it tells whether the schema changed without reading classes.
    package static func stamp(in reader: any TreeReader) throws(StorageError) -> [UInt8]? {
        try reader.withValue(.schema, infoKey) { Array($0) }
    }

    /// The schema stored in the version `reader` reads, whose `info` entry is `stamp`.
    package static func load(from reader: any TreeReader, stamp: [UInt8]?, path: String) throws(StoreError) -> FileSchema {
        do {
            var schema = FileSchema.empty
            if let stamp {
                schema.info = try stamp.withUnsafeBytes { bytes throws(StoreError) in
                    try decode(Info.self, from: bytes, path: path)
                }
            }
            var failure: StoreError?
            try reader.scan(.schema, prefix: Array(classKeyPrefix.utf8)) { _, value in
                do {
                    let stored = try decode(StoredClass.self, from: value, path: path)
                    schema.classes[stored.name] = stored
                    return true
                } catch {
                    failure = error as? StoreError
                    return false
                }
            }
            if let failure { throw failure }
            return schema
        } catch {
            throw StoreError(wrapping: error)
        }
    }
}
