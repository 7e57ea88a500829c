/// The one multistream subscriber handle and which feeds it carries. Janus coalesces and postpones offers
/// ("clients should never expect an offer any time they request one"), so nothing here waits for one: a feed is
/// asked for once (`requested`), feeds that arrive while the handle is attaching or joining wait in `queued`,
/// and a request Janus refused (or a subscriber `join` that timed out) puts its feeds back at most `maxAttempts`
/// times, each after a pause (`retryDelay`). Janus announces a publisher before its PeerConnection is up and
/// refuses to subscribe to it until then ("No such feed", 428): asking again at once only uses up the attempts.
/// It also refuses a whole `join` or `subscribe` for one such feed, so a feed refused in company is asked for
/// alone afterwards (`alone`): it never holds up the others again.
struct JanusSubscription {
    enum Handle: Equatable {
        case none
        case attaching
        /// Attached, no `join` sent yet (nothing was left to subscribe to when the handle came).
        case attached(UInt64)
        case joining(UInt64)
        case joined(UInt64)

        var id: UInt64? {
            switch self {
            case .none, .attaching: nil
            case .attached(let id), .joining(let id), .joined(let id): id
            }
        }
    }

    static let maxAttempts = 6

    /// The pause before asking again for a feed refused `attempts` times: 0.5 s, doubling, at most 8 s (about 15 s
    /// in all for six attempts, longer than a publisher's ICE and DTLS take).
    static func retryDelay(afterAttempts attempts: Int) -> Double { min(8, 0.5 * Double(1 << min(max(attempts - 1, 0), 4))) }

    var handle = Handle.none
    /// Feeds asked for in a `join` or `subscribe`: never asked for again while they stay published.
    private(set) var requested: Set<UInt64> = []
    /// Feeds to ask for at the next chance, in arrival order.
    private(set) var queued: [UInt64] = []
    private var attempts: [UInt64: Int] = [:]
    /// Refused feeds and when they may be asked for again.
    private(set) var waitingUntil: [UInt64: MonotonicInstant] = [:]
    /// Feeds refused in a request with others: asked for one per request from then on.
    private var alone: Set<UInt64> = []

    /// A publisher with media is in the room.
    mutating func want(_ feed: UInt64) {
        guard !requested.contains(feed), !queued.contains(feed), waitingUntil[feed] == nil else { return }
        guard attempts[feed, default: 0] < Self.maxAttempts else { return }
        queued.append(feed)
    }

    /// The earliest moment a refused feed may be asked for again.
    var nextRetry: MonotonicInstant? { waitingUntil.values.min() }

    /// Refused feeds whose pause is over go back in the queue (those still published: `stillKnown`).
    mutating func retryDue(now: MonotonicInstant, stillKnown: (UInt64) -> Bool) {
        for (feed, at) in waitingUntil.sorted(by: { $0.key < $1.key }) where at <= now {
            waitingUntil[feed] = nil
            if stillKnown(feed) { want(feed) }
        }
    }

    /// The feeds to ask for now, marked requested: every queued feed, except that one refused in company is asked
    /// for alone (after the others).
    mutating func take() -> [UInt64] {
        let together = queued.filter { !alone.contains($0) }
        let feeds = together.isEmpty ? Array(queued.prefix(1)) : together
        queued.removeAll { feeds.contains($0) }
        for feed in feeds {
            requested.insert(feed)
            attempts[feed, default: 0] += 1
        }
        return feeds
    }

    /// A `join` or `subscribe` for `feeds` was refused: those still published (`stillKnown`) are asked for again
    /// after a pause, each alone when they were refused together. `refused: false` (the handle went away, or its
    /// `join` was not answered): the feeds themselves are not in question, and are asked for again at once.
    mutating func failed(_ feeds: [UInt64], stillKnown: (UInt64) -> Bool, now: MonotonicInstant, refused: Bool = true) {
        for feed in feeds {
            requested.remove(feed)
            guard stillKnown(feed), attempts[feed, default: 0] < Self.maxAttempts else { continue }
            guard refused else {
                want(feed)
                continue
            }
            if feeds.count > 1 { alone.insert(feed) }
            waitingUntil[feed] = now + Self.retryDelay(afterAttempts: attempts[feed, default: 1])
        }
    }

    /// Janus carries the feed now (it is in the subscription's streams).
    mutating func carried(_ feed: UInt64) {
        alone.remove(feed)
    }

    /// The publisher unpublished or left: Janus drops its streams from the subscription itself (`autoupdate`),
    /// and a later publish under the same id is a new subscription.
    mutating func forget(_ feed: UInt64) {
        requested.remove(feed)
        queued.removeAll { $0 == feed }
        attempts.removeValue(forKey: feed)
        waitingUntil.removeValue(forKey: feed)
        alone.remove(feed)
    }

    func isRequested(_ feed: UInt64) -> Bool { requested.contains(feed) }
}
