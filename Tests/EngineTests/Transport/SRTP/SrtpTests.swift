import Testing
@testable import EngineTransport

@Suite struct SrtpTests {
    func rtp(seq: UInt16, ssrc: UInt32 = 0x1234_5678, payload: [UInt8]) -> [UInt8] {
        var p: [UInt8] = [0x80, 96]
        p.appendBE(seq)
        p.appendBE(UInt32(seq) * 3000)
        p.appendBE(ssrc)
        return p + payload
    }

    /// An RTCP receiver report with no report blocks (RFC 3550 §6.4.2).
    func rtcp(ssrc: UInt32 = 0x1234_5678) -> [UInt8] {
        var p: [UInt8] = [0x80, 201, 0, 1]
        p.appendBE(ssrc)
        return p
    }

    /// Keys from a real DTLS handshake, so the whole DTLS-SRTP chain is exercised.
    func contexts(_ profile: SrtpProfile) throws -> (SrtpContext, SrtpContext) {
        let h = try DtlsPairHarness(roleA: .client, seed: 9, profilesB: [profile])
        h.handshake(for: .seconds(2))
        let ka = try #require(h.a.keyingMaterial), kb = try #require(h.b.keyingMaterial)
        return (try SrtpContext(keys: ka), try SrtpContext(keys: kb))
    }

    @Test(arguments: [SrtpProfile.aes128CmHmacSha1_80, .aeadAes128Gcm])
    func protectAndUnprotectBothWays(profile: SrtpProfile) throws {
        let (a, b) = try contexts(profile)
        var rng = SplitMixRandom(seed: 10)
        for seq in UInt16(1)...50 {
            let packet = rtp(seq: seq, payload: rng.bytes(Int.random(in: 1...1000, using: &rng)))
            let protected = try a.protectRTP(packet)
            // CM-HMAC-SHA1-80 appends a 10-byte tag (RFC 3711 §4.2); GCM a 16-byte one (RFC 7714 §5.1).
            #expect(protected.count == packet.count + (profile == .aeadAes128Gcm ? 16 : 10))
            #expect(protected[12...] != packet[12...])
            #expect(try b.unprotectRTP(protected) == packet)
            let back = rtp(seq: seq, ssrc: 0x0BAD_CAFE, payload: [1, 2, 3])
            #expect(try a.unprotectRTP(b.protectRTP(back)) == back)
        }
        let report = rtcp()
        #expect(try b.unprotectRTCP(a.protectRTCP(report)) == report)
        #expect(try a.unprotectRTCP(b.protectRTCP(report)) == report)
    }

    @Test(arguments: [SrtpProfile.aes128CmHmacSha1_80, .aeadAes128Gcm])
    func tamperedAndReplayedPacketsAreRejected(profile: SrtpProfile) throws {
        let (a, b) = try contexts(profile)
        let protected = try a.protectRTP(rtp(seq: 7, payload: Array(repeating: 0xAB, count: 100)))
        for index in [12, 50, protected.count - 1] {
            var tampered = protected
            tampered[index] ^= 0x01
            #expect(throws: EngineError.self) { try b.unprotectRTP(tampered) }
        }
        #expect(throws: Never.self) { try b.unprotectRTP(protected) }
        // RFC 3711 §3.3.2: a second copy is a replay.
        #expect(throws: EngineError.self) { try b.unprotectRTP(protected) }
        var rtcpTampered = try a.protectRTCP(rtcp())
        rtcpTampered[5] ^= 0x80
        #expect(throws: EngineError.self) { try b.unprotectRTCP(rtcpTampered) }
        // Our own outbound packet is not decryptable with our own inbound (peer's) key.
        #expect(throws: EngineError.self) { try a.unprotectRTP(try a.protectRTP(rtp(seq: 8, payload: [0]))) }
    }

    @Test func badKeysAndShortPacketsAreErrors() throws {
        #expect(throws: EngineError.self) {
            try SrtpContext(profile: .aes128CmHmacSha1_80, localMasterKey: [1, 2, 3], remoteMasterKey: [1, 2, 3])
        }
        let context = try SrtpContext(profile: .aes128CmHmacSha1_80, localMasterKey: Array(0..<30), remoteMasterKey: Array(30..<60))
        #expect(throws: EngineError.self) { try context.protectRTP([0x80, 96, 0]) }
        #expect(throws: EngineError.self) { try context.unprotectRTP(Array(repeating: 0x80, count: 14)) }
    }
}
