import Foundation

/// The code samples of a Markdown page (its ```swift blocks), and where the tests compile them.
///
/// A sample is compiled when its lines appear, in order and with nothing between them, in the
/// Swift source of a test: a page whose sample changes without its test (or the reverse) is
/// reported, with the page, the sample's number and its first line that no test has. Lines are
/// compared without their indentation, with runs of spaces as one space, and blank lines are
/// skipped. A sample's `import` lines only need the same import in the test source (tests write
/// `@testable import Burrow` as often as `import Burrow`).
///
/// A sample that is deliberately not Burrow code (the RealmSwift side of a comparison, a
/// package manifest) is marked on the page by an HTML comment on the line before its fence,
/// which neither GitHub nor DocC shows:
///
///     <!-- not compiled: RealmSwift -->
///     ```swift
///
/// Lines of a test source that end in `// test only` are not part of any sample: a test can
/// check a sample's effect between its lines.
struct PageSample: Equatable {
    /// The page's name, for messages.
    let page: String
    /// The sample's number on its page, from 1.
    let number: Int
    /// The line of the page its fence opens on, from 1.
    let line: Int
    /// The sample's code, as the page shows it.
    let code: [String]
    /// Why the page says the sample is not compiled, if it says so.
    let notCompiled: String?

    /// The HTML comment that marks a sample as not compiled, before its reason.
    static let notCompiledMarker = "<!-- not compiled:"
    /// The comment that ends a test line the checker skips.
    static let testOnlyMarker = "// test only"

    /// The ```swift blocks of `markdown`, a page named `page`.
    static func samples(of markdown: String, page: String) -> [PageSample] {
        var samples: [PageSample] = []
        var open: (line: Int, code: [String], notCompiled: String?)?
        var previous = ""
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    samples.append(
                        PageSample(page: page, number: samples.count + 1, line: block.line, code: block.code, notCompiled: block.notCompiled))
                    open = nil
                } else {
                    block.code.append(String(line))
                    open = block
                }
            } else if trimmed == "```swift" {
                open = (index + 1, [], reason(inMarker: previous))
            }
            if !trimmed.isEmpty { previous = trimmed }
        }
        return samples
    }

    /// The reason a `<!-- not compiled: reason -->` line gives, or nil if `line` is not one.
    private static func reason(inMarker line: String) -> String? {
        guard line.hasPrefix(notCompiledMarker), line.hasSuffix("-->") else { return nil }
        return line.dropFirst(notCompiledMarker.count).dropLast(3).trimmingCharacters(in: .whitespaces)
    }

    /// What is wrong with this sample against the test sources `sources`: nil if it is marked
    /// as not compiled or a source compiles it, else a message naming the page, the sample and
    /// its first line that no source has after the lines before it.
    func problem(in sources: [String]) -> String? {
        guard notCompiled == nil else { return nil }
        let lines = code.map(Self.normalized).filter { !$0.isEmpty }
        let imports = lines.filter(Self.isImport).map(Self.withoutComment)
        let body = lines.filter { !Self.isImport($0) }
        let sourceLines = sources.map { source in
            source.split(separator: "\n").map { Self.normalized(String($0)) }.filter { !$0.isEmpty && !$0.hasSuffix(Self.testOnlyMarker) }
        }
        let title = "\(page), sample \(number) (line \(line))"
        for imported in imports where !sourceLines.contains(where: { $0.contains(imported) || $0.contains("@testable \(imported)") }) {
            return "\(title): no test source has `\(imported)`."
        }
        guard !body.isEmpty else { return nil }
        let matched = sourceLines.map { Self.longestRun(of: body, in: $0) }.max() ?? 0
        guard matched < body.count else { return nil }
        let after = matched == 0 ? "" : " after its line `\(body[matched - 1])`"
        return "\(title): no test compiles its line `\(body[matched])`\(after). The sample:\n\(code.joined(separator: "\n"))"
    }

    /// How many of `lines`, from the first, appear together somewhere in `source`.
    static func longestRun(of lines: [String], in source: [String]) -> Int {
        var best = 0
        for start in source.indices where source[start] == lines[0] {
            var count = 0
            while count < lines.count, start + count < source.count, source[start + count] == lines[count] { count += 1 }
            best = max(best, count)
        }
        return best
    }

    /// `line` without its indentation, with each run of spaces as one.
    static func normalized(_ line: String) -> String {
        line.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    private static func isImport(_ line: String) -> Bool { line.hasPrefix("import ") }

    private static func withoutComment(_ line: String) -> String {
        guard let comment = line.range(of: " //") else { return line }
        return String(line[..<comment.lowerBound])
    }
}
