import Glibc
import Testing
@testable import EngineTransport

@Suite struct DtlsTests {
    /// Found by libFuzzer (AddressSanitizer, every DTLS input): the common name reached OpenSSL as an array without a
    /// terminating NUL and length -1, so OpenSSL's strlen read past the array into whatever followed it.
    @Test(arguments: ["conftui", "a", "peer-0123456789abcdef"])
    func certificateSubjectIsExactlyTheCommonName(name: String) throws {
        #expect(try DtlsCertificate(commonName: name).subjectCommonName == name)
    }

    @Test(arguments: [DtlsEndpoint.Role.client, .server])
    func handshakeInBothRolesExportsMatchingKeys(roleA: DtlsEndpoint.Role) throws {
        let h = try DtlsPairHarness(roleA: roleA, seed: 1)
        h.handshake(for: .seconds(2))
        #expect(h.a.state == .connected && h.b.state == .connected)
        let ka = try #require(h.a.keyingMaterial), kb = try #require(h.b.keyingMaterial)
        #expect(ka.localMasterKey == kb.remoteMasterKey)
        #expect(ka.remoteMasterKey == kb.localMasterKey)
        #expect(ka.localMasterKey != ka.remoteMasterKey)
        #expect(ka.profile == kb.profile)
        #expect(ka.localMasterKey.count == ka.profile.keyLength + ka.profile.saltLength)
        #expect(h.events["A"] == [.connected(ka)] && h.events["B"] == [.connected(kb)])
        #expect(h.sizes.allSatisfy { $0 <= 1200 })
    }

    @Test func smallMTUSplitsFlightsIntoDatagrams() throws {
        let h = try DtlsPairHarness(roleA: .client, seed: 2, mtu: 400)
        h.handshake(for: .seconds(2))
        #expect(h.a.state == .connected && h.b.state == .connected)
        #expect(h.sizes.allSatisfy { $0 <= 400 })
        #expect(h.sizes.contains(400))   // the certificate flight really was fragmented at the MTU
    }

    @Test func reorderingIsTolerated() throws {
        let h = try DtlsPairHarness(roleA: .server, seed: 3, mtu: 300)
        h.network.configure { $0.jitter = .milliseconds(30) }   // fragments of one flight overtake each other
        h.handshake(for: .seconds(10), realWaits: 4)
        #expect(h.a.state == .connected && h.b.state == .connected)
    }

    @Test func fingerprintMismatchFails() throws {
        let h = try DtlsPairHarness(roleA: .client, seed: 4, corruptFingerprintOfA: true)
        h.handshake(for: .seconds(2))
        // B checks A's certificate against a wrong fingerprint: B fails, and its alert makes A fail too.
        guard case .failed(let reason) = h.b.state else {
            Issue.record("B is \(h.b.state)")
            return
        }
        #expect(reason.contains("does not match SDP fingerprint"))
        #expect(h.a.state != .connected)
        #expect(h.a.keyingMaterial == nil && h.b.keyingMaterial == nil)
        #expect(h.events["B"]?.contains { if case .failed = $0 { true } else { false } } == true)
    }

    @Test(arguments: [SrtpProfile.aes128CmHmacSha1_80, .aeadAes128Gcm])
    func profileNegotiation(only profile: SrtpProfile) throws {
        let h = try DtlsPairHarness(roleA: .client, seed: 5, profilesB: [profile])
        h.handshake(for: .seconds(2))
        #expect(h.a.keyingMaterial?.profile == profile)
        #expect(h.a.keyingMaterial?.localMasterKey.count == 16 + profile.saltLength)
    }

    @Test func lostFlightIsRetransmittedOnTimeout() throws {
        let certA = try DtlsCertificate(), certB = try DtlsCertificate()
        let client = try DtlsEndpoint(role: .client, certificate: certA, remoteFingerprint: certB.fingerprint)
        let server = try DtlsEndpoint(role: .server, certificate: certB, remoteFingerprint: certA.fingerprint)
        let first = client.start(now: .zero)
        #expect(first.transmits.count == 1)
        let deadline = try #require(first.deadline)
        #expect(deadline > .zero && deadline <= TransportTime.zero + .milliseconds(400))
        // The ClientHello is lost. OpenSSL's timer runs on real time, so wait it out (400 ms initial).
        usleep(450_000)
        let again = client.handleTimeout(now: deadline)
        #expect(again.transmits.count == 1)
        #expect(again.transmits.first?.count == first.transmits.first?.count)
        // Now deliver everything and finish.
        var toServer = again.transmits, toClient: [[UInt8]] = []
        var rounds = 0
        while (client.state != .connected || server.state != .connected) && rounds < 10 {
            rounds += 1
            for d in toServer { toClient += server.handle(datagram: d, now: deadline).transmits }
            toServer = []
            for d in toClient { toServer += client.handle(datagram: d, now: deadline).transmits }
            toClient = []
        }
        #expect(client.state == .connected && server.state == .connected)
    }

    @Test func garbageDatagramsDoNotCrash() throws {
        let certA = try DtlsCertificate(), certB = try DtlsCertificate()
        let server = try DtlsEndpoint(role: .server, certificate: certB, remoteFingerprint: certA.fingerprint)
        var rng = SplitMixRandom(seed: 6)
        for _ in 0..<300 {
            var d = rng.bytes(Int.random(in: 1...200, using: &rng))
            d[0] = UInt8.random(in: 20...63, using: &rng)
            _ = server.handle(datagram: d, now: .zero)
            if case .failed = server.state { break }
        }
        #expect(server.keyingMaterial == nil)
    }

    @Test func fingerprintIsSha256OfTheCertificate() throws {
        let cert = try DtlsCertificate()
        #expect(cert.fingerprint.algorithm == "sha-256")
        #expect(cert.fingerprint.bytes.count == 32)
        #expect(try DtlsCertificate().fingerprint != cert.fingerprint)
        #expect(try DtlsFingerprint(parsing: cert.fingerprint.description) == cert.fingerprint)
    }
}
