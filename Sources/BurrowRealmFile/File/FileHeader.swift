/// The 24 bytes a `.realm` file begins with, read: which of its two top refs is current, and
/// the file format version that goes with it.
///
/// The header holds two top refs (bytes 0 and 8), the mnemonic `T-DB` (16), a format version
/// byte per top ref (20, 21) and flags (23) whose lowest bit selects the current pair; realm-core
/// commits by writing the other pair and then flipping the bit. A file written out whole
/// (`writeCopy`, compaction, bundled files) is in streaming form instead: top ref 0 is all ones,
/// and the real top ref is in a 16-byte footer at the end, before a fixed cookie.
package struct FileHeader: Sendable, Equatable {
    /// The file format version of the current top ref.
    package let formatVersion: Int
    /// The ref of the group's top array; 0 for a file that holds nothing yet.
    package let topRef: Int
    /// Whether the file is in streaming form.
    package let isStreaming: Bool

    /// The oldest and newest formats this reader reads: 20 (realm-core 10, RealmSwift 10) to 24
    /// (realm-core 14 on, RealmSwift 10.47 on).
    package static let supportedFormats = 20...24

    /// The mnemonic at byte 16.
    static let mnemonic: [UInt8] = Array("T-DB".utf8)
    /// The cookie that ends a streaming-form file.
    static let streamingCookie: UInt64 = 0x3034_1252_37E5_26C8

    /// Reads and checks the header of `image`: the mnemonic, the top ref's alignment and
    /// bounds, the footer of a streaming-form file, and the format version.
    package init(_ image: FileImage) throws(RealmFileError) {
        guard image.count >= 24 else {
            throw RealmFileError(.notARealmFile, "The file is not a .realm file: it holds \(image.count) bytes, fewer than a .realm file's header.")
        }
        guard Array(image.bytes[16..<20]) == Self.mnemonic else {
            throw RealmFileError(
                .notARealmFile,
                "The file is not a .realm file, or it is an encrypted one: it lacks realm-core's mark (T-DB at byte 16). If the app encrypted its realm, give the 64-byte key it used."
            )
        }
        guard image.count % 8 == 0 else {
            throw RealmFileError(.damaged, "The .realm file is damaged or cut short: its size, \(image.count) bytes, is not a multiple of 8.")
        }
        let slot = Int(image.bytes[23] & 1)
        var topRef = image.littleEndian(at: slot * 8, width: 8)
        formatVersion = Int(image.bytes[20 + slot])
        isStreaming = slot == 0 && topRef == UInt64.max
        if isStreaming {
            guard image.count >= 40, try image.uint64(at: image.count - 8) == Self.streamingCookie else {
                throw RealmFileError(
                    .damaged, "The .realm file is cut short: it was written whole, and its last bytes are not the footer such a file ends with.")
            }
            topRef = try image.uint64(at: image.count - 16)
        }
        guard topRef % 8 == 0, topRef < UInt64(image.count) else {
            throw RealmFileError(
                .damaged, "The .realm file is damaged: its top ref (\(topRef)) is \(topRef % 8 == 0 ? "past the end of the file" : "not aligned").")
        }
        self.topRef = Int(topRef)
        if formatVersion == 0 && topRef == 0 { return }
        guard Self.supportedFormats.contains(formatVersion) else {
            throw RealmFileError(.unsupportedFormat, Self.unsupportedMessage(formatVersion))
        }
    }

    /// What to do with a file of `format`, which this reader does not read.
    static func unsupportedMessage(_ format: Int) -> String {
        if format < supportedFormats.lowerBound {
            return
                "The .realm file is in realm-core's file format \(format), written by a Realm older than RealmSwift 10; Burrow reads formats 20 to 24. Open the file once with an app built with RealmSwift 10 or later (or with Realm Studio), which upgrades it in place, then import it."
        }
        return
            "The .realm file is in realm-core's file format \(format), newer than the formats Burrow reads (20 to 24, the formats every released RealmSwift writes). It was written by an unreleased realm-core; Burrow cannot read it."
    }
}
