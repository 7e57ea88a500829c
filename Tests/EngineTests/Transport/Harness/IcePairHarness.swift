@testable import EngineTransport
import EngineTestSupport

/// Two ICE agents on the pair harness, with signaling done by direct commands.
final class IcePairHarness: PairHarness<IceAgent> {
    struct Record {
        var at: TransportTime
        var agent: String
        var event: IceEvent
    }

    /// Extra host addresses (more interfaces), gathered after the first.
    var extraHostsA: [TransportAddress] = []
    var extraHostsB: [TransportAddress] = []
    private(set) var records: [Record] = []
    /// Whether gathered candidates are signalled to the other side (turn off to force peer-reflexive learning).
    var signalCandidatesOfA = true
    var signalCandidatesOfB = true
    /// A's relayed address (a TURN allocation), gathered after its hosts. The harness plays the relay: what A sends
    /// from it reaches B from it, and what B sends to it reaches A.
    var relayedA: TransportAddress?
    /// Drops every datagram that does not go to or come from `relayedA`: only the relay gets through.
    var onlyRelayPasses = false

    init(roleA: IceRole = .controlling, roleB: IceRole = .controlled, seed: UInt64, tieBreakers: (UInt64, UInt64)? = nil,
         nomination: IceAgentConfig.Nomination = .regular,
         addressA: TransportAddress = TransportAddress("10.0.0.1:5000")!,
         addressB: TransportAddress = TransportAddress("10.0.0.2:6000")!) {
        var rng = SplitMixRandom(seed: seed)
        var configA = IceAgentConfig(role: roleA, local: .random(using: &rng), tieBreaker: tieBreakers?.0 ?? rng.next(), seed: rng.next())
        var configB = IceAgentConfig(role: roleB, local: .random(using: &rng), tieBreaker: tieBreakers?.1 ?? rng.next(), seed: rng.next())
        configA.nomination = nomination
        configB.nomination = nomination
        super.init(a: IceAgent(config: configA), b: IceAgent(config: configB), addressA: addressA, addressB: addressB,
                   network: NetworkEmulator(seed: rng.next()))
    }

    /// Gathers one host candidate each and exchanges credentials (and candidates, unless disabled).
    func start() {
        feed("A", .command(.setRemoteCredentials(b.localCredentials)))
        feed("B", .command(.setRemoteCredentials(a.localCredentials)))
        feed("A", .command(.addLocalHost(addressA)))
        feed("B", .command(.addLocalHost(addressB)))
        for extra in extraHostsA { feed("A", .command(.addLocalHost(extra))) }
        for extra in extraHostsB { feed("B", .command(.addLocalHost(extra))) }
        if let relayedA { feed("A", .command(.addLocalRelayed(relayed: relayedA, mapped: nil))) }
    }

    func feed(_ name: String, _ input: IceInput) { apply(name, endpoint(name).handle(input, now: now)) }

    override func observe(_ event: IceEvent, of name: String) {
        records.append(Record(at: now, agent: name, event: event))
        if case .candidateGathered(let c) = event, name == "A" ? signalCandidatesOfA : signalCandidatesOfB {
            feed(other(name), .command(.addRemoteCandidate(c)))
        }
    }

    override func receiver(of datagram: Transmit) -> String? {
        if onlyRelayPasses && datagram.from != relayedA && datagram.to != relayedA { return nil }
        if datagram.to == relayedA { return "A" }
        return ([addressA] + extraHostsA).contains(datagram.to) ? "A" : ([addressB] + extraHostsB).contains(datagram.to) ? "B" : nil
    }

    /// `run`, with a condition on the harness.
    @discardableResult
    func run(for limit: Duration, until: (IcePairHarness) -> Bool) -> Bool { run(for: limit, until: { until(self) }) }

    func states(_ name: String) -> [(TransportTime, IceConnectionState)] {
        records.compactMap { r in
            guard r.agent == name, case .stateChanged(let s) = r.event else { return nil }
            return (r.at, s)
        }
    }

    func firstTime(_ name: String, reaches state: IceConnectionState) -> TransportTime? {
        states(name).first { $0.1 == state }?.0
    }

    var bothConnected: Bool { a.state == .connected && b.state == .connected }
}
