import EngineTestSupport
import Testing
@testable import Engine

/// The emulator every virtual-clock test relies on does what its conditions say.
@Suite struct NetworkEmulatorTests {
    func run(_ conditions: LinkConditions, seed: UInt64 = 1, count: Int = 1_000, every interval: Duration = .milliseconds(1))
        -> (link: EmulatedLink<[UInt8]>, arrivals: [(at: TransportTime, index: Int)]) {
        var link = EmulatedLink<[UInt8]>(conditions, seed: seed)
        var arrivals: [(TransportTime, Int)] = []
        var now = TransportTime.zero
        for i in 0..<count {
            now = TransportTime.zero + interval * i
            link.send([UInt8(i & 0xFF), UInt8(i >> 8)] + [UInt8](repeating: 0, count: 98), now: now)
            arrivals += link.deliver(now: now).map { (now, Int($0[0]) | Int($0[1]) << 8) }
        }
        while let next = link.nextDelivery { arrivals += link.deliver(now: next).map { (next, Int($0[0]) | Int($0[1]) << 8) } }
        return (link, arrivals)
    }

    @Test func aCleanLinkDelaysEveryDatagramAndKeepsTheirOrder() {
        let (link, arrivals) = run(LinkConditions(delay: .milliseconds(10)))
        #expect(arrivals.map(\.index) == Array(0..<1_000))
        #expect(arrivals.allSatisfy { $0.at == TransportTime.zero + .milliseconds(1) * $0.index + .milliseconds(10) })
        #expect(link.sent == 1_000 && link.dropped == 0)
    }

    @Test(arguments: [0.05, 0.3])
    func lossIsNearItsRateAndTheSameForASeed(loss: Double) {
        let (link, arrivals) = run(LinkConditions(loss: loss))
        #expect(abs(Double(link.dropped) / 1_000 - loss) < 0.04, "\(link.dropped) lost")
        #expect(arrivals.count == 1_000 - link.dropped)
        #expect(run(LinkConditions(loss: loss)).arrivals.map(\.index) == arrivals.map(\.index))
        #expect(run(LinkConditions(loss: loss), seed: 2).arrivals.map(\.index) != arrivals.map(\.index))
    }

    @Test func jitterAndReorderingLetLaterDatagramsOvertakeAndDuplicatesArriveTwice() {
        let (link, arrivals) = run(LinkConditions(jitter: .milliseconds(5), reorder: 0.1, duplicate: 0.1))
        let indices = arrivals.map(\.index)
        #expect(zip(indices, indices.dropFirst()).contains { $0 > $1 }, "some arrive out of order")
        #expect(link.duplicated > 50 && link.duplicated < 150 && indices.count == 1_000 + link.duplicated)
        #expect(Set(indices) == Set(0..<1_000))
        #expect(arrivals.allSatisfy { $0.at >= TransportTime.zero + .milliseconds(1) * $0.index + .milliseconds(10) })
    }

    @Test func aBandwidthCapQueuesDatagramsBehindEachOther() {
        // 100-byte datagrams every 1 ms is 800 kbit/s; through 400 kbit/s each takes 2 ms, so the queue grows.
        let (_, arrivals) = run(LinkConditions(delay: .zero, bitsPerSecond: 400_000), count: 100)
        #expect(arrivals.map(\.index) == Array(0..<100))
        #expect(arrivals.map(\.at) == (1...100).map { TransportTime.zero + .milliseconds(2) * $0 })
    }

    @Test func aTokenBucketLetsABurstThroughBeforeTheRateApplies() {
        // tbf's `burst`: 1000 bytes of tokens let the first ten 100-byte datagrams of a burst leave at once; the rest
        // queue at the rate (2 ms each at 400 kbit/s). After a quiet spell the bucket is full again.
        var link = EmulatedLink<[UInt8]>(LinkConditions(delay: .zero, bitsPerSecond: 400_000, burstBytes: 1000), seed: 1)
        for _ in 0..<15 { link.send([UInt8](repeating: 0, count: 100), now: .zero) }
        var arrivals: [TransportTime] = []
        while let next = link.nextDelivery { arrivals += link.deliver(now: next).map { _ in next } }
        #expect(arrivals.prefix(10).allSatisfy { $0 == .zero }, "\(arrivals)")
        #expect(Array(arrivals.dropFirst(10)) == (1...5).map { TransportTime.zero + .milliseconds(2) * $0 })
        let later = TransportTime.zero + .seconds(1)
        for _ in 0..<10 { link.send([UInt8](repeating: 0, count: 100), now: later) }
        #expect(link.deliver(now: later).count == 10, "the bucket refilled while the link was idle")
    }

    @Test func eachDirectionHasItsOwnConditions() {
        var network = NetworkEmulator<[UInt8]>(seed: 5)
        network.bToA.conditions.cut = true
        network.configure { $0.delay = .milliseconds(30) }
        network.send([1], .aToB, now: .zero)
        network.send([2], .bToA, now: .zero)
        #expect(network.nextDelivery == TransportTime.zero + .milliseconds(30))
        #expect(network.deliver(now: TransportTime.zero + .milliseconds(30)) == [[1]])
        #expect(network.sent == 2 && network.dropped == 1)
    }
}
