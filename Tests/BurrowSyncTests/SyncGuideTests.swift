import Burrow
import BurrowSync
import Foundation

// The samples of the Sync article, of BurrowSync's overview, of the README and of the porting
// guide's Device Sync section, compiled here (`DocumentationSamplesTests` finds their lines in
// this file). `SyncDemoTests` runs the walk-through itself, as `Examples/SyncDemo`. The
// walk-through's lines follow the class's, as on the page.

final class Todo: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted var tags: List<String>
}
@MainActor func syncWalkThroughSample() async throws {  // test only
    let server = PostgresServer("host=/var/run/postgresql dbname=todos")

    func client(_ file: String) async throws -> (SyncClient, Realm.Configuration) {
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [Todo.self])
        let client = try await SyncClient(configuration: configuration, server: server, classes: [Todo.self])
        try await client.start()
        return (client, configuration)
    }

    let (laptop, laptopFile) = try await client("laptop.burrow")
    let (phone, phoneFile) = try await client("phone.burrow")

    let realm = try await Realm.open(configuration: laptopFile)
    try await realm.asyncWrite {
        let todo = Todo()
        todo.title = "Walk Rex"
        todo.tags.append("dogs")
        try realm.add(todo)
    }
    try await laptop.waitForUpload()  // the change is in PostgreSQL
    try await phone.waitForDownload()  // and in the phone's file

    let phoneRealm = try await Realm.open(configuration: phoneFile)
    print(phoneRealm.objects(Todo.self).map(\.title))  // ["Walk Rex"]

    await laptop.stop()
    await phone.stop()
}

/// The overview's sample.
func syncOverviewSample(url: URL) async throws {
    let client = try await SyncClient(
        configuration: Realm.Configuration(fileURL: url, objectTypes: [Todo.self]),
        server: PostgresServer("host=/var/run/postgresql dbname=app user=device_7"),
        classes: [Todo.self])
    try await client.start()
}

/// The README's sample.
func syncReadmeSample(url: URL) async throws {
    let client = try await SyncClient(
        configuration: Realm.Configuration(fileURL: url, objectTypes: [Todo.self]),
        server: PostgresServer("host=/var/run/postgresql dbname=todos"),
        classes: [Todo.self])
    try await client.start()
}

/// The article's state stream.
func syncStatesSample(client: SyncClient) async {
    for await state in client.states {
        switch state {
        case .offline(let error): showBanner("Offline: \(error.localizedDescription)")
        case .syncing(let pending): showProgress(pending)
        default: hideBanner()
        }
    }
}

func showBanner(_ text: String) {}
func showProgress(_ pending: Int) {}
func hideBanner() {}

/// The porting guide's Device Sync sample.
@MainActor
func syncPortingSample(url: URL) async throws {
    let configuration = Realm.Configuration(fileURL: url, objectTypes: [Todo.self])
    let client = try await SyncClient(
        configuration: configuration, server: PostgresServer("dbname=todos user=device_7"), classes: [Todo.self])
    try await client.start()
    let realm = try await Realm.open(configuration: configuration)
    _ = realm  // test only
}
