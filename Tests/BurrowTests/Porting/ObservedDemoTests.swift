import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// The runnable example of the observed property wrappers (`Examples/ObservedDemo`,
/// `swift run burrow-observed-demo`), run as a program of its own: each quick write, the failed
/// one and a `RealmActor`'s commit reach its screen through Observation, and it removes its file.
@Suite(.temporaryDirectory, .ownThread) struct ObservedDemoTests {
    @Test func theDemoPrintsEachStateObservationReportsAndRemovesItsFile() throws {
        let directory = try testDirectory()
        let file = directory.fileURL("dogs.burrow")

        let run = try ChildProcess.run(
            ChildProcess.executable("burrow-observed-demo", overriddenBy: "BURROW_OBSERVED_DEMO"),
            arguments: ["--path", file.path], directory: directory.path, label: "demo", workingDirectory: directory.path)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.isEmpty)
        let printed = run.output.split(separator: "\n").map(String.init)
        let duplicate = "  screen: 2 dogs: Bandit (2), Maui (1); error (primaryKeyExists): A Dog with primary key "
        let arrived = "  screen: 3 dogs: Bandit (2), Fido (4), Maui (1); error (primaryKeyExists): A Dog with primary key "
        let expected: [(line: String, isPrefix: Bool)] = [
            ("Burrow observed demo: a dog list's model on the main actor, file \(file.path)", false),
            ("  screen: 0 dogs", false),
            ("> $dogs.append(Dog(value: [\"name\": \"Bandido\", \"age\": 2]))", false),
            ("  screen: 1 dog: Bandido (2)", false),
            ("> $dogs.append(Dog(value: [\"name\": \"Maui\", \"age\": 1]))", false),
            ("  screen: 2 dogs: Bandido (2), Maui (1)", false),
            ("> $dog.name.wrappedValue = \"Bandit\" (Bandido's detail screen, a TextField's binding)", false),
            ("  screen: 2 dogs: Bandit (2), Maui (1)", false),
            ("> $dogs.append(a new dog with Maui's primary key): fails, changes nothing, sets $dogs.error", false),
            (duplicate, true),
            ("> a RealmActor commits a new dog, Fido, on its own executor", false),
            (arrived, true),
            ("  (it reached the screen ", true),
            ("> $dogs.remove(atOffsets: [0]) (swipe to delete Bandit; clears the error)", false),
            ("  screen: 2 dogs: Fido (4), Maui (1)", false),
            ("removed \(file.path)", false),
        ]
        #expect(printed.count == expected.count, "\(printed)")
        for (printed, want) in zip(printed, expected) {
            if want.isPrefix {
                #expect(printed.hasPrefix(want.line), "\(printed)")
            } else {
                #expect(printed == want.line)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
