import BurrowStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line on standard error that says how far a long command got, redrawn in place at most
/// ten times a second and erased when the command ends. It is shown only when standard error
/// is a terminal, so that logs and pipes never see it.
struct ProgressLine {
    /// Whether standard error is a terminal (`BURROW_PROGRESS=1` forces the line on, for
    /// tests; `BURROW_PROGRESS=0` off).
    static let isShown: Bool = {
        if let forced = getenv("BURROW_PROGRESS") { return String(cString: forced) == "1" }
        return isatty(2) == 1
    }()

    private var lastDrawn: UInt64 = 0
    private var drawn = false

    /// Redraws the line as `text`, unless it was drawn less than a tenth of a second ago.
    mutating func update(_ text: @autoclosure () -> String) {
        guard Self.isShown else { return }
        let now = Self.milliseconds()
        guard !drawn || now - lastDrawn >= 100 else { return }
        lastDrawn = now
        drawn = true
        let line = "\r" + text() + "\u{1B}[K"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// Shows `text` at once (for a step that does not report how far it got).
    mutating func show(_ text: String) {
        lastDrawn = 0
        drawn = false
        update(text)
    }

    /// Erases the line, if it was drawn.
    mutating func finish() {
        guard drawn else { return }
        drawn = false
        _ = "\r\u{1B}[K".withCString { write(2, $0, strlen($0)) }
    }

    private static func milliseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1000 + UInt64(time.tv_nsec) / 1_000_000
    }
}
