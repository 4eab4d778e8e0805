import CServerBench
import Dispatch
import Synchronization
import Vow

/// Bluebird's two server benchmarks (petkaantonov/bluebird, `benchmark/`), ported: many
/// requests in flight at once, each a small program of fake asynchronous database calls,
/// written in the plain-callback style and with promises, in Swift and in C.
///
/// - `doxbee` (doxbee-sequential): one upload is a sequence of dependent calls: put the
///   blob and look the file up (the promise versions do both at once and join them, as
///   Bluebird's does), insert the version, create the file (the lookup finds none, as in
///   Bluebird's fakes: a query made by a synchronous callback, then run), insert the file
///   version, update the file, commit; an error rolls the transaction back.
/// - `parallel` (madeup-parallel): one upload runs 25 inserts at once in one transaction,
///   then commits (and, as Bluebird's versions do, finishes without waiting for the
///   commit).
///
/// The fake asynchronous calls complete on a Vow dispatcher, each in a job of its own (as
/// Bluebird's fakes complete on the next tick): in Swift the library's serial queue
/// (`.default`), the callback versions through `Dispatcher.dispatch`, the promise version
/// through `Promise(on:work:)`; in C the libuv bridge's dispatcher (`vow_uv.h`), through
/// `vow_dispatch` in both versions (see `Sources/CServerBench/server.c`); swift-nio's
/// version on one `MultiThreadedEventLoopGroup` loop, through `loop.submit`. Everything a
/// request does runs on that one thread (the requests are started there too), as a
/// Node.js server runs on its loop.
///
/// One op is one request: `summary.sh --callgrind` reports instructions per request, and
/// `ServerMemory` the peak heap bytes per request in flight.
public enum ServerWorkload: String, CaseIterable, Sendable {
    case doxbee = "doxbee"
    case parallel = "parallel"

    /// Concurrent inserts per `parallel` request (Bluebird's `parallelQueries`).
    public static let parallelQueries = 25

    /// Requests in flight at scale `scale` (10,000 at scale 1, as Bluebird runs them).
    public func requests(scale: Double) -> Int {
        Swift.max(1, Int(10_000 * scale))
    }
}

/// The programs each workload is written as.
public enum ServerSide: String, CaseIterable, Sendable {
    case swiftCallbacks = "Swift callbacks"
    case vow = "Vow (Swift)"
    case nio = "swift-nio futures"
    case cCallbacks = "C callbacks (libuv)"
    case cVow = "Vow C (libuv)"

    public var isC: Bool { self == .cCallbacks || self == .cVow }
}

/// Builds the trial of `workload` written as `side`: `requests` uploads started at once,
/// waited for.
public func makeServerTrial(_ workload: ServerWorkload, _ side: ServerSide, scale: Double) throws(Skip) -> Trial {
    let requests = workload.requests(scale: scale)
    var result = -1
    let run: () -> Void
    switch side {
    case .swiftCallbacks:
        run = { result = CallbackServer.run(workload, requests: requests) }
    case .vow:
        run = { result = VowServer.run(workload, requests: requests) }
    case .nio:
        run = { result = NIOServer.run(workload, requests: requests) }
    case .cCallbacks, .cVow:
        guard CWorkloads.available else { throw .noCInterface }
        let promises: Int32 = side == .cVow ? 1 : 0
        let number: Int32 = workload == .doxbee ? 0 : 1
        run = { result = csb_run(number, promises, requests) }
    }
    return Trial(run: run, finish: {
        expect(result, requests, "requests completed without error")
    })
}

// MARK: What the requests compute (shared by every Swift version)

/// A file row; Bluebird's fake lookup finds none, so every upload creates one.
struct FileRow: Sendable {
    let id: Int
    let version: Int
}

/// A version row, made from the blob and the file found (Bluebird's `version` object).
struct VersionRow: Sendable {
    let userAccountId: Int
    let date: UInt64
    let blobId: Int
    let creatorId: Int
    let previousId: Int?
    let id: Int

    init(blobId: Int, file: FileRow?, date: UInt64) {
        userAccountId = 7
        self.date = date
        self.blobId = blobId
        creatorId = 7
        previousId = file?.version
        id = (((userAccountId &* 31) &+ blobId) &* 31 &+ (previousId ?? 0)) &* 31 &+ Int(truncatingIfNeeded: date)
    }
}

/// The synchronous work of an upload, shared by every version.
enum Upload {
    /// The path every request uploads to.
    static let path = "/users/7/documents/report.txt"

    /// The file name (Bluebird's `idOrPath.split('/')`).
    static func fileName(_ path: String) -> Substring {
        path.split(separator: "/").last ?? ""
    }
}

