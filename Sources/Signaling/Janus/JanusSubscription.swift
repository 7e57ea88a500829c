/// The one multistream subscriber handle and which feeds it carries. Janus coalesces and postpones offers
/// ("clients should never expect an offer any time they request one"), so nothing here waits for one: a feed is
/// asked for once (`requested`), feeds that arrive while the handle is attaching or joining wait in `queued`,
/// and a request Janus refused (or a subscriber `join` that timed out) puts its feeds back at most `maxAttempts` times.
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

    static let maxAttempts = 3

    var handle = Handle.none
    /// Feeds asked for in a `join` or `subscribe`: never asked for again while they stay published.
    private(set) var requested: Set<UInt64> = []
    /// Feeds to ask for at the next chance, in arrival order.
    private(set) var queued: [UInt64] = []
    private var attempts: [UInt64: Int] = [:]

    /// A publisher with media is in the room.
    mutating func want(_ feed: UInt64) {
        guard !requested.contains(feed), !queued.contains(feed) else { return }
        guard attempts[feed, default: 0] < Self.maxAttempts else { return }
        queued.append(feed)
    }

    /// The feeds to ask for now, marked requested.
    mutating func take() -> [UInt64] {
        let feeds = queued
        queued.removeAll()
        for feed in feeds {
            requested.insert(feed)
            attempts[feed, default: 0] += 1
        }
        return feeds
    }

    /// A `join` or `subscribe` for `feeds` failed: those still published (`stillKnown`) are asked for again.
    mutating func failed(_ feeds: [UInt64], stillKnown: (UInt64) -> Bool) {
        for feed in feeds {
            requested.remove(feed)
            if stillKnown(feed) { want(feed) }
        }
    }

    /// The publisher unpublished or left: Janus drops its streams from the subscription itself (`autoupdate`),
    /// and a later publish under the same id is a new subscription.
    mutating func forget(_ feed: UInt64) {
        requested.remove(feed)
        queued.removeAll { $0 == feed }
        attempts.removeValue(forKey: feed)
    }

    func isRequested(_ feed: UInt64) -> Bool { requested.contains(feed) }
}
