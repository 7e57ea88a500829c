@testable import Engine
@testable import EngineRTP
@testable import EngineTransport

/// Two `PeerConnection`s connected on a virtual clock (offer, answer, ICE, DTLS, SRTP) with no sockets: datagrams
/// go straight from one to the other.
final class ConnectedPeers {
    let a: PeerConnection   // offerer, the sender of the fuzzer's packets
    let b: PeerConnection   // answerer, whose receive side is under test
    let addressA = TransportAddress("10.0.0.1:5000")!
    let addressB = TransportAddress("10.0.0.2:6000")!
    var now = TransportTime.zero
    private var queue: [(to: String, Transmit)] = []
    private var deadlines: [String: TransportTime] = [:]
    /// Media events of B, handed to `onEventAtB` as they come.
    var onEventAtB: (PeerConnection.Event) -> Void = { _ in }

    init?() {
        var ca = PeerConnection.Configuration(localHosts: [addressA], audioSSRC: SSRC(0x1111), videoSSRC: SSRC(0x2222),
                                              cname: "a", streamID: "a")
        ca.candidatesInDescription = true
        var cb = PeerConnection.Configuration(localHosts: [addressB], audioSSRC: SSRC(0x3333), videoSSRC: SSRC(0x4444),
                                              cname: "b", streamID: "b")
        cb.candidatesInDescription = true
        guard let a = try? PeerConnection(configuration: ca), let b = try? PeerConnection(configuration: cb) else { return nil }
        self.a = a
        self.b = b
        guard let offer = description(feed("A", .command(.createOffer))),
              let parsedOffer = try? SessionDescription(parsing: offer.sdpText),
              let answer = description(feed("B", .command(.applyRemoteOffer(parsedOffer)))),
              let parsedAnswer = try? SessionDescription(parsing: answer.sdpText) else { return nil }
        feed("A", .command(.applyRemoteAnswer(parsedAnswer)))
        guard run(until: { a.state == .connected && b.state == .connected }) else { return nil }
    }

    private func description(_ out: PeerConnection.Output) -> SessionDescription? {
        for case .localDescription(let d, _) in out.events { return d }
        return nil
    }

    @discardableResult
    func feed(_ name: String, _ input: PeerConnection.Input) -> PeerConnection.Output {
        let out = (name == "A" ? a : b).handle(input, now: now)
        for t in out.transmits { queue.append((t.to == addressA ? "A" : "B", t)) }
        deadlines[name] = out.deadline
        if name == "B" { for e in out.events { onEventAtB(e) } }
        return out
    }

    /// Delivers queued datagrams and fires timers until `until` holds or ten virtual seconds pass.
    @discardableResult
    func run(until: () -> Bool = { false }, limit: Duration = .seconds(10)) -> Bool {
        let end = now + limit
        var steps = 0
        while !until() && steps < 10_000 {
            steps += 1
            if !queue.isEmpty {
                let batch = queue
                queue = []
                for (to, t) in batch { feed(to, .datagram(from: t.from, to: t.to, bytes: t.bytes)) }
                continue
            }
            guard let next = deadlines.values.min(), next <= end else { return until() }
            now = max(now, next)
            for (name, d) in deadlines where d <= now {
                deadlines[name] = nil
                feed(name, .timeout)
            }
        }
        return until()
    }

    /// Protects `packet` with A's SRTP context and delivers it to B (after which B sees exactly `packet`).
    func deliverToB(_ packet: [UInt8], rtcp: Bool) {
        guard let transport = a.transport else { return }
        let out = transport.handle(.command(rtcp ? .sendRTCP(packet) : .sendRTP(packet)), now: now)
        for t in out.transmits { feed("B", .datagram(from: t.from, to: t.to, bytes: t.bytes)) }
    }
}
