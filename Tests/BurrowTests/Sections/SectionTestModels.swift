import Burrow
import Foundation

/// The model of the sectioned results tests, stored under the name it had before it was namespaced.
enum SectionTestModels {
    /// A word, sectioned by its first letter in the tests of sectioned results.
    final class Word: Object {
        override class func _realmObjectName() -> String? { "STWord" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var text = ""
        @Persisted var flag = false
        @Persisted var count = 0
        @Persisted var tags: List<String>
        @Persisted var related: List<SectionTestModels.Word>

        /// The first letter of `text` (empty for an empty text): a section key computed from one
        /// property, as RealmSwift's tests use.
        var firstLetter: String { text.first.map(String.init) ?? "" }

        /// Reads two properties: no sort can follow it.
        var textAndCount: String { "\(text)\(count)" }

        convenience init(_ id: Int, _ text: String, count: Int = 0) {
            self.init()
            self.id = id
            self.text = text
            self.count = count
        }
    }

    /// A projection of a word, sectioned by its projected and computed properties.
    final class WordCard: Projection<SectionTestModels.Word> {
        @Projected(\SectionTestModels.Word.text) var title
        @Projected(\SectionTestModels.Word.count) var uses
        @Projected(\SectionTestModels.Word.related.count) var relatedCount

        /// The first letter of `title`: computed from one projected property.
        var initial: String { title.first.map(String.init) ?? "" }
    }
}

/// A realm holding banana (1), box (2), apple (3) and chalk (4), RealmSwift's fixture for
/// sectioned results: sectioned by first letter, a = [apple], b = [banana, box], c = [chalk].
/// The realm is the caller's domain's.
func fruitRealm(
    _ configuration: Realm.Configuration = temporaryConfiguration(), isolation: isolated (any Actor)? = #isolation
) throws -> Realm {
    let realm = try Realm(configuration: configuration, isolation: isolation)
    try realm.write {
        try realm.add([
            SectionTestModels.Word(1, "banana"), SectionTestModels.Word(2, "box"), SectionTestModels.Word(3, "apple"),
            SectionTestModels.Word(4, "chalk"),
        ])
    }
    return realm
}

extension Realm {
    /// The word with `id`.
    func word(_ id: Int) -> SectionTestModels.Word { object(ofType: SectionTestModels.Word.self, forPrimaryKey: id)! }
}

/// The texts of each section, in order.
func texts<S: Collection>(_ sections: S) -> [[String]] where S.Element: Collection, S.Element.Element == SectionTestModels.Word {
    sections.map { $0.map(\.text) }
}

/// The texts of each frozen section, in order.
func texts(_ sections: FrozenSectionedResults<String, SectionTestModels.Word>) -> [[String]] {
    sections.map { $0.map(\.text) }
}

/// An index path of (section, item).
func path(_ section: Int, _ item: Int) -> IndexPath { IndexPath(item: item, section: section) }
