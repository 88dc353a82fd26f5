/// realm-core's encrypted files, decrypted whole.
///
/// The file is a run of 4,096-byte pages in blocks of 65: one page of 64-byte entries (one per
/// data page of the block), then up to 64 encrypted data pages; the data pages, in order, are
/// the file as refs see it. An entry holds the page's IV counter (4 bytes) and the HMAC-SHA224 of
/// its ciphertext (28), then the previous counter and HMAC, which a write cut short leaves
/// current. A page is AES-256-CBC, its IV the counter, the page's position in the decrypted
/// file (8 bytes) and 4 zero bytes. The app's 64-byte key is the AES key (its first 32 bytes)
/// and the HMAC key (its last 32).
///
/// A page whose counter is 0 was never written (free space) and reads as zeros, as does one of
/// zeros whose HMAC is stale (the file was shrunk and grown again).
enum EncryptedFile {
    static let pageSize = 4096
    static let pagesPerBlock = 64
    static let keySize = 64

    /// Whether `physical` looks like an encrypted realm rather than a plain one: no `T-DB` at
    /// byte 16, whole pages, at least an entry page and a data page, and a written first page.
    static func looksEncrypted(_ physical: [UInt8]) -> Bool {
        physical.count >= 2 * pageSize && physical.count % pageSize == 0 && Array(physical[16..<20]) != FileHeader.mnemonic
            && physical[0..<4] != [0, 0, 0, 0]
    }

    /// The decrypted contents of the encrypted file `physical`, read with `key`.
    static func decrypt(_ physical: [UInt8], key: [UInt8]) throws(RealmFileError) -> FileImage {
        guard key.count == keySize else {
            throw RealmFileError(.wrongKey, "An encryption key for a .realm file is 64 bytes; the key given has \(key.count).")
        }
        guard Array(physical.prefix(20).suffix(4)) != FileHeader.mnemonic else {
            throw RealmFileError(.wrongKey, "The .realm file is not encrypted, and a key was given: import it without one.")
        }
        let crypto = try LibCrypto.shared.get()
        let physicalPages = physical.count / pageSize
        let entryPages = (physicalPages + pagesPerBlock) / (pagesPerBlock + 1)
        let dataPages = physicalPages - entryPages
        guard dataPages > 0 else {
            throw RealmFileError(.notARealmFile, "The file is not a .realm file: it is too small to be an encrypted one (\(physical.count) bytes).")
        }
        let aesKey = key[0..<32]
        let hmacKey = key[32..<64]
        var plain = [UInt8](repeating: 0, count: dataPages * pageSize)
        for page in 0..<dataPages {
            let block = page / pagesPerBlock
            let entry = block * (pagesPerBlock + 1) * pageSize + (page % pagesPerBlock) * 64
            let start = (page + block + 1) * pageSize
            let ciphertext = physical[start..<(start + pageSize)]
            let counter1 = physical[entry..<(entry + 4)]
            let counter2 = physical[(entry + 32)..<(entry + 36)]
            guard counter1 != [0, 0, 0, 0] else { continue }
            let mac = crypto.hmacSHA224(key: hmacKey, ciphertext)
            let counter: ArraySlice<UInt8>
            if mac[...] == physical[(entry + 4)..<(entry + 32)] {
                counter = counter1
            } else if counter2 != [0, 0, 0, 0] && mac[...] == physical[(entry + 36)..<(entry + 64)] {
                counter = counter2
            } else if ciphertext.allSatisfy({ $0 == 0 }) {
                continue
            } else if page == 0 {
                throw RealmFileError(
                    .wrongKey,
                    "The key does not open this encrypted .realm file: it is not the key the app used, or the file is damaged.")
            } else {
                throw RealmFileError(.damaged, "The encrypted .realm file is damaged: page \(page) fails its integrity check.")
            }
            var iv = Array(counter)
            withUnsafeBytes(of: UInt64(page * pageSize).littleEndian) { iv += $0 }
            iv += [0, 0, 0, 0]
            guard let decrypted = crypto.decryptAES256CBC(key: aesKey, iv: iv, ciphertext) else {
                throw RealmFileError(.unavailable, "libcrypto could not decrypt page \(page) of the .realm file.")
            }
            plain.replaceSubrange((page * pageSize)..<((page + 1) * pageSize), with: decrypted)
        }
        guard Array(plain[16..<20]) == FileHeader.mnemonic else {
            throw RealmFileError(
                .wrongKey,
                "The key does not open this encrypted .realm file: its pages verify, but they do not decrypt to a realm, so the key's first 32 bytes are not the app's."
            )
        }
        return FileImage(bytes: plain)
    }
}
