import BurrowStorage
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's libcrypto (OpenSSL 1.1 or 3), bound at run time: the two operations reading an
/// encrypted `.realm` file needs, AES-256-CBC decryption of a page and its HMAC-SHA224. Building
/// needs neither headers nor the library, and a program that never opens an encrypted file
/// never loads it.
///
/// The library is looked up as `libcrypto.so.3`, then `libcrypto.so.1.1`, then `libcrypto.so`
/// (`libcrypto.dylib` on Apple's platforms), or at the path in `BURROW_LIBCRYPTO`.
struct LibCrypto: Sendable {
    private typealias ContextNew = @convention(c) () -> OpaquePointer?
    private typealias ContextFree = @convention(c) (OpaquePointer?) -> Void
    private typealias Algorithm = @convention(c) () -> OpaquePointer?
    private typealias DecryptInit =
        @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) -> Int32
    private typealias SetPadding = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias DecryptUpdate =
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?, UnsafePointer<UInt8>?, Int32) -> Int32
    private typealias DecryptFinal = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?) -> Int32
    private typealias HMACFunction =
        @convention(c) (
            OpaquePointer?, UnsafeRawPointer?, Int32, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?
        ) -> UnsafeMutablePointer<UInt8>?

    private let contextNew: ContextNew
    private let contextFree: ContextFree
    private let aes256CBC: Algorithm
    private let decryptInit: DecryptInit
    private let setPadding: SetPadding
    private let decryptUpdate: DecryptUpdate
    private let decryptFinal: DecryptFinal
    private let hmac: HMACFunction
    private let sha224: Algorithm

    /// The library every decryption uses: loaded on first use, or the error that says what to
    /// install.
    static let shared: Result<LibCrypto, RealmFileError> = load(path: ProcessInfo.processInfo.environment["BURROW_LIBCRYPTO"])

    static var defaultNames: [String] {
        #if canImport(Darwin)
        ["libcrypto.dylib", "/opt/homebrew/opt/openssl@3/lib/libcrypto.dylib", "/usr/local/opt/openssl@3/lib/libcrypto.dylib"]
        #else
        ["libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"]
        #endif
    }

    /// Loads libcrypto from `path` (nil: the first of `defaultNames` the loader finds) and binds
    /// its calls.
    static func load(path: String?) -> Result<LibCrypto, RealmFileError> {
        let library: SystemLibrary
        switch SystemLibrary.load(path.map { [$0] } ?? defaultNames) {
        case .success(let loaded): library = loaded
        case .failure(let failure):
            return .failure(
                RealmFileError(
                    .unavailable,
                    "Reading an encrypted .realm file needs libcrypto (OpenSSL), and it could not be loaded (\(failure.reasons.joined(separator: "; "))). Install it (Debian and Ubuntu: apt-get install libssl3; macOS: brew install openssl@3), or set BURROW_LIBCRYPTO to its path."
                ))
        }
        guard let contextNew = library.function("EVP_CIPHER_CTX_new", as: ContextNew.self),
            let contextFree = library.function("EVP_CIPHER_CTX_free", as: ContextFree.self),
            let aes256CBC = library.function("EVP_aes_256_cbc", as: Algorithm.self),
            let decryptInit = library.function("EVP_DecryptInit_ex", as: DecryptInit.self),
            let setPadding = library.function("EVP_CIPHER_CTX_set_padding", as: SetPadding.self),
            let decryptUpdate = library.function("EVP_DecryptUpdate", as: DecryptUpdate.self),
            let decryptFinal = library.function("EVP_DecryptFinal_ex", as: DecryptFinal.self),
            let hmac = library.function("HMAC", as: HMACFunction.self),
            let sha224 = library.function("EVP_sha224", as: Algorithm.self)
        else {
            return .failure(RealmFileError(.unavailable, "The libcrypto found is not usable: it lacks \(library.missing.joined(separator: ", "))."))
        }
        return .success(
            LibCrypto(
                contextNew: contextNew, contextFree: contextFree, aes256CBC: aes256CBC, decryptInit: decryptInit, setPadding: setPadding,
                decryptUpdate: decryptUpdate, decryptFinal: decryptFinal, hmac: hmac, sha224: sha224))
    }

    /// HMAC-SHA224 of `data` with the 32-byte `key`.
    func hmacSHA224(key: ArraySlice<UInt8>, _ data: ArraySlice<UInt8>) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: 28)
        var length: UInt32 = 28
        key.withUnsafeBytes { key in
            data.withUnsafeBufferPointer { data in
                _ = hmac(sha224(), key.baseAddress, Int32(key.count), data.baseAddress, data.count, &mac, &length)
            }
        }
        return mac
    }

    /// `ciphertext` (a whole number of 16-byte blocks) decrypted with AES-256-CBC, no padding,
    /// with the 32-byte `key` and the 16-byte `iv`; nil if libcrypto failed.
    func decryptAES256CBC(key: ArraySlice<UInt8>, iv: [UInt8], _ ciphertext: ArraySlice<UInt8>) -> [UInt8]? {
        guard let context = contextNew() else { return nil }
        defer { contextFree(context) }
        var plain = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        var finished: Int32 = 0
        let ok = key.withUnsafeBufferPointer { key in
            ciphertext.withUnsafeBufferPointer { input in
                plain.withUnsafeMutableBufferPointer { output in
                    decryptInit(context, aes256CBC(), nil, key.baseAddress, iv) == 1 && setPadding(context, 0) == 1
                        && decryptUpdate(context, output.baseAddress, &written, input.baseAddress, Int32(input.count)) == 1
                        && decryptFinal(context, output.baseAddress! + Int(written), &finished) == 1
                }
            }
        }
        guard ok, Int(written + finished) == ciphertext.count else { return nil }
        plain.removeLast(plain.count - ciphertext.count)
        return plain
    }
}
