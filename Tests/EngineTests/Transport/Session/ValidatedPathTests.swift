import Testing
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport

/// Only the 5-tuple ICE validated is believed (RFC 8445 §7.3, RFC 8842 §5, RFC 5764 §5.1.2), and nothing is sent on
/// a pair whose consent is lost (RFC 7675 §5.1), on the emulated network of `SessionPairHarness`.
/// A offered (controlling, DTLS server), B answered `active` (controlled, DTLS client).
@Suite struct ValidatedPathTests {
    typealias Pair = SessionPairHarness
    let attacker = TransportAddress("10.0.0.66:7000")!

    /// A fatal handshake_failure alert in an epoch-0 DTLS 1.2 record: unauthenticated, as any DTLS peer would accept
    /// it during the handshake.
    let fatalAlert: [UInt8] = [21, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 9, 0, 2, 2, 40]

    func rtp(seq: UInt16) -> [UInt8] {
        var p: [UInt8] = [0x80, 96]
        p.appendBE(seq)
        p.appendBE(UInt32(seq) * 960)
        p.appendBE(UInt32(0xBEEF))
        return p + [1, 2, 3, 4]
    }

    func failed(_ events: [TransportSession.Event]?) -> Bool {
        events?.contains { if case .failed = $0 { true } else { false } } ?? false
    }

    /// A ClientHello from a DTLS client nobody signalled (another certificate).
    func strangerClientHello(to p: Pair) throws -> [UInt8] {
        let stranger = try DtlsEndpoint(role: .client, certificate: try DtlsCertificate(), remoteFingerprint: p.a.localFingerprint)
        return try #require(stranger.start(now: p.now).transmits.first)
    }

    @Test func anOffPathAlertDuringTheHandshakeIsIgnored() throws {
        let p = try Pair(seed: 61)
        // B has selected the pair and sent its ClientHello; A has not answered yet.
        #expect(p.run(for: .seconds(5)) { p.b.dtls?.state == .handshaking })
        p.feed("A", .datagram(from: attacker, to: p.addressA, bytes: fatalAlert))
        p.feed("B", .datagram(from: attacker, to: p.addressB, bytes: fatalAlert))
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        #expect(!failed(p.events["A"]) && !failed(p.events["B"]))
        #expect(p.a.stats.offPathPackets == 1 && p.b.stats.offPathPackets == 1)
    }

    @Test func theSameAlertFromThePeersAddressIsBelieved() throws {
        // The control for the test above: the alert is a real threat, only the address tells it apart.
        let p = try Pair(seed: 62)
        #expect(p.run(for: .seconds(5)) { p.b.dtls?.state == .handshaking })
        p.feed("B", .datagram(from: p.addressA, to: p.addressB, bytes: fatalAlert))
        #expect(failed(p.events["B"]))
    }

    @Test func anOffPathClientHelloCannotSteerTheHandshake() throws {
        let p = try Pair(seed: 63)
        // Before ICE has validated anything, a stranger's ClientHello reaches the DTLS server.
        p.feed("A", .datagram(from: attacker, to: p.addressA, bytes: try strangerClientHello(to: p)))
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        #expect(!failed(p.events["A"]) && !failed(p.events["B"]))
        #expect(p.sent["A"]!.allSatisfy { $0.transmit.to != attacker }, "nothing answered to the stranger")
        #expect(p.a.stats.offPathPackets == 1)
    }

    @Test func anEarlyClientHelloFromAKnownCandidateWaitsForItsPairToBeValid() throws {
        let p = try Pair(seed: 64)
        // B's own ClientHello reaches A before any check (the peer's ICE may finish first): A holds it, answers
        // nothing yet, and answers once its own check has validated the pair.
        let hello = try #require(p.b.dtls?.start(now: p.now).transmits.first)
        p.feed("A", .datagram(from: p.addressB, to: p.addressA, bytes: hello))
        #expect(p.sent["A"]!.allSatisfy { PacketClass($0.transmit.bytes) == .stun })
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        let firstDtls = try #require(p.sent["A"]!.first { PacketClass($0.transmit.bytes) == .dtls })
        #expect(p.a.ice.isValidPair(local: p.addressA, remote: p.addressB))
        #expect(firstDtls.at > .zero)
        #expect(p.a.stats.offPathPackets == 0)
    }

    @Test func srtpFromAnUnvalidatedAddressIsDropped() throws {
        let p = try Pair(seed: 65)
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        let wire = try #require(p.a.handle(.command(.sendRTP(rtp(seq: 7))), now: p.now).transmits.first)
        var srtcp: [UInt8] = [0x80, 201, 0, 1]
        srtcp.appendBE(UInt32(0xBEEF))
        let wireRTCP = try #require(p.a.handle(.command(.sendRTCP(srtcp)), now: p.now).transmits.first)
        // The genuine protected packets, replayed from elsewhere (or a stranger's): dropped before SRTP.
        p.feed("B", .datagram(from: attacker, to: p.addressB, bytes: wire.bytes))
        p.feed("B", .datagram(from: attacker, to: p.addressB, bytes: wireRTCP.bytes))
        #expect(!p.events["B"]!.contains { if case .rtp = $0 { true } else if case .rtcp = $0 { true } else { false } })
        #expect(p.b.stats.offPathPackets == 2 && p.b.rejectedPackets == 0 && p.b.replayedPackets == 0)
        // From the selected pair the same packets are accepted: not a replay, never seen by SRTP before.
        p.feed("B", .datagram(from: wire.from, to: wire.to, bytes: wire.bytes))
        p.feed("B", .datagram(from: wireRTCP.from, to: wireRTCP.to, bytes: wireRTCP.bytes))
        #expect(p.events["B"]!.contains(.rtp(rtp(seq: 7))) && p.events["B"]!.contains(.rtcp(srtcp)))
    }

    @Test func afterConsentIsLostNothingIsSentOnThePairByEitherSide() throws {
        let p = try Pair(seed: 66)
        #expect(p.run(for: .seconds(5)) { p.a.isSecure && p.b.isSecure })
        p.network.configure { $0.cut = true }
        var failedAt: [String: TransportTime] = [:]
        var seq: UInt16 = 0
        var rtcp: [UInt8] = [0x80, 201, 0, 1]
        rtcp.appendBE(UInt32(0xBEEF))
        // Media (and RTCP, as a NACK's retransmissions would be) keeps being offered every 20 ms for 40 s.
        let end = p.now + .seconds(40)
        var clock = p.now
        while clock < end {
            clock = clock + .milliseconds(20)
            _ = p.run(for: clock - p.now) { false }
            p.now = max(p.now, clock)
            for name in ["A", "B"] {
                if failedAt[name] == nil, p.endpoint(name).ice.state == .failed { failedAt[name] = p.now }
                seq &+= 1
                p.feed(name, .command(.sendRTP(rtp(seq: seq))))
                p.feed(name, .command(.sendRTCP(rtcp)))
            }
        }
        for name in ["A", "B"] {
            let t = try #require(failedAt[name], "\(name) never lost consent")
            p.feed(name, .command(.close))   // no close_notify either
            let after = p.sent[name]!.filter { $0.at >= t }
            #expect(after.isEmpty, "\(name) sent \(after.count) datagrams after consent was lost")
            #expect(p.sent[name]!.contains { $0.at < t && PacketClass($0.transmit.bytes) == .rtp }, "media flowed before")
        }
    }
}
