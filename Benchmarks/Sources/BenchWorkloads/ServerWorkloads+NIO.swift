import NIOCore

/// The fake database for swift-nio: each call is a future of a task on `loop`
/// (`loop.submit`, NIO's job on the loop).
struct NIODatabase: Sendable {
    let loop: any EventLoop

    func putBlob() -> EventLoopFuture<Int> { loop.submit { 1 } }
    func file(at path: String) -> EventLoopFuture<FileRow?> { loop.submit { nil } }
    func exec() -> EventLoopFuture<Void> { loop.submit {} }
    func createQuery(_ path: String, id: Int, name: Substring, version: Int) -> EventLoopFuture<NIOQuery> {
        loop.makeSucceededFuture(NIOQuery(database: self))
    }
}

struct NIOQuery: Sendable {
    let database: NIODatabase
    func exec(within transaction: NIOTransaction) -> EventLoopFuture<Void> { database.exec() }
}

final class NIOTransaction: Sendable {
    let database: NIODatabase
    init(_ database: NIODatabase) { self.database = database }
    func commit() -> EventLoopFuture<Void> { database.exec() }
    func rollback() { _ = database.exec() }
}

/// What the callbacks of one upload share (see `DoxbeeUpload`).
final class NIODoxbeeUpload: @unchecked Sendable {
    // @unchecked: written and read in the chain's order, on the loop.
    let tx: NIOTransaction
    var file: FileRow?
    var version: VersionRow?
    var fileId = 0

    init(_ database: NIODatabase) { tx = NIOTransaction(database) }
}

/// The uploads with swift-nio futures, as NIO code writes them: `flatMap` chains on the
/// loop, `and` to join, `andAllSucceed` to gather.
enum NIOServer {
    static func run(_ workload: ServerWorkload, requests: Int) -> Int {
        let loop = NIOWorkloads.group.next()
        let database = NIODatabase(loop: loop)
        let counter = RequestCounter(requests)
        loop.execute {
            for _ in 0..<requests {
                let upload = workload == .doxbee ? doxbee(database, Upload.path) : parallel(database)
                upload.whenComplete { result in
                    if case .failure(let error) = result { counter.done(error) } else { counter.done(nil) }
                }
            }
        }
        let completed = counter.wait()
        // Until the loop let go of everything the requests left on it (see
        // `RequestCounter.wait(thenDrain:)`).
        try? loop.submit {}.wait()
        return completed
    }

    static func doxbee(_ db: NIODatabase, _ path: String) -> EventLoopFuture<Void> {
        let upload = NIODoxbeeUpload(db)
        return db.putBlob().and(db.file(at: path)).flatMap { blobId, file in
            upload.file = file
            let version = VersionRow(blobId: blobId, file: file, date: FakeClock.now)
            upload.version = version
            return db.exec()   // Version.insert(version).execWithin(tx)
        }.flatMap { () -> EventLoopFuture<Int> in
            if let file = upload.file { return db.loop.makeSucceededFuture(file.id) }
            let newId = Int(truncatingIfNeeded: FakeClock.now)
            return db.createQuery(path, id: newId, name: Upload.fileName(path), version: upload.version!.id)
                .flatMap { query in query.exec(within: upload.tx) }
                .map { newId }
        }.flatMap { fileId in
            upload.fileId = fileId
            return db.exec()   // FileVersion.insert({fileId, versionId}).execWithin(tx)
        }.flatMap {
            db.exec()          // File.whereUpdate({id: fileId}, {version}).execWithin(tx)
        }.flatMap {
            upload.tx.commit()
        }.flatMapError { error in
            upload.tx.rollback()
            return db.loop.makeFailedFuture(error)
        }
    }

    static func parallel(_ db: NIODatabase) -> EventLoopFuture<Void> {
        let tx = NIOTransaction(db)
        var queries: [EventLoopFuture<Void>] = []
        queries.reserveCapacity(ServerWorkload.parallelQueries)
        for _ in 0..<ServerWorkload.parallelQueries {
            queries.append(db.exec())   // FileVersion.insert({index: i}).execWithin(tx)
        }
        return EventLoopFuture.andAllSucceed(queries, on: db.loop).map {
            _ = tx.commit()
        }.flatMapError { error in
            tx.rollback()
            return db.loop.makeFailedFuture(error)
        }
    }
}
