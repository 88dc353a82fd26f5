import BurrowStore

#if !canImport(ObjectiveC)
/// Runs `body` and returns its result: where there is no Objective-C runtime (Linux, Windows)
/// there are no autoreleased objects to drain, so this is all Foundation's `autoreleasepool`
/// would do there. It exists so that code ported from RealmSwift, which wraps background work
/// in `autoreleasepool { }` as RealmSwift's documentation advises, compiles unchanged. On
/// Apple platforms Foundation's own is used.
public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}
#endif
