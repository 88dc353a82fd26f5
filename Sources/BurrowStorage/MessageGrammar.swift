// The English of the messages a person reads (errors, reports, the tool's lines): a count with
// its noun, and a noun with its article, for words that are only known when the message is
// made (a property type, a class name).

/// A count and its noun: "1 class", "2 classes", "0 objects", "1 entry", "3 entries". The noun
/// is singular for exactly one; its plural is `plural`, or made by English's regular rules
/// (`pluralOf`).
@usableFromInline
package func counted(_ count: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : plural ?? pluralOf(noun))"
}

/// The regular English plural of `noun`: "es" after s, x, z, ch and sh ("classes"), "ies" for
/// a "y" after a consonant ("entries", "properties"), otherwise an "s".
package func pluralOf(_ noun: String) -> String {
    let lowercased = noun.lowercased()
    if ["s", "x", "z", "ch", "sh"].contains(where: lowercased.hasSuffix) { return noun + "es" }
    if lowercased.hasSuffix("y"), let before = lowercased.dropLast().last, !"aeiou".contains(before) {
        return noun.dropLast() + "ies"
    }
    return noun + "s"
}

/// `word` after its indefinite article, as the word is said: "an int", "an objectId", "an
/// Owner", "a string", "a uuid", "a User", "an Update", "a UUID", "an NSNull". An initialism
/// (a capital letter alone, or the first two letters capitals) is said letter by letter; a "u" said as "you" (uuid,
/// user, unique, usual, utility) takes "a".
package func withArticle(_ word: String) -> String {
    guard let first = word.first else { return word }
    let vowelSound: Bool
    if first.isUppercase, word.dropFirst().first?.isUppercase ?? true {
        vowelSound = "AEFHILMNORSX".contains(first)
    } else {
        let lowercased = word.lowercased()
        let saidAsYou = ["uu", "uni", "use", "usi", "usu", "uti", "ura"].contains(where: lowercased.hasPrefix)
        vowelSound = "aeiou".contains(lowercased.first!) && !saidAsYou
    }
    return (vowelSound ? "an " : "a ") + word
}
