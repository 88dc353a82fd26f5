import Testing

/// What an exit test's child process wrote on standard error (the test must observe
/// `\.standardErrorContent`), as text; empty if the exit test did not run.
public func standardError(of result: ExitTest.Result?) -> String {
    result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
}
