import Testing
@testable import EngineTransport

/// An allocation that the server no longer has is noticed within seconds, not at the next refresh minutes later:
/// a 437 (Allocation Mismatch) to any request, a nonce still stale after the retry, or, while we relay and the
/// server has gone silent, a Refresh probe answered 437 or not at all (RFC 8656 §7, §8).
@Suite struct TurnAllocationHealthTests {
    let peer = TransportAddress("203.0.113.7:6000")!

    func failures(_ h: TurnClientHarness) -> [String] {
        h.events.compactMap { if case .failed(let reason) = $0 { reason } else { nil } }
    }

    /// Allocated, with a permission and a channel for `peer`, relaying.
    func relaying() throws -> TurnClientHarness {
        let h = TurnClientHarness()
        try h.allocate()
        h.feed(.send(to: peer, bytes: [1]))
        h.feed(.received(try h.server.success(h.lastRequest())))   // CreatePermission
        h.feed(.received(try h.server.success(h.lastRequest())))   // ChannelBind
        return h
    }

    @Test func a437ToAChannelBindMeansTheAllocationIsGone() throws {
        let h = try relaying()
        h.feed(.send(to: TransportAddress("203.0.113.8:6000")!, bytes: [2]))
        let create = try h.lastRequest()
        h.feed(.received(try h.server.error(create, code: 437, reason: "Allocation Mismatch")))
        #expect(failures(h).first?.contains("allocation is gone") == true, "\(failures(h))")
        #expect(h.client.state == .failed)
    }

    @Test func aNonceStillStaleAfterTheRetryMeansTheAllocationIsGone() throws {
        let h = try relaying()
        h.feed(.send(to: TransportAddress("203.0.113.8:6000")!, bytes: [2]))
        for n in 2...5 where h.client.state == .allocated {
            h.feed(.received(try h.server.staleNonce(h.lastRequest(), newNonce: "nonce-\(n)")))
        }
        #expect(failures(h).first?.contains("allocation is gone") == true, "\(failures(h))")
    }

    @Test func aSilentServerIsProbedAndA437EndsTheAllocation() throws {
        let h = try relaying()
        let start = h.now
        // We keep sending (media every 20 ms); nothing comes back: the server restarted and forgot us.
        var probe: StunMessage?
        while h.now < start + .seconds(3), probe == nil {
            h.advance(by: .milliseconds(20))
            h.feed(.send(to: peer, bytes: [3]))
            probe = h.sent.compactMap { try? StunMessage(decoding: $0) }.last { $0.type.method == .refresh }
        }
        let refresh = try #require(probe)
        #expect(h.now - start >= .milliseconds(1200) && h.now - start < .milliseconds(1400), "probed after 1.2 s of silence")
        // A restarted server calls the nonce stale first; the retry with the new one gets 437.
        h.feed(.received(try h.server.staleNonce(refresh, newNonce: "after-restart")))
        h.server.nonce = "after-restart"
        let retry = try h.lastRequest()
        #expect(retry.type.method == .refresh && h.server.isAuthenticated(retry, nonce: "after-restart"))
        h.feed(.received(try h.server.error(retry, code: 437, reason: "Allocation Mismatch")))
        #expect(failures(h).count == 1 && failures(h)[0].contains("allocation is gone"))
    }

    @Test func anUnansweredProbeEndsTheAllocationAfterThreeSeconds() throws {
        let h = try relaying()
        let start = h.now
        while h.client.state == .allocated && h.now < start + .seconds(10) {
            h.advance(by: .milliseconds(20))
            h.feed(.send(to: peer, bytes: [3]))
        }
        #expect(h.client.state == .failed)
        #expect(h.now - start < .milliseconds(4400), "1.2 s of silence, then 3 s for the probe's answer")
        #expect(failures(h).first?.contains("no answer to a Refresh") == true)
    }

    @Test func aQuietPeerCostsOneAnsweredProbePerFiveSeconds() throws {
        let h = try relaying()
        let start = h.now
        var probes = 0
        while h.now < start + .seconds(20) {
            let seen = h.sent.count
            h.advance(by: .milliseconds(20))
            h.feed(.send(to: peer, bytes: [3]))
            for bytes in h.sent.dropFirst(seen) {
                guard let m = try? StunMessage(decoding: bytes), m.type.method == .refresh else { continue }
                probes += 1
                h.feed(.received(try h.server.success(m, [.lifetime(600)])))
            }
        }
        #expect(h.client.state == .allocated)
        #expect((3...4).contains(probes), "\(probes) probes in 20 s")
    }

    @Test func aPeerThatAnswersKeepsTheServerFromBeingProbed() throws {
        let h = try relaying()
        let start = h.now
        while h.now < start + .seconds(10) {
            h.advance(by: .milliseconds(20))
            h.feed(.send(to: peer, bytes: [3]))
            h.feed(.received(try h.server.dataIndication(from: peer, [4])))
        }
        #expect(!h.sent.compactMap { try? StunMessage(decoding: $0) }.contains { $0.type.method == .refresh })
    }
}
