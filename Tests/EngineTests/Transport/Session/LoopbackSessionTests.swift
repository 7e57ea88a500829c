import Testing
@testable import EngineTransport

/// The whole transport over real loopback UDP and the real clock (OpenSSL's DTLS timers included).
@Suite struct LoopbackSessionTests {
    /// A (controlling) and B on their own 127.0.0.1 sockets, signalled to each other directly: credentials,
    /// fingerprints, DTLS roles, and candidates as they are gathered.
    func startPair(on loop: RealTimeLoop, dtlsRoleOfA: DtlsEndpoint.Role) throws -> (TransportSession, TransportSession) {
        let a = TransportSession(ice: .random(role: .controlling), certificate: try DtlsCertificate())
        let b = TransportSession(ice: .random(role: .controlled), certificate: try DtlsCertificate())
        loop.add(a, socket: try UdpSocket(bind: TransportAddress("127.0.0.1:0")!))
        loop.add(b, socket: try UdpSocket(bind: TransportAddress("127.0.0.1:0")!))
        loop.onEvent = { i, e in
            if case .ice(.candidateGathered(let c)) = e { loop.feed(1 - i, .command(.addRemoteCandidate(c))) }
        }
        let dtlsRoleOfB: DtlsEndpoint.Role = dtlsRoleOfA == .client ? .server : .client
        loop.feed(0, .command(.setRemote(.init(credentials: b.ice.localCredentials, fingerprint: b.localFingerprint, localDtlsRole: dtlsRoleOfA))))
        loop.feed(1, .command(.setRemote(.init(credentials: a.ice.localCredentials, fingerprint: a.localFingerprint, localDtlsRole: dtlsRoleOfB))))
        for i in 0..<2 { loop.feed(i, .command(.addLocalHost(loop.sockets[i].localAddress))) }
        return (a, b)
    }

    /// RTP packet `seq` of a 20 ms Opus stream, with a 3-byte payload.
    func opusLikeRTP(_ seq: UInt16) -> [UInt8] {
        var packet: [UInt8] = [0x80, 111]
        packet.appendBE(seq)
        packet.appendBE(UInt32(seq) * 960)
        packet.appendBE(UInt32(42))
        return packet + [0xF8, 0xFF, 0xFE]
    }

    @Test func sessionsExchangeSrtpOverLoopback() throws {
        let loop = RealTimeLoop()
        let (a, b) = try startPair(on: loop, dtlsRoleOfA: .client)

        #expect(loop.run(for: .seconds(5)) { a.isSecure && b.isSecure })
        var seq: UInt16 = 0
        let received = loop.run(for: .seconds(3), tick: {
            seq += 1
            loop.feed(0, .command(.sendRTP(opusLikeRTP(seq))))
        }) {
            loop.events[1].filter { if case .rtp = $0 { true } else { false } }.count >= 10
        }
        #expect(received)
        #expect(b.rejectedPackets == 0)
    }

    /// 20 % of datagrams dropped in both directions: ICE retransmits on its own timers and DTLS on OpenSSL's
    /// (real-time, 400 ms doubling); the handshake must still complete and media flow. Which datagrams the seed drops
    /// depends on how many ICE sent by then (real time), so this is a probability, not a replay: at 30 % a flight and
    /// its answer fail together half the time, and five failures in a row (3 % a flight) push the handshake past
    /// 20 s of doubling timers; at 20 % that takes 0.6 %.
    @Test(.timeLimit(.minutes(1)), arguments: [101, 102, 103] as [UInt64])
    func sessionsSurviveLossOverLoopback(seed: UInt64) throws {
        let loop = RealTimeLoop()
        loop.link = .init(.init(delay: .zero, loss: 0.2), seed: seed)   // 20 % lost, nothing delayed
        let (a, b) = try startPair(on: loop, dtlsRoleOfA: .server)
        let started = loop.now
        #expect(loop.run(for: .seconds(20)) { a.isSecure && b.isSecure })
        print("loss \(loop.link.conditions.loss) seed \(seed): secure after \(loop.now - started), \(loop.link.dropped) datagrams dropped")
        var seq: UInt16 = 0
        #expect(loop.run(for: .seconds(5), tick: {
            seq += 1
            loop.feed(0, .command(.sendRTP(opusLikeRTP(seq))))
        }) {
            loop.events[1].filter { if case .rtp = $0 { true } else { false } }.count >= 20
        })
        #expect(loop.link.dropped > 0)
    }
}
