import Testing

@testable import BurrowStorage

/// The English of messages: counts with their nouns, and nouns with their articles.
@Suite struct MessageGrammarTests {
    @Test func aCountTakesTheSingularForOneAndThePluralOtherwise() {
        #expect(counted(1, "class") == "1 class")
        #expect(counted(0, "class") == "0 classes")
        #expect(counted(2, "entry") == "2 entries")
        #expect(counted(1, "entry") == "1 entry")
        #expect(counted(3, "property") == "3 properties")
        #expect(counted(2, "key") == "2 keys", "a y after a vowel takes an s")
        #expect(counted(UInt64(5), "object") == "5 objects")
        #expect(counted(2, "process") == "2 processes")
        #expect(counted(2, "index", plural: "indexes") == "2 indexes")
        #expect(counted(-1, "byte") == "-1 bytes")
    }

    @Test func aWordTakesTheArticleOfItsSound() {
        for (word, expected) in [
            ("int", "an int"), ("objectId", "an objectId"), ("Owner", "an Owner"), ("any", "an any"), ("string", "a string"),
            ("decimal128", "a decimal128"), ("uuid", "a uuid"), ("User", "a User"), ("Update", "an Update"), ("UUID", "a UUID"),
            ("NSNull", "an NSNull"), ("URL", "a URL"), ("HTTPHeader", "an HTTPHeader"), ("Dog", "a Dog"), ("", ""),
            ("unique", "a unique"), ("umbrella", "an umbrella"), ("X", "an X"), ("B", "a B"),
        ] {
            #expect(withArticle(word) == expected, "\(word)")
        }
    }
}
