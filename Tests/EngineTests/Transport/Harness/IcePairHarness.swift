@testable import EngineTransport

/// Two ICE agents wired through a `VirtualNetwork`, with signaling done by direct commands.
final class IcePairHarness {
    struct Record {
        var at: TransportTime
        var agent: String
        var event: IceEvent
    }

    let a: IceAgent
    let b: IceAgent
    let addressA: TransportAddress
    let addressB: TransportAddress
    /// Extra host addresses (more interfaces), gathered after the first.
    var extraHostsA: [TransportAddress] = []
    var extraHostsB: [TransportAddress] = []
    var network: VirtualNetwork
    var now = TransportTime.zero
    private(set) var records: [Record] = []
    private(set) var transmitsFrom: [String: [(TransportTime, Transmit)]] = ["A": [], "B": []]
    private var deadlines: [String: TransportTime] = [:]
    /// Whether gathered candidates are signalled to the other side (turn off to force peer-reflexive learning).
    var signalCandidatesOfA = true
    var signalCandidatesOfB = true

    init(roleA: IceRole = .controlling, roleB: IceRole = .controlled, seed: UInt64, tieBreakers: (UInt64, UInt64)? = nil,
         nomination: IceAgentConfig.Nomination = .regular,
         addressA: TransportAddress = TransportAddress("10.0.0.1:5000")!,
         addressB: TransportAddress = TransportAddress("10.0.0.2:6000")!) {
        var rng = SplitMix64(seed: seed)
        var configA = IceAgentConfig(role: roleA, local: .random(using: &rng), tieBreaker: tieBreakers?.0 ?? rng.next(), seed: rng.next())
        var configB = IceAgentConfig(role: roleB, local: .random(using: &rng), tieBreaker: tieBreakers?.1 ?? rng.next(), seed: rng.next())
        configA.nomination = nomination
        configB.nomination = nomination
        a = IceAgent(config: configA)
        b = IceAgent(config: configB)
        self.addressA = addressA
        self.addressB = addressB
        network = VirtualNetwork(seed: rng.next())
    }

    func agent(_ name: String) -> IceAgent { name == "A" ? a : b }
    func other(_ name: String) -> String { name == "A" ? "B" : "A" }

    /// Gathers one host candidate each and exchanges credentials (and candidates, unless disabled).
    func start() {
        feed("A", .command(.setRemoteCredentials(b.localCredentials)))
        feed("B", .command(.setRemoteCredentials(a.localCredentials)))
        feed("A", .command(.addLocalHost(addressA)))
        feed("B", .command(.addLocalHost(addressB)))
        for extra in extraHostsA { feed("A", .command(.addLocalHost(extra))) }
        for extra in extraHostsB { feed("B", .command(.addLocalHost(extra))) }
    }

    func feed(_ name: String, _ input: IceInput) {
        let output = agent(name).handle(input, now: now)
        for t in output.transmits {
            transmitsFrom[name, default: []].append((now, t))
            network.send(t, now: now)
        }
        deadlines[name] = output.deadline
        for e in output.events {
            records.append(Record(at: now, agent: name, event: e))
            if case .candidateGathered(let c) = e, name == "A" ? signalCandidatesOfA : signalCandidatesOfB {
                feed(other(name), .command(.addRemoteCandidate(c)))
            }
        }
    }

    /// Advances virtual time event by event until `until` holds or `limit` passes. Returns whether `until` held.
    @discardableResult
    func run(for limit: Duration, until: (IcePairHarness) -> Bool = { _ in false }) -> Bool {
        let end = now + limit
        var steps = 0
        while !until(self) {
            steps += 1
            precondition(steps < 2_000_000, "harness did not settle")
            let next = ([network.nextDelivery] + deadlines.values.map { Optional($0) }).compactMap { $0 }.min()
            guard let next, next <= end else {
                now = end
                return until(self)
            }
            now = max(now, next)
            for t in network.due(at: now) {
                let receiver = ([addressA] + extraHostsA).contains(t.to) ? "A" : ([addressB] + extraHostsB).contains(t.to) ? "B" : nil
                if let receiver { feed(receiver, .datagram(from: t.from, to: t.to, bytes: t.bytes)) }
            }
            for name in ["A", "B"] where (deadlines[name].map { $0 <= now } ?? false) {
                deadlines[name] = nil
                feed(name, .timeout)
            }
        }
        return true
    }

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