/// Counts finished requests; the last one wakes the waiting benchmark thread.
final class RequestCounter: @unchecked Sendable {
    // @unchecked: `failures` and the count are atomic; the semaphore is thread-safe.
    private let remaining: Atomic<Int>
    private let failures = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)
    let total: Int

    init(_ total: Int) {
        self.total = total
        remaining = Atomic(total)
    }

    /// One request finished, with `error` if it failed.
    func done(_ error: (any Error)?) {
        if error != nil { failures.add(1, ordering: .relaxed) }
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { finished.signal() }
    }

    /// Waits for every request; returns how many finished without error.
    func wait() -> Int {
        finished.wait()
        return total - failures.load(ordering: .relaxed)
    }

    /// Waits for every request, then until `loop` let go of everything the requests left
    /// on it (a job queued now runs after the batch the last request finished in was
    /// freed), so that freeing what the requests made is counted too.
    func wait(thenDrain loop: any Dispatcher) -> Int {
        let completed = wait()
        let drained = DispatchSemaphore(value: 0)
        loop.dispatch { drained.signal() }
        drained.wait()
        return completed
    }
}

/// A clock the requests read (Bluebird's `new Date()`): a counter, so runs are identical.
enum FakeClock {
    private static let ticks = Atomic<UInt64>(0)
    static var now: UInt64 { ticks.add(1, ordering: .relaxed).newValue }
}

/// An error no fake call returns (the error paths are written, not taken, as in
/// Bluebird's default run).
struct FakeDatabaseError: Error {}

// MARK: The plain-callback version

/// The fake database with a callback interface: each call completes on `loop` in a job of
/// its own (`Dispatcher.dispatch`).
struct CallbackDatabase: Sendable {
    let loop: any Dispatcher

    /// `blobManager.create(account).put(stream, callback)`: the blob's id.
    func putBlob(_ callback: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        loop.dispatch { callback(.success(1)) }
    }

    /// `self.byUuidOrPath(idOrPath).get(callback)`: the file (none).
    func file(at path: String, _ callback: @escaping @Sendable (Result<FileRow?, any Error>) -> Void) {
        loop.dispatch { callback(.success(nil)) }
    }

    /// `….execWithin(tx, callback)` of any query: done.
    func exec(_ callback: @escaping @Sendable ((any Error)?) -> Void) {
        loop.dispatch { callback(nil) }
    }

    /// `self.createQuery(idOrPath, fields, callback)`: calls back at once with the query
    /// (Bluebird's fake does too).
    func createQuery(_ path: String, id: Int, name: Substring, version: Int,
                     _ callback: (CallbackQuery) -> Void) {
        callback(CallbackQuery(database: self))
    }
}

/// A query made by `createQuery`.
struct CallbackQuery: Sendable {
    let database: CallbackDatabase

    func exec(within transaction: CallbackTransaction, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        database.exec(callback)
    }
}

/// `db.begin()`: a transaction.
final class CallbackTransaction: Sendable {
    let database: CallbackDatabase

    init(_ database: CallbackDatabase) { self.database = database }

    func commit(_ callback: @escaping @Sendable ((any Error)?) -> Void) { database.exec(callback) }
    func rollback() { database.exec { _ in } }
}

/// The uploads as Bluebird's `callbacks-baseline.js` writes them: nested callbacks.
enum CallbackServer {
    static func run(_ workload: ServerWorkload, requests: Int) -> Int {
        let database = CallbackDatabase(loop: .default)
        let counter = RequestCounter(requests)
        database.loop.dispatch {
            for _ in 0..<requests {
                switch workload {
                case .doxbee: doxbee(database, Upload.path, counter.done)
                case .parallel: parallel(database, counter.done)
                }
            }
        }
        return counter.wait(thenDrain: database.loop)
    }

    static func doxbee(_ db: CallbackDatabase, _ path: String, _ done: @escaping @Sendable ((any Error)?) -> Void) {
        let tx = CallbackTransaction(db)
        @Sendable func backoff(_ error: any Error) {
            tx.rollback()
            done(error)
        }
        @Sendable func afterFileExists(_ error: (any Error)?, _ fileId: Int, _ version: VersionRow) {
            if let error { return backoff(error) }
            db.exec { error in   // FileVersion.insert({fileId, versionId}).execWithin(tx)
                if let error { return backoff(error) }
                db.exec { error in   // File.whereUpdate({id: fileId}, {version}).execWithin(tx)
                    if let error { return backoff(error) }
                    tx.commit(done)
                }
            }
        }
        db.putBlob { blob in
            guard case .success(let blobId) = blob else { return done(FakeDatabaseError()) }
            db.file(at: path) { found in
                guard case .success(let file) = found else { return done(FakeDatabaseError()) }
                let version = VersionRow(blobId: blobId, file: file, date: FakeClock.now)
                db.exec { error in   // Version.insert(version).execWithin(tx)
                    if let error { return backoff(error) }
                    if let file { return afterFileExists(nil, file.id, version) }
                    let newId = Int(truncatingIfNeeded: FakeClock.now)
                    db.createQuery(path, id: newId, name: Upload.fileName(path), version: version.id) { query in
                        query.exec(within: tx) { error in afterFileExists(error, newId, version) }
                    }
                }
            }
        }
    }

    static func parallel(_ db: CallbackDatabase, _ done: @escaping @Sendable ((any Error)?) -> Void) {
        let tx = CallbackTransaction(db)
        let state = ParallelCallbackState(total: ServerWorkload.parallelQueries, tx: tx, done: done)
        for _ in 0..<ServerWorkload.parallelQueries {
            db.exec(state.callback)   // FileVersion.insert({index: i}).execWithin(tx, callback)
        }
    }
}

