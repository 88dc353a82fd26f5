#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A C library of the system, loaded at run time with `dlopen` and never closed (the functions
/// bound from it live as long as the process), whose functions are bound by name. Burrow loads
/// libpq (sync) and libcrypto (encrypted `.realm` files) this way, so that building needs
/// neither their headers nor the libraries, and a program that never uses them never loads them.
package final class SystemLibrary {
    private let handle: UnsafeMutableRawPointer
    /// The symbols `function(_:as:)` did not find, in the order asked.
    package private(set) var missing: [String] = []

    private init(handle: UnsafeMutableRawPointer) {
        self.handle = handle
    }

    /// The first of `names` the system's loader finds, or the loader's reason for each.
    package static func load(_ names: [String]) -> Result<SystemLibrary, LoadFailure> {
        var reasons: [String] = []
        for name in names {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) { return .success(SystemLibrary(handle: handle)) }
            reasons.append(dlerror().map { String(cString: $0) } ?? "\(name): not found")
        }
        return .failure(LoadFailure(reasons: reasons))
    }

    /// Why no library could be loaded: the loader's reason for each name tried.
    package struct LoadFailure: Error {
        package let reasons: [String]
    }

    /// The function `symbol` as a C function of `type`; nil (and `symbol` added to `missing`)
    /// if the library has none.
    package func function<F>(_ symbol: String, as type: F.Type) -> F? {
        guard let address = dlsym(handle, symbol) else {
            missing.append(symbol)
            return nil
        }
        return unsafeBitCast(address, to: type)
    }
}
