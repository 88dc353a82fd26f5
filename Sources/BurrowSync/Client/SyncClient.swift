import Burrow
import Foundation

/// Replicates the objects of chosen classes between a Burrow file and a PostgreSQL database.
///
///     let client = try await SyncClient(
///         configuration: Realm.Configuration(fileURL: url, objectTypes: [Todo.self]),
///         server: PostgresServer("host=/run/app dbname=app user=device_7"),
///         classes: [Todo.self])
///     try await client.start()
///     try await client.waitForUpload()
///
/// The first client for a file records its classes in the file: from then on every commit
/// that changes their objects, by any realm, actor or process, queues the change in the same
/// transaction, whether or not a client runs. A running client uploads what is queued, in
/// commit order, and downloads what other clients and plain SQL wrote, as soon as PostgreSQL
/// commits it (it listens for the notifications sync's triggers send). The app keeps using
/// `Realm`, `RealmActor` and the observed wrappers on the same file; downloaded changes arrive
/// in their change streams like any commit.
///
/// Each class is a table named as the class, one column per property (see the Sync article
/// for the types); the first client to reach a database creates what is missing, if its role
/// may. Conflicts: PostgreSQL's commit order decides, an update overwrites only the
/// properties it changed, a delete wins over a concurrent update, and changes waiting for
/// upload stay on top of what comes down.
///
/// The client runs on a thread of its own (a `RealmExecutor`), where it waits for PostgreSQL.
/// Run one client per file: a second one, in this process or another, is refused.
public actor SyncClient {
    private let executor = RealmExecutor()
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let configuration: Realm.Configuration
    /// The database this client replicates with.
    public nonisolated let server: PostgresServer
    /// The names of the synced classes.
    public nonisolated let classNames: [String]

    private let channel = Broadcast<SyncState>(.stopped, replaysLatest: true)
    private let downloadChannel = Broadcast<SyncDownload>(replaysLatest: false)
    private var realm: Realm?
    private var session: SyncSession?
    private var listener: NotificationListener?
    private var loop: Task<Void, Never>?
    private var localCommits: Task<Void, Never>?
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    private var isPaused = false
    private var isStopped = false
    private var uploadWaiters: [(sequence: UInt64, completion: Completion)] = []
    private var downloadWaiters: [(round: Int, completion: Completion)] = []
    /// Download rounds begun and ended.
    private var downloadsBegun = 0
    private var downloadsEnded = 0
    private var rejections: [SyncRejection] = []
    private var unreadable: [SyncRejection] = []
    /// `start()` calls waiting for the first round, or its first failure.
    private var startWaiters: [Completion] = []
    /// The number of changed objects waiting for upload when it was last read.
    private var lastPendingCount = 0

    /// Makes a client for the file `configuration` opens, replicating the objects of `classes`
    /// with `server`, and records the classes in the file, so that every commit from now on
    /// queues their changes (the objects they hold now are queued once). Does not connect:
    /// `start()` does.
    ///
    /// Throws `RealmError` if the file cannot be opened, or a class cannot be synced: each
    /// needs a primary key, and its properties must be of the kinds the Sync article lists.
    public init(configuration: Realm.Configuration, server: PostgresServer, classes: [Object.Type]) async throws {
        self.configuration = configuration
        self.server = server
        classNames = classes.map { $0.className() }.sorted()
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try open()
    }

    /// Opens the realm on the client's thread and records the synced classes.
    private func open() throws {
        let realm = try Realm(configuration: configuration)
        for name in classNames { _ = try SyncedTable(name, in: realm.currentFileSchema) }
        try realm.startSyncing(classNames)
        self.realm = realm
    }

    /// The states the client goes through, starting with the current one: `.connecting`,
    /// `.syncing(pendingUploads:)`, `.idle`, `.offline(_:)` when PostgreSQL cannot be reached
    /// or refuses, and `.stopped`. After `stop()` the stream ends.
    public nonisolated var states: AsyncStream<SyncState> { channel.stream() }

    /// Each download that changed the file, once its write committed: its version and the
    /// classes it changed. Every other commit that changed objects was local. An update of a
    /// change stream covers the commits after the stream's previous element up to its
    /// `versionNumber`, so it holds a download when the download's version is in that range.
    /// Ends when the client stops.
    public nonisolated var downloads: AsyncStream<SyncDownload> { downloadChannel.stream() }

    /// The number of changed objects waiting for upload, in the newest version of the file
    /// (if the file cannot be read now, the number last read).
    public var pendingUploads: Int {
        guard let realm else { return lastPendingCount }
        _ = realm.refresh()
        if let count = try? realm.pendingUploadCount() { lastPendingCount = count }
        return lastPendingCount
    }

    /// The local changes PostgreSQL refused since the client was made (a grant or a
    /// row-level security policy, a value a column cannot hold): each was taken out of the
    /// upload queue and its object downloaded again, so the file shows the server's state.
    public var rejectedUploads: [SyncRejection] { rejections }

    /// The server rows that did not read as objects of their class since the client was made
    /// (a value of the wrong type, JSON of another shape): each was left out of the file, whole,
    /// and is downloaded again when the server changes it.
    public var unreadableRows: [SyncRejection] { unreadable }

    /// Connects, uploads what is pending, downloads what the server has, then keeps up with
    /// both sides until `stop()`. Returns once the first round is done; if the server cannot
    /// be reached, throws that error and keeps trying in the background (the state says
    /// `.offline`).
    public nonisolated func start() async throws {
        try await startCompletion()?.wait()
    }

    /// What `start()` waits for; nil if the client runs already.
    private func startCompletion() throws -> Completion? {
        guard !isStopped else { throw RealmError(.wrongState, "This sync client was stopped; make a new one.") }
        guard loop == nil else { return nil }
        try listenForLocalCommits()
        let completion = Completion()
        startWaiters.append(completion)
        loop = Task { await self.run() }
        return completion
    }

    /// Waits until every change committed to the file before the call is in PostgreSQL (or
    /// refused: see `rejectedUploads`). Throws if the client stops first.
    public nonisolated func waitForUpload() async throws {
        try await uploadCompletion()?.wait()
    }

    /// The `waitForUpload()` calls waiting now.
    var uploadWaiterCount: Int { uploadWaiters.count }

    /// What `waitForUpload()` waits for; nil if nothing is queued.
    private func uploadCompletion() throws -> Completion? {
        guard let realm else { return nil }
        _ = realm.refresh()
        guard let last = try realm.lastPendingUpload() else { return nil }
        try checkRunning()
        let completion = Completion()
        uploadWaiters.append((last, completion))
        wake.yield()
        return completion
    }

    /// Waits until every transaction PostgreSQL committed before the call is in the file.
    /// Throws if the client stops first.
    public nonisolated func waitForDownload() async throws {
        try await downloadCompletion().wait()
    }

    /// What `waitForDownload()` waits for: the end of the next download round to begin.
    private func downloadCompletion() throws -> Completion {
        try checkRunning()
        let completion = Completion()
        downloadWaiters.append((downloadsBegun + 1, completion))
        wake.yield()
        return completion
    }

    /// Stops uploading and downloading until `resume()`; local writes go on and are queued.
    public func pause() async {
        guard !isStopped, !isPaused else { return }
        isPaused = true
        disconnect()
        channel.publish(.stopped)
    }

    /// Connects again after `pause()`, and catches up.
    public func resume() async {
        guard !isStopped, isPaused else { return }
        isPaused = false
        wake.yield()
    }

    /// Stops the client for good: the connection closes, waits in progress throw, and the
    /// state stream ends with `.stopped`. What is queued stays in the file for the next client.
    public func stop() async {
        guard !isStopped else { return }
        isStopped = true
        loop?.cancel()
        localCommits?.cancel()
        wake.finish()
        disconnect()
        let stopped = RealmError(.wrongState, "The sync client was stopped.")
        for waiter in uploadWaiters { waiter.completion.end(.failure(stopped)) }
        for waiter in downloadWaiters { waiter.completion.end(.failure(stopped)) }
        for waiter in startWaiters { waiter.end(.failure(stopped)) }
        uploadWaiters = []
        downloadWaiters = []
        startWaiters = []
        channel.finish(with: .stopped)
        downloadChannel.finish()
        realm = nil
    }

    // MARK: The loop

    private func checkRunning() throws {
        if isStopped { throw RealmError(.wrongState, "The sync client was stopped.") }
    }

    /// Wakes the loop after each local commit. The client's own writes leave this stream
    /// silent (`SyncSession.silenced`).
    private func listenForLocalCommits() throws {
        guard let realm else { return }
        let commits = realm.changes()
        token = commits.token
        let wake = self.wake
        localCommits = Task.detached {
            for await _ in commits { wake.yield() }
        }
    }

    private var token: ChangeToken?

    /// Rounds until the client stops: each after a local commit, a server notification,
    /// `resume()` or a `waitFor…` call wakes it; after a failure, again after a delay that
    /// doubles up to `lastRetryDelay`.
    private func run() async {
        var delay = Self.firstRetryDelay
        var wakes = self.wakes.makeAsyncIterator()
        while !isStopped && !Task.isCancelled {
            if isPaused {
                if await wakes.next() == nil { return }
                continue
            }
            do {
                let session = try await connectIfNeeded()
                guard try await round(session) else { continue }
                delay = Self.firstRetryDelay
                channel.publish(.idle)
                for waiter in startWaiters { waiter.end() }
                startWaiters = []
                if await wakes.next() == nil { return }
            } catch {
                disconnect()
                guard !isStopped else { return }
                // Paused while it waited for the file's client lock: nothing failed.
                if isPaused { continue }
                let failure = Self.realmError(error)
                channel.publish(.offline(failure))
                for waiter in startWaiters { waiter.end(.failure(failure)) }
                startWaiters = []
                try? await Task.sleep(for: .seconds(delay))
                delay = min(delay * 2, Self.lastRetryDelay)
            }
        }
    }

    /// How long, and how far apart, a new client tries the file's lock that another client's
    /// connection holds: 2 seconds in all (by the clock, however busy the machine), longer than
    /// PostgreSQL takes to end the connection of a process that died.
    private static let lockWait = Duration.seconds(2)
    private static let lockRetryDelay = Duration.milliseconds(50)

    private static let firstRetryDelay = 0.05
    private static let lastRetryDelay = 30.0

    private func connectIfNeeded() async throws -> SyncSession {
        if let session, listener?.hasFailed != true { return session }
        disconnect()
        guard let realm else { throw RealmError(.wrongState, "The sync client was stopped.") }
        channel.publish(.connecting)
        let connection = try PostgresConnection(server.connectionString)
        let clientID = try realm.syncClientID() ?? UUID()
        let tables = try classNames.map { name throws(RealmError) in try SyncedTable(name, in: realm.currentFileSchema) }
        let session = SyncSession(realm: realm, connection: connection, tables: tables, clientID: clientID, silenced: token.map { [$0] } ?? [])
        try session.prepareServer()
        // One client per file: the lock is the connection's, and goes with it. A client that
        // died a moment ago (a crash, a kill) holds it until PostgreSQL sees its connection
        // close, so a client started right after it waits that long before giving up.
        let deadline = ContinuousClock.now + Self.lockWait
        while try connection.execute("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", [clientID.uuidString]).rows.first?.first != "t" {
            guard ContinuousClock.now < deadline else {
                throw RealmError(
                    .fileLocked, "Another sync client runs for this file (client \(clientID)); run one client per file.")
            }
            try await Task.sleep(for: Self.lockRetryDelay)
            // The client waits off its actor: `stop()` or `pause()` may have run meanwhile, and
            // this connection then goes with the call.
            try checkRunning()
            if isPaused { throw CancellationError() }
        }
        let wake = self.wake
        listener = try NotificationListener(
            connectionString: server.connectionString, onNotify: { wake.yield() }, onFailure: { _ in wake.yield() })
        self.session = session
        return session
    }

    private func disconnect() {
        listener?.stop()
        listener = nil
        session = nil
    }

    /// One round: uploads every batch, then downloads once, and tells the waiters. Between
    /// batches and before the download it lets the actor's other calls run (a `waitFor…`
    /// registering, `pendingUploads`, `pause()`), so that a wait for an upload ends with the
    /// upload, not with the round. False if `pause()` or `stop()` came meanwhile: the round
    /// ends there, and what it did not do is done by the next.
    private func round(_ session: SyncSession) async throws -> Bool {
        channel.publish(.syncing(pendingUploads: pendingUploads))
        while let through = try uploadBatch(session) {
            for waiter in uploadWaiters where waiter.sequence <= through { waiter.completion.end() }
            uploadWaiters.removeAll { $0.sequence <= through }
            guard await isStillCurrent(session) else { return false }
        }
        guard await isStillCurrent(session) else { return false }
        downloadsBegun += 1
        let round = downloadsBegun
        let download = try session.download()
        unreadable += download.unreadable
        if let committed = download.committed { downloadChannel.publish(committed) }
        downloadsEnded = round
        let downloaded = downloadWaiters.filter { $0.round <= round }
        downloadWaiters.removeAll { $0.round <= round }
        for waiter in downloaded { waiter.completion.end() }
        return true
    }

    /// Uploads one batch; the sequence number it went through, nil if nothing was queued.
    private func uploadBatch(_ session: SyncSession) throws -> UInt64? {
        let upload = try session.uploadBatch()
        rejections += upload.rejections
        return upload.through
    }

    /// Lets the calls waiting for the actor run, then tells whether the round may go on: the
    /// client is neither paused nor stopped, and `session` is still its session.
    private func isStillCurrent(_ session: SyncSession) async -> Bool {
        await Task.yield()
        return !isStopped && !isPaused && self.session === session
    }

    private static func realmError(_ error: any Error) -> RealmError {
        switch error {
        case let error as RealmError: error
        case let error as PostgresError: error.realmError
        default: RealmError(.fail, "\(error)")
        }
    }
}
