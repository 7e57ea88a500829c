import Testing
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport

/// Two transport sessions end to end through the emulated network: ICE, then DTLS on the selected pair, then SRTP.
@Suite struct TransportSessionTests {
    typealias Pair = SessionPairHarness

    func rtp(seq: UInt16, payload: [UInt8]) -> [UInt8] {
        var p: [UInt8] = [0x80, 96]
        p.appendBE(seq)
        p.appendBE(UInt32(seq) * 90)
        p.appendBE(UInt32(0xC0FFEE))
        return p + payload
    }

    @Test func iceThenDtlsThenSrtpBothWays() throws {
        let p = try Pair(seed: 41)
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        #expect(p.a.ice.state == .connected && p.b.ice.state == .connected)
        #expect(p.events["A"]?.contains { if case .dtlsConnected = $0 { true } else { false } } == true)
        p.feed("A", .command(.sendRTP(rtp(seq: 1, payload: [1, 2, 3]))))
        p.feed("B", .command(.sendRTP(rtp(seq: 9, payload: [9, 9]))))
        var rtcp: [UInt8] = [0x80, 201, 0, 1]
        rtcp.appendBE(UInt32(0xC0FFEE))
        p.feed("A", .command(.sendRTCP(rtcp)))
        #expect(p.run(for: .seconds(1)) {
            p.events["B"]!.contains(.rtp(rtp(seq: 1, payload: [1, 2, 3]))) && p.events["A"]!.contains(.rtp(rtp(seq: 9, payload: [9, 9])))
                && p.events["B"]!.contains(.rtcp(rtcp))
        })
        // Media keeps flowing while consent checks continue in the background for a minute.
        for second in 0..<60 {
            p.feed("A", .command(.sendRTP(rtp(seq: UInt16(100 + second), payload: [UInt8(second)]))))
            _ = p.run(for: .seconds(1)) { false }
        }
        #expect(p.a.ice.state == .connected && p.b.ice.state == .connected)
        #expect(p.events["B"]!.filter { if case .rtp = $0 { true } else { false } }.count == 61)
        #expect(p.b.rejectedPackets == 0)
        let statsA = p.a.stats, statsB = p.b.stats
        #expect(statsA.packetsSent == 62 && statsB.packetsReceived == 62)   // 61 RTP + 1 RTCP
        #expect(statsA.bytesSent == statsB.bytesReceived)
        #expect(statsB.packetsSent == 1 && statsA.packetsReceived == 1)
        #expect(statsA.iceState == .connected && statsA.srtpProfile != nil)
        #expect(statsA.roundTripTime == .milliseconds(20))   // two 10 ms hops of the emulated network
        #expect(statsA.selectedPair?.remoteAddress == p.addressB)
    }

    @Test func wrongFingerprintNeverYieldsSrtp() throws {
        let p = try Pair(seed: 42, corruptFingerprint: true)
        _ = p.run(for: .seconds(5)) { false }
        #expect(p.a.ice.state == .connected)
        #expect(!p.a.isSecure && !p.b.isSecure)
        #expect(p.events["B"]?.contains { if case .failed(.dtlsFailed) = $0 { true } else { false } } == true)
        // Nothing can be sent in clear: sendRTP is dropped without SRTP.
        let before = p.network.sent
        p.feed("A", .command(.sendRTP(rtp(seq: 1, payload: [1]))))
        #expect(p.network.sent == before)
    }

    @Test func forgedMediaIsRejected() throws {
        let p = try Pair(seed: 43)
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        // An attacker on the path injects an unprotected RTP packet from A's address.
        p.feed("B", .datagram(from: p.addressA, to: p.addressB, bytes: rtp(seq: 5, payload: Array(repeating: 0, count: 20))))
        #expect(p.b.rejectedPackets == 1)
        #expect(!p.events["B"]!.contains { if case .rtp = $0 { true } else { false } })
    }

    @Test func aReplayedPacketIsDroppedAndCountedApartFromForgeries() throws {
        let p = try Pair(seed: 44)
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        // A protected packet from A, taken off the wire and delivered twice (a late original and its
        // retransmission, or a network duplicate): RFC 3711 §3.3.2 drops the second as a replay.
        let out = p.a.handle(.command(.sendRTP(rtp(seq: 900, payload: [7, 7, 7]))), now: p.now)
        let wire = try #require(out.transmits.first)
        let before = p.events["B"]!.filter { if case .rtp = $0 { true } else { false } }.count
        p.feed("B", .datagram(from: wire.from, to: wire.to, bytes: wire.bytes))
        p.feed("B", .datagram(from: wire.from, to: wire.to, bytes: wire.bytes))
        let after = p.events["B"]!.filter { if case .rtp = $0 { true } else { false } }.count
        #expect(after == before + 1, "delivered once")
        #expect(p.b.replayedPackets == 1)
        #expect(p.b.rejectedPackets == 0, "a replay is not an authentication failure")
    }
}
