import Engine

/// Two sans-IO endpoints, "A" at `addressA` and "B" at `addressB`, joined by a seeded `NetworkEmulator` and stepped
/// on a virtual clock from one deadline or arrival to the next, so seconds of protocol run in milliseconds.
/// Subclasses add what their endpoint type needs: signaling (by direct commands), bookkeeping of events (`observe`).
open class PairHarness<Endpoint: SansIOEndpoint> {
    public typealias Event = Endpoint.Output.Event

    public let a: Endpoint
    public let b: Endpoint
    public let addressA: TransportAddress
    public let addressB: TransportAddress
    public var network: NetworkEmulator<Transmit>
    public var now = TransportTime.zero
    /// Each side's events, in order.
    public private(set) var events: [String: [Event]] = ["A": [], "B": []]
    /// Every datagram each side handed to the network, with the time.
    public private(set) var sent: [String: [(at: TransportTime, transmit: Transmit)]] = ["A": [], "B": []]
    /// When each side last asked to be woken; cleared when it is.
    public private(set) var deadlines: [String: TransportTime] = [:]
    /// A guard against a clock that cannot advance (an endpoint re-arming a timer at the same instant).
    public var stepLimit = 2_000_000

    public init(a: Endpoint, b: Endpoint, addressA: TransportAddress, addressB: TransportAddress,
                network: NetworkEmulator<Transmit>) {
        self.a = a
        self.b = b
        self.addressA = addressA
        self.addressB = addressB
        self.network = network
    }

    public func endpoint(_ name: String) -> Endpoint { name == "A" ? a : b }
    public func other(_ name: String) -> String { name == "A" ? "B" : "A" }

    /// Takes what one call into `name`'s endpoint produced: its datagrams go onto the network, its deadline is kept,
    /// its events recorded and passed to `observe` one by one.
    open func apply(_ name: String, _ output: Endpoint.Output) {
        for t in output.transmits {
            sent[name, default: []].append((now, t))
            network.send(t, name == "A" ? .aToB : .bToA, now: now)
        }
        deadlines[name] = output.deadline
        events[name, default: []] += output.events
        for event in output.events { observe(event, of: name) }
    }

    /// Called for each event as it happens, e.g. to signal a candidate to the other side.
    open func observe(_ event: Event, of name: String) {}

    /// Which side receives a datagram sent to `datagram.to`; nil drops it (nobody listens at that address).
    open func receiver(of datagram: Transmit) -> String? {
        datagram.to == addressA ? "A" : datagram.to == addressB ? "B" : nil
    }

    /// Hands every datagram that has arrived by `now` to its receiver.
    public func deliverDue() {
        for t in network.deliver(now: now) {
            if let name = receiver(of: t) { apply(name, endpoint(name).receive(t, now: now)) }
        }
    }

    public func fireTimeout(_ name: String) {
        deadlines[name] = nil
        apply(name, endpoint(name).timeout(now: now))
    }

    /// Advances virtual time, arrival by arrival and deadline by deadline, until `until` holds or `limit` passes
    /// (then `now` is the limit). `tick` runs every `tickInterval` of virtual time (media pacing). Returns `until`.
    /// (`until` comes first so that a trailing closure is the condition.)
    @discardableResult
    public func run(for limit: Duration, until: () -> Bool = { false }, tickInterval: Duration = .milliseconds(20),
                    tick: ((TransportTime) -> Void)? = nil) -> Bool {
        let end = now + limit
        var nextTick = now
        var steps = 0
        while !until() {
            steps += 1
            precondition(steps < stepLimit, "the pair did not settle at \(now): deadlines \(deadlines), next arrival \(String(describing: network.nextDelivery))")
            let candidates = [network.nextDelivery, deadlines["A"], deadlines["B"], tick == nil ? nil : nextTick]
            guard let next = candidates.compactMap({ $0 }).min(), next <= end else {
                now = end
                return until()
            }
            now = max(now, next)
            if let tick, now >= nextTick {
                tick(now)
                nextTick = now + tickInterval
            }
            deliverDue()
            for name in ["A", "B"] where deadlines[name].map({ $0 <= now }) ?? false { fireTimeout(name) }
        }
        return true
    }
}
