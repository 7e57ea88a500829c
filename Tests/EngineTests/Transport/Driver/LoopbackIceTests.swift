import Testing
@testable import EngineTransport

/// Two agents over real UDP sockets on 127.0.0.1 with the real clock: the sans-IO agent driven the way the
/// driver will drive it. Bounded to 5 s; only loopback is contacted.
@Suite struct LoopbackIceTests {
    @Test(arguments: ["127.0.0.1:0", "[::1]:0"])
    func agentsConnectOverLoopbackUDP(bind: String) throws {
        let origin = MonotonicClock.nanoseconds()
        func now() -> TransportTime { TransportTime(nanoseconds: MonotonicClock.nanoseconds() - origin) }

        let sockets = [try UdpSocket(bind: TransportAddress(bind)!), try UdpSocket(bind: TransportAddress(bind)!)]
        #expect(sockets[0].localAddress.port != 0 && sockets[0].localAddress != sockets[1].localAddress)
        let agents = [IceAgent(config: .random(role: .controlling)), IceAgent(config: .random(role: .controlled))]
        var deadlines: [TransportTime?] = [nil, nil]

        func apply(_ i: Int, _ out: IceOutput) {
            for t in out.transmits {
                #expect(t.from == sockets[i].localAddress)
                sockets[i].send(t.bytes, to: t.to)
            }
            deadlines[i] = out.deadline
            for e in out.events {
                if case .candidateGathered(let c) = e { apply(1 - i, agents[1 - i].handle(.command(.addRemoteCandidate(c)), now: now())) }
            }
        }
        for i in 0..<2 {
            apply(i, agents[i].handle(.command(.setRemoteCredentials(agents[1 - i].localCredentials)), now: now()))
        }
        for i in 0..<2 { apply(i, agents[i].handle(.command(.addLocalHost(sockets[i].localAddress)), now: now())) }

        let giveUp = now() + .seconds(5)
        while !(agents[0].state == .connected && agents[1].state == .connected) && now() < giveUp {
            let next = (deadlines.compactMap { $0 } + [giveUp]).min()!
            let waitMs = Int32(max(0, min((next - now()).nanoseconds / 1_000_000, 100)))
            for i in UdpSocket.wait(sockets, timeoutMilliseconds: waitMs) {
                while let (bytes, from) = sockets[i].receive() {
                    apply(i, agents[i].handle(.datagram(from: from, to: sockets[i].localAddress, bytes: bytes), now: now()))
                }
            }
            for i in 0..<2 where deadlines[i].map({ $0 <= now() }) ?? false { apply(i, agents[i].handle(.timeout, now: now())) }
        }
        #expect(agents[0].state == .connected && agents[1].state == .connected)
        #expect(agents[0].selected?.remoteAddress == sockets[1].localAddress)
        #expect(agents[1].selected?.remoteAddress == sockets[0].localAddress)
        #expect(now() < giveUp)
    }
}
