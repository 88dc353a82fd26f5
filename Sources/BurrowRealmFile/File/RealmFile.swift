/// A `.realm` file opened for reading: its contents (decrypted, if it is encrypted) and its
/// group of tables. The file itself is only read.
package struct RealmFile {
    package let image: FileImage
    package let group: RealmGroup

    /// Opens the `.realm` file at `path`, with the app's 64-byte `encryptionKey` if it encrypted
    /// the file. Throws a `RealmFileError` that says what is wrong: not a realm, encrypted and
    /// no key given (or a key given for a plain file, or the wrong one), a format this reader
    /// does not read, or damage.
    package init(path: String, encryptionKey: [UInt8]? = nil) throws(RealmFileError) {
        try self.init(bytes: FileImage.read(path), encryptionKey: encryptionKey)
    }

    /// Opens the `.realm` file whose bytes are `physical`, as `init(path:encryptionKey:)` does.
    package init(bytes physical: [UInt8], encryptionKey: [UInt8]? = nil) throws(RealmFileError) {
        if let encryptionKey {
            image = try EncryptedFile.decrypt(physical, key: encryptionKey)
        } else {
            if EncryptedFile.looksEncrypted(physical) {
                throw RealmFileError(
                    .notARealmFile, "The .realm file is encrypted, or is not a .realm file: give the 64-byte key the app opened it with.")
            }
            image = FileImage(bytes: physical)
        }
        group = try RealmGroup(image)
    }

    /// The file format version of the file.
    package var formatVersion: Int { group.header.formatVersion }
}
