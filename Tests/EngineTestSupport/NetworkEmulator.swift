import Engine

/// The network between two endpoints A and B: one `EmulatedLink` each way, so loss, delay and the rest can differ
/// per direction. Both links are seeded from the one seed.
public struct NetworkEmulator<Datagram: EmulatedDatagram> {
    public enum Direction: Sendable { case aToB, bToA }

    public var aToB: EmulatedLink<Datagram>
    public var bToA: EmulatedLink<Datagram>

    public init(_ conditions: LinkConditions = LinkConditions(), seed: UInt64) {
        var seeds = SplitMixRandom(seed: seed)
        aToB = EmulatedLink(conditions, seed: seeds.next())
        bToA = EmulatedLink(conditions, seed: seeds.next())
    }

    /// Changes the conditions of both directions alike.
    public mutating func configure(_ change: (inout LinkConditions) -> Void) {
        change(&aToB.conditions)
        change(&bToA.conditions)
    }

    public mutating func send(_ datagram: Datagram, _ direction: Direction, now: TransportTime) {
        switch direction {
        case .aToB: aToB.send(datagram, now: now)
        case .bToA: bToA.send(datagram, now: now)
        }
    }

    public var nextDelivery: TransportTime? { [aToB.nextDelivery, bToA.nextDelivery].compactMap { $0 }.min() }

    /// The datagrams of both directions due by `now`, in arrival order.
    public mutating func deliver(now: TransportTime) -> [Datagram] {
        (aToB.deliverTimed(now: now) + bToA.deliverTimed(now: now)).enumerated()
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element.datagram)
    }

    public var sent: Int { aToB.sent + bToA.sent }
    public var dropped: Int { aToB.dropped + bToA.dropped }
}
