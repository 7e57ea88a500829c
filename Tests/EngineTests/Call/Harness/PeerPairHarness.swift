import Testing
import EngineTestSupport
@testable import Engine

/// Two `PeerConnection`s on the pair harness, A the offerer and B the answerer, signalled by direct commands.
/// Each side decodes and plays what it receives (`mediaAtA`, `mediaAtB`), as a call's media pipeline would.
final class PeerPairHarness: PairHarness<PeerConnection> {
    var trickled: [String: [TrickleCandidate]] = ["A": [], "B": []]
    /// For every datagram each side sent: when, and the connection's state right after the call that produced it.
    private(set) var statesAtSend: [String: [(at: TransportTime, stateAfter: PeerConnectionState)]] = ["A": [], "B": []]
    /// What B decodes from A.
    let mediaAtB: RemoteMedia
    let mediaAtA: RemoteMedia
    /// Whether signalled descriptions keep their candidates (false: only trickle carries them).
    var candidatesInSDP = true

    init(seed: UInt64, configureB: (inout PeerConnection.Configuration) -> Void = { _ in }) throws {
        let addressA = TransportAddress("10.0.0.1:5000")!, addressB = TransportAddress("10.0.0.2:6000")!
        let a = try PeerConnection(configuration: .random(localHosts: [addressA]))
        var configurationB = PeerConnection.Configuration.random(localHosts: [addressB])
        configureB(&configurationB)
        let b = try PeerConnection(configuration: configurationB)
        mediaAtB = try RemoteMedia()
        mediaAtA = try RemoteMedia()
        super.init(a: a, b: b, addressA: addressA, addressB: addressB, network: NetworkEmulator(seed: seed))
        stepLimit = 200_000
    }

    @discardableResult
    func feed(_ name: String, _ input: PeerConnection.Input) -> PeerConnection.Output {
        let out = endpoint(name).handle(input, now: now)
        apply(name, out)
        return out
    }

    override func apply(_ name: String, _ output: PeerConnection.Output) {
        statesAtSend[name, default: []] += output.transmits.map { _ in (now, endpoint(name).state) }
        super.apply(name, output)
    }

    override func observe(_ event: PeerConnection.Event, of name: String) {
        let media = name == "B" ? mediaAtB : mediaAtA
        switch event {
        case .localCandidate(let c): trickled[name, default: []].append(c)
        case .videoFrame(let mid, let f):
            if !media.decode(f, now: now.seconds, wallMillis: UInt32(now.nanoseconds / 1_000_000)) { feed(name, .command(.decodeFailed(mid: mid))) }
        case .audio(_, let pull): media.play(pull)
        default: break
        }
    }

    func description(_ name: String) -> SessionDescription? {
        for case .localDescription(let sd, _) in events[name]!.reversed() {
            guard !candidatesInSDP else { return sd }
            var stripped = sd
            for i in stripped.media.indices { stripped.media[i].candidates = [] }
            return stripped
        }
        return nil
    }

    /// A offers, B answers; candidates trickle after each description, as a SkyRTC client does.
    func negotiate() throws {
        feed("A", .command(.createOffer))
        let offer = try #require(description("A"))
        feed("B", .command(.applyRemoteOffer(try SessionDescription(parsing: offer.sdpText))))
        for c in trickled["A"]! { feed("B", .command(.addRemoteCandidate(c.candidate))) }
        let answer = try #require(description("B"))
        feed("A", .command(.applyRemoteAnswer(try SessionDescription(parsing: answer.sdpText))))
        for c in trickled["B"]! { feed("A", .command(.addRemoteCandidate(c.candidate))) }
    }

    func states(_ name: String) -> [PeerConnectionState] {
        events[name]!.compactMap { if case .stateChanged(let s, _) = $0 { s } else { nil } }
    }

    func count(_ name: String, where match: (PeerConnection.Event) -> Bool) -> Int { events[name]!.filter(match).count }
}
