import Foundation
import Testing

/// Every code sample of the README and the DocC articles is compiled by a test: each page's
/// ```swift blocks are found, line for line, in the test sources listed for it (see
/// `PageSample`).
@Suite struct DocumentationSamplesTests {
    /// A page, and the test sources that compile its samples.
    struct Page: CustomTestStringConvertible, Sendable {
        let path: String
        let sources: [String]
        /// What the sources add to the page's lines and the checker drops before comparing.
        var sourceEdit: @Sendable (String) -> String? = { $0 }

        var testDescription: String { path }
    }

    static let docc = "Sources/Burrow/Burrow.docc/"
    static let syncDocc = "Sources/BurrowSync/BurrowSync.docc/"
    static let tests = "Tests/BurrowTests/Documentation/"
    static let syncGuide = "Tests/BurrowSyncTests/SyncGuideTests.swift"

    static let pages: [Page] = [
        Page(path: "README.md", sources: [syncGuide]),
        Page(path: syncDocc + "BurrowSync.md", sources: [syncGuide]),
        Page(path: syncDocc + "Sync.md", sources: [syncGuide]),
        Page(path: docc + "Burrow.md", sources: [tests + "OverviewGuideTests.swift"]),
        Page(path: docc + "GettingStarted.md", sources: [tests + "GettingStartedGuideTests.swift"]),
        Page(path: docc + "Concurrency.md", sources: [tests + "ConcurrencyGuideTests.swift"]),
        Page(path: docc + "Queries.md", sources: [tests + "QueriesGuideTests.swift", tests + "SectionedResultsGuideTests.swift"]),
        Page(path: docc + "ObservedObjects.md", sources: [tests + "ObservedObjectsGuideTests.swift"]),
        Page(path: docc + "ImportingRealmFiles.md", sources: [tests + "ImportingRealmFilesGuideTests.swift"]),
        Page(
            path: docc + "PortingFromRealmSwift.md",
            sources: [tests + "PortingGuideTests.swift", tests + "PortingGuideCollectionTests.swift", syncGuide]),
        // The guide's whole example is release 5 of the migration ladder, whose classes are
        // stored under the guide's names and take their place in the default schema from the
        // ladder; its members are `static`.
        Page(
            path: docc + "Migrations.md", sources: [tests + "MigrationsGuideTests.swift", "Tests/BurrowTests/Migration/MigrationLadderModels.swift"],
            sourceEdit: { line in
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.contains("_realmObjectName") || code.contains("LadderDefaultSchema") { return nil }
                return code.hasPrefix("static ") ? String(code.dropFirst(7)) : code
            }),
    ]

    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test(arguments: pages) func testEverySampleIsCompiled(page: Page) throws {
        let samples = PageSample.samples(of: try Self.read(page.path), page: page.path)
        let sources = try page.sources.map { path in
            try Self.read(path).split(separator: "\n", omittingEmptySubsequences: false).compactMap { page.sourceEdit(String($0)) }
                .joined(separator: "\n")
        }
        if page.path != "README.md" {
            #expect(samples.contains { $0.notCompiled == nil }, "\(page.path) has no compiled sample: is it still where this test looks?")
        }
        for sample in samples {
            if let problem = sample.problem(in: sources) { Issue.record(Comment(rawValue: problem)) }
        }
    }

    /// Every DocC article is checked.
    @Test func testEveryArticleIsListed() throws {
        for catalog in [Self.docc, Self.syncDocc] {
            let articles = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(catalog).path)
                .filter { $0.hasSuffix(".md") }
            for article in articles {
                #expect(Self.pages.contains { $0.path == catalog + article }, "\(article) is not checked")
            }
        }
    }

    // MARK: The checker

    static let page = """
        Text.

        ```swift
        let dogs = realm.objects(Dog.self)
            .where { $0.age < 2 }   // aligned
        ```

        <!-- not compiled: RealmSwift -->
        ```swift
        let token = dogs.observe { _ in }
        ```

          ```swift
          import Burrow

          print(dogs.count)
          ```
        """

    @Test func testSamplesAreReadWithTheirMarks() {
        let samples = PageSample.samples(of: Self.page, page: "Page.md")
        #expect(samples.map(\.number) == [1, 2, 3])
        #expect(samples.map(\.line) == [3, 9, 13])
        #expect(samples.map(\.notCompiled) == [nil, "RealmSwift", nil])
        #expect(samples[0].code == ["let dogs = realm.objects(Dog.self)", "    .where { $0.age < 2 }   // aligned"])
    }

    @Test func testASampleInATestSourceIsFound() {
        let source = """
            @testable import Burrow
            func test() {
                    let dogs = realm.objects(Dog.self)

                        .where { $0.age < 2 }  // aligned
                #expect(dogs.count == 1)  // test only
                print(dogs.count)
            }
            """
        let samples = PageSample.samples(of: Self.page, page: "Page.md")
        #expect(samples.compactMap { $0.problem(in: ["", source]) }.isEmpty)
    }

    @Test func testADriftedSampleIsReported() throws {
        let source = """
            import Burrow
            let dogs = realm.objects(Dog.self)
                .where { $0.age < 3 }  // aligned
            """
        let samples = PageSample.samples(of: Self.page, page: "Page.md")
        let problem = try #require(samples[0].problem(in: [source]))
        #expect(problem.hasPrefix("Page.md, sample 1 (line 3): no test compiles its line `.where { $0.age < 2 } // aligned`"))
        #expect(problem.contains("after its line `let dogs = realm.objects(Dog.self)`"))
        #expect(samples[1].problem(in: [source]) == nil, "a sample marked as not compiled is not looked for")
        let missing = try #require(samples[2].problem(in: [source]))
        #expect(missing.hasPrefix("Page.md, sample 3 (line 13): no test compiles its line `print(dogs.count)`."))
    }

    @Test func testSplitLinesAreNotOneSample() throws {
        let source = """
            @testable import Burrow
            print(dogs.count)
            let dogs = realm.objects(Dog.self)
            print(dogs.count)
            .where { $0.age < 2 } // aligned
            """
        let samples = PageSample.samples(of: Self.page, page: "Page.md")
        #expect(samples[0].problem(in: [source]) != nil, "both lines are there, but not together")
        #expect(samples[2].problem(in: [source]) == nil)
        let unimported = try #require(samples[2].problem(in: ["print(dogs.count)"]))
        #expect(unimported == "Page.md, sample 3 (line 13): no test source has `import Burrow`.")
    }
}
