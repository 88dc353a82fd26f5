// burrow-observed-demo [--path FILE]
//
// A dog-list screen's model, as a SwiftUI app would have it, driven on the main actor without
// SwiftUI: `@ObservedResults` holds the dogs, quick writes through `$dogs` and through a
// `$dog.name` binding change them, and Observation (`withObservationTracking`) reports each
// state the screen would draw. A commit from a `RealmActor` arrives the same way. The file is a
// temporary one (or FILE), removed at the end.
import Burrow
import Foundation
import Observation

final class Dog: Object, ObjectKeyIdentifiable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var age = 0
}

/// The screen's model: the dogs, sorted by name, and what the screen's buttons do.
@MainActor
final class DogListModel {
    @ObservedResults(Dog.self) var dogs

    init(configuration: Realm.Configuration) {
        _dogs = ObservedResults(Dog.self, configuration: configuration, sortDescriptor: SortDescriptor(keyPath: "name"))
    }

    /// The "+" button.
    func add(name: String, age: Int) {
        $dogs.append(Dog(value: ["name": name, "age": age]))
    }

    /// A list's `.onDelete(perform: $dogs.remove)`.
    func delete(atOffsets offsets: IndexSet) {
        $dogs.remove(atOffsets: offsets)
    }

    /// The quick write of a detail screen's `TextField("Name", text: $dog.name)`.
    func rename(_ dog: Dog, to name: String) {
        @ObservedRealmObject var row = dog
        let text = $row.name
        text.wrappedValue = name
    }

    /// What the screen shows: the dogs, and the error of the last quick write if it failed.
    func render() -> String {
        let names = dogs.map { "\($0.name) (\($0.age))" }
        var text = "\(names.count) dog\(names.count == 1 ? "" : "s")" + (names.isEmpty ? "" : ": " + names.joined(separator: ", "))
        if let error = $dogs.error { text += "; error (\(error.code)): \(error.description)" }
        return text
    }
}

/// Draws the model each time Observation reports a change, as a view would: reads it inside
/// `withObservationTracking`, and after each `onChange` draws again and re-arms.
@MainActor
final class Screen {
    let model: DogListModel
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation
    private let clock = ContinuousClock()

    init(model: DogListModel) {
        self.model = model
        (changes, changed) = AsyncStream.makeStream()
        draw()
    }

    /// Draws and arms Observation for the next change.
    private func draw() {
        let changed = changed
        let text = withObservationTracking {
            model.render()
        } onChange: {
            changed.yield()
        }
        print("  screen: \(text)")
    }

    /// Waits until Observation reports a change, then draws the new state.
    func nextState() async {
        var iterator = changes.makeAsyncIterator()
        _ = await iterator.next()
        draw()
    }
}

func step(_ text: String) { print("> " + text) }

/// A `RealmActor` adds Fido; the screen draws when Observation reports it.
@MainActor
func commitFromAnActor(_ configuration: Realm.Configuration, reachingScreen screen: Screen) async throws {
    let writer = try await RealmActor(configuration: configuration)
    let clock = ContinuousClock()
    let began = clock.now
    try await writer.asyncWrite { realm in try realm.add(Dog(value: ["name": "Fido", "age": 4])) }
    await screen.nextState()
    let microseconds = (clock.now - began) / .microseconds(1)
    print("  (it reached the screen \(Int(microseconds)) µs after the actor's write began)")
    await writer.close()
}

var path: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--path" where !arguments.isEmpty: path = arguments.popFirst()
    default:
        FileHandle.standardError.write(Data("usage: burrow-observed-demo [--path FILE]\n".utf8))
        exit(2)
    }
}
let directory = path == nil ? FileManager.default.temporaryDirectory.appendingPathComponent("burrow-observed-demo-\(UUID().uuidString)") : nil
if let directory { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
let fileURL = path.map { URL(fileURLWithPath: $0) } ?? directory!.appendingPathComponent("dogs.burrow")
let configuration = Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self])

print("Burrow observed demo: a dog list's model on the main actor, file \(fileURL.path)")
do {
    var model: DogListModel? = DogListModel(configuration: configuration)
    var screen: Screen? = Screen(model: model!)

    step("$dogs.append(Dog(value: [\"name\": \"Bandido\", \"age\": 2]))")
    model!.add(name: "Bandido", age: 2)
    await screen!.nextState()

    step("$dogs.append(Dog(value: [\"name\": \"Maui\", \"age\": 1]))")
    model!.add(name: "Maui", age: 1)
    await screen!.nextState()

    step("$dog.name.wrappedValue = \"Bandit\" (Bandido's detail screen, a TextField's binding)")
    model!.rename(model!.dogs[0], to: "Bandit")
    await screen!.nextState()

    step("$dogs.append(a new dog with Maui's primary key): fails, changes nothing, sets $dogs.error")
    model!.$dogs.append(Dog(value: ["_id": model!.dogs[1]._id, "name": "Maui again", "age": 5]))
    await screen!.nextState()

    step("a RealmActor commits a new dog, Fido, on its own executor")
    try await commitFromAnActor(configuration, reachingScreen: screen!)

    step("$dogs.remove(atOffsets: [0]) (swipe to delete Bandit; clears the error)")
    model!.delete(atOffsets: [0])
    await screen!.nextState()

    // The screen goes, and its wrappers with it: they end their streams as they go, so
    // nothing holds the file.
    screen = nil
    model = nil
    _ = (screen, model)
    try Realm.deleteFiles(for: configuration)
    if let directory { try FileManager.default.removeItem(at: directory) }
    print("removed \(fileURL.path)")
} catch {
    FileHandle.standardError.write(Data("burrow-observed-demo: \(error)\n".utf8))
    if let directory { try? FileManager.default.removeItem(at: directory) }
    exit(1)
}
