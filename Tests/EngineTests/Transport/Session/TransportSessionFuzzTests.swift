import Testing
@testable import EngineTransport

/// Random datagrams of every RFC 7983 class at a secured session: nothing traps, nothing forged is delivered,
/// and the session keeps working.
@Suite struct TransportSessionFuzzTests {
    @Test func randomDatagramsOfEveryClass() throws {
        let p = try TransportSessionTests.Pair(seed: 61)
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        var rng = SplitMixRandom(seed: 62)
        let firstBytes: [ClosedRange<UInt8>] = [0...3, 16...19, 20...63, 64...79, 128...191, 0...255]
        for i in 0..<fuzzIterations(default: 5_000) {
            // Every 97th datagram is oversize: up to the largest UDP payload (65,507 bytes).
            let length = i % 97 == 0 ? Int.random(in: 1_500...65_507, using: &rng) : Int.random(in: 1...300, using: &rng)
            var bytes = rng.bytes(length)
            bytes[0] = UInt8.random(in: firstBytes[i % firstBytes.count], using: &rng)
            p.feed("B", .datagram(from: p.addressA, to: p.addressB, bytes: bytes))
        }
        #expect(!p.events["B"]!.contains { if case .rtp = $0 { true } else if case .rtcp = $0 { true } else { false } })
        #expect(p.b.rejectedPackets > 0)
        #expect(p.b.isSecure && p.b.ice.state == .connected)
        var packet: [UInt8] = [0x80, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2]
        packet += [1, 2, 3]
        p.feed("A", .command(.sendRTP(packet)))
        #expect(p.run(for: .seconds(1)) { p.events["B"]!.contains(.rtp(packet)) })
    }
}
