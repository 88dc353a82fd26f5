import Burrow
import BurrowTestSupport

/// Removes a random element of `list` (or, `moving`, moves one to a random place), and does the
/// same to `mirror`, the model of the list in a randomized test. Does nothing to a list too
/// short for it.
func randomlyRemoveOrMove<Element, Mirror>(in list: List<Element>, mirror: inout [Mirror], moving: Bool, random: inout TestRandom) {
    guard mirror.count > (moving ? 1 : 0) else { return }
    let from = random.next(upperBound: mirror.count)
    guard moving else {
        list.remove(at: from)
        mirror.remove(at: from)
        return
    }
    let to = random.next(upperBound: mirror.count)
    list.move(from: from, to: to)
    mirror.insert(mirror.remove(at: from), at: to)
}
