@testable import EngineTransport

/// Two `DataChannels` joined by a seeded link on a virtual clock: one-way delay, random loss, an optional rate
/// (a queue that drains at that rate), and an optional hook to rewrite or inject packets.
final class SctpPairHarness {
    struct Link {
        var delay: Duration = .milliseconds(20)
        var loss = 0.0
        var bytesPerSecond: Int?
    }

    let a: DataChannels
    let b: DataChannels
    var link = Link()
    var now = TransportTime(nanoseconds: 1_000_000_000)
    private var random: SplitMixRandom
    /// (arrival, to A?, bytes), kept in arrival order.
    private var inFlight: [(at: TransportTime, toA: Bool, bytes: [UInt8])] = []
    private var linkFreeAt: [Bool: TransportTime] = [:]
    private var deadlines: [Bool: TransportTime] = [:]
    var events: [String: [DataChannels.Event]] = ["A": [], "B": []]
    var packets: [String: Int] = ["A": 0, "B": 0]
    var tamper: ((_ fromA: Bool, _ packet: [UInt8]) -> [[UInt8]])?

    init(seed: UInt64, aIsClient: Bool = true, configure: (inout DataChannels.Configuration) -> Void = { _ in }) {
        random = SplitMixRandom(seed: seed)
        var ca = DataChannels.Configuration(isDtlsClient: aIsClient)
        ca.sctp.seed = seed &+ 1
        var cb = DataChannels.Configuration(isDtlsClient: !aIsClient)
        cb.sctp.seed = seed &+ 2
        configure(&ca)
        configure(&cb)
        a = DataChannels(configuration: ca)
        b = DataChannels(configuration: cb)
    }

    func endpoint(_ toA: Bool) -> DataChannels { toA ? a : b }

    func apply(_ out: DataChannels.Output, fromA: Bool) {
        events[fromA ? "A" : "B", default: []] += out.events
        deadlines[fromA] = out.deadline
        for packet in out.transmits {
            packets[fromA ? "A" : "B", default: 0] += 1
            let sent = tamper?(fromA, packet) ?? [packet]
            for p in sent {
                if link.loss > 0 && random.unit() < link.loss { continue }
                var departs = now
                if let rate = link.bytesPerSecond {
                    let free = max(now, linkFreeAt[fromA] ?? now)
                    departs = free + .nanoseconds(Int64(p.count) * 1_000_000_000 / Int64(rate))
                    linkFreeAt[fromA] = departs
                }
                let at = departs + link.delay
                let index = inFlight.firstIndex { $0.at > at } ?? inFlight.count
                inFlight.insert((at, !fromA, p), at: index)
            }
        }
    }

    func start() {
        apply(a.start(now: now), fromA: true)
        apply(b.start(now: now), fromA: false)
    }

    /// Runs until `until` holds or `limit` of virtual time passes; true when it held.
    @discardableResult
    func run(for limit: Duration, until: () -> Bool = { false }) -> Bool {
        let end = now + limit
        while now < end {
            if until() { return true }
            let nextPacket = inFlight.first?.at
            let nextTimer = deadlines.values.min()
            guard let next = [nextPacket, nextTimer, end].compactMap({ $0 }).min() else { break }
            now = max(now, next)
            while let first = inFlight.first, first.at <= now {
                inFlight.removeFirst()
                apply(endpoint(first.toA).receive(packet: first.bytes, now: now), fromA: first.toA)
            }
            for side in [true, false] {
                if let d = deadlines[side], d <= now {
                    deadlines[side] = nil
                    apply(endpoint(side).handleTimeout(now: now), fromA: side)
                }
            }
        }
        return until()
    }

    func connect() -> Bool {
        start()
        return run(for: .seconds(30)) { a.isConnected && b.isConnected }
    }

    func messages(_ side: String) -> [(DataChannels.ChannelID, DataChannels.Message)] {
        events[side, default: []].compactMap { if case .message(let id, let m) = $0 { (id, m) } else { nil } }
    }

    func opened(_ side: String) -> [(DataChannels.ChannelID, String)] {
        events[side, default: []].compactMap { if case .opened(let id, let label, _) = $0 { (id, label) } else { nil } }
    }

    func closed(_ side: String) -> [DataChannels.ChannelID] {
        events[side, default: []].compactMap { if case .closed(let id) = $0 { id } else { nil } }
    }

    func warnings(_ side: String) -> [String] {
        events[side, default: []].compactMap { if case .warning(let w) = $0 { w } else { nil } }
    }
}
