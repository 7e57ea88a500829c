import Testing
@testable import EngineTransport

/// Hostile datagrams at a live agent: random bytes, mutated real checks and responses, forged transaction ids.
/// The agent must not trap, must answer only authenticated requests with success, and must stay connected.
@Suite struct IceAgentFuzzTests {
    @Test func hostileDatagramsDoNotDisturbAConnectedAgent() throws {
        let h = IcePairHarness(seed: 51)
        h.start()
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        let captured = h.sent.values.joined().map(\.1.bytes)
        var rng = SplitMixRandom(seed: 52)
        let attacker = TransportAddress("10.66.6.6:666")!
        var successesToAttacker = 0
        for i in 0..<20_000 {
            var bytes: [UInt8]
            switch i % 3 {
            case 0:
                bytes = rng.bytes(Int.random(in: 0...120, using: &rng))
                if !bytes.isEmpty && rng.chance(0.5) { bytes[0] &= 0x03 }
            case 1:
                bytes = captured.randomElement(using: &rng)!
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
                }
            default:
                // Well-formed, fingerprinted, but signed with a guessed key.
                let attributes: [StunAttribute] = [.username("\(h.b.localCredentials.ufrag):x"), .priority(1), .useCandidate,
                                                   .iceControlling(rng.next())]
                bytes = try StunMessage(type: rng.chance(0.5) ? .bindingRequest : .bindingSuccess,
                                    transactionID: .random(using: &rng), attributes: attributes)
                    .encode(integrityKey: rng.bytes(22), fingerprint: true)
            }
            let out = h.b.handle(.datagram(from: attacker, to: h.addressB, bytes: bytes), now: h.now)
            successesToAttacker += out.transmits.filter { (try? StunMessage(decoding: $0.bytes))?.type == .bindingSuccess }.count
        }
        #expect(successesToAttacker == 0)
        #expect(h.b.remoteCandidates.allSatisfy { $0.transportAddress != attacker })
        #expect(h.b.state == .connected && h.b.role == .controlled)
        #expect(h.b.selected?.remoteAddress == h.addressA)
        // And the real peer still gets through.
        h.run(for: .seconds(20))
        #expect(h.bothConnected)
    }
}