/// What the 25 callbacks of one `parallel` request share (Bluebird's `current` and
/// `total`); they all run on the loop.
final class ParallelCallbackState: @unchecked Sendable {
    // @unchecked: touched on the loop's thread only.
    private var current = 0
    private var failed = false
    private let total: Int
    private let tx: CallbackTransaction
    private let done: @Sendable ((any Error)?) -> Void

    init(total: Int, tx: CallbackTransaction, done: @escaping @Sendable ((any Error)?) -> Void) {
        self.total = total
        self.tx = tx
        self.done = done
    }

    /// The callback every insert completes with.
    var callback: @Sendable ((any Error)?) -> Void {
        { [self] error in self.completed(error) }
    }

    private func completed(_ error: (any Error)?) {
        guard !failed else { return }
        if let error {
            failed = true
            tx.rollback()
            return done(error)
        }
        current += 1
        if current == total {
            tx.commit { _ in }
            done(nil)
        }
    }
}

// MARK: The Vow version

/// The fake database with a promise interface: each call is a promise of a job on `loop`
/// (`Promise(on:work:)`).
struct PromiseDatabase: Sendable {
    let loop: any Dispatcher

    func putBlob() -> Promise<Int> { Promise(on: loop) { 1 } }
    func file(at path: String) -> Promise<FileRow?> { Promise(on: loop) { nil } }
    func exec() -> Promise<Void> { Promise(on: loop) {} }
    /// A query at once (Bluebird's promisified `createQuery` calls back synchronously).
    func createQuery(_ path: String, id: Int, name: Substring, version: Int) -> Promise<PromiseQuery> {
        .value(PromiseQuery(database: self))
    }
}

struct PromiseQuery: Sendable {
    let database: PromiseDatabase
    func exec(within transaction: PromiseTransaction) -> Promise<Void> { database.exec() }
}

/// What the callbacks of one upload share (Bluebird's `var version, fileId, file`); they
/// run one after another, on the loop.
final class DoxbeeUpload: @unchecked Sendable {
    // @unchecked: each field is written by one callback and read by the later ones, which
    // the chain orders.
    let tx: PromiseTransaction
    var file: FileRow?
    var version: VersionRow?
    var fileId = 0

    init(_ database: PromiseDatabase, _ path: String) {
        tx = PromiseTransaction(database)
    }
}

final class PromiseTransaction: Sendable {
    let database: PromiseDatabase
    init(_ database: PromiseDatabase) { self.database = database }
    func commit() -> Promise<Void> { database.exec() }
    func rollback() { _ = database.exec() }
}

/// The uploads as Bluebird's `promises-bluebird.js` writes them: one chain, whose last
/// step calls the request's `done` (then, or after a rollback, with the error).
enum VowServer {
    static func run(_ workload: ServerWorkload, requests: Int) -> Int {
        let database = PromiseDatabase(loop: .default)
        let counter = RequestCounter(requests)
        database.loop.dispatch {
            for _ in 0..<requests {
                switch workload {
                case .doxbee: doxbee(database, Upload.path, counter.done)
                case .parallel: parallel(database, counter.done)
                }
            }
        }
        return counter.wait(thenDrain: database.loop)
    }

    static func doxbee(_ db: PromiseDatabase, _ path: String, _ done: @escaping @Sendable ((any Error)?) -> Void) {
        let upload = DoxbeeUpload(db, path)
        when(fulfilled: db.putBlob(), db.file(at: path)).then { blobId, file in
            upload.file = file
            let version = VersionRow(blobId: blobId, file: file, date: FakeClock.now)
            upload.version = version
            return db.exec()   // Version.insert(version).execWithin(tx)
        }.then { () -> Promise<Int> in
            if let file = upload.file { return .value(file.id) }
            let newId = Int(truncatingIfNeeded: FakeClock.now)
            return db.createQuery(path, id: newId, name: Upload.fileName(path), version: upload.version!.id)
                .then { query in query.exec(within: upload.tx) }
                .map { newId }
        }.then { fileId in
            upload.fileId = fileId
            return db.exec()   // FileVersion.insert({fileId, versionId}).execWithin(tx)
        }.then {
            db.exec()          // File.whereUpdate({id: fileId}, {version}).execWithin(tx)
        }.then {
            upload.tx.commit()
        }.done {
            done(nil)
        }.catch { error in
            upload.tx.rollback()
            done(error)
        }
    }

    static func parallel(_ db: PromiseDatabase, _ done: @escaping @Sendable ((any Error)?) -> Void) {
        let tx = PromiseTransaction(db)
        var queries: [Promise<Void>] = []
        queries.reserveCapacity(ServerWorkload.parallelQueries)
        for _ in 0..<ServerWorkload.parallelQueries {
            queries.append(db.exec())   // FileVersion.insert({index: i}).execWithin(tx)
        }
        when(fulfilled: queries).done { _ in
            _ = tx.commit()
            done(nil)
        }.catch { error in
            tx.rollback()
            done(error)
        }
    }
}
