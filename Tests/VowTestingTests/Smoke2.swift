import Testing
import Vow
import VowTesting
import Dispatch

actor Counter {
    let loop: SerialDispatcher
    var value = 0
    init(loop: SerialDispatcher) { self.loop = loop }
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    func bump() -> Int { value += 1; loop.executor.checkIsolated(); return value }
}

@Suite struct Smoke2 {
    @Test func actorOnSerial() async throws {
        let loop = SerialDispatcher(label: "t")
        let c = Counter(loop: loop)
        for _ in 0..<1000 { _ = await c.bump() }
        #expect(await c.value == 1000)
        let any: any Dispatcher = loop
        #expect(any.executor === loop.executor)
        let r = await Task(executorPreference: loop.executor) { () -> Bool in
            loop.executor.isIsolatingCurrentContext() ?? false
        }.value
        #expect(r)
        let viaPromise = Promise<Int>.value(1).map(on: loop) { _ in c.assumeIsolated { $0.value } }
        #expect(try await viaPromise.value == 1000)
    }
}
