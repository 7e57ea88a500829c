/// The requests waiting for Janus, by transaction. Each has a deadline; an `ack` keeps an asynchronous request
/// waiting for its `event` ("asynchronous plugin answers arrive later as events on the same transaction").
struct JanusTransactions {
    enum Kind: Equatable {
        case createSession, attachPublisher, attachSubscriber, keepalive, destroy
        case joinPublisher, createRoom, publish, configureSending, leave
        case joinSubscriber, subscribe, start, configureSubscription

        /// The request's name as the user would read it in a timeout.
        var name: String {
            switch self {
            case .createSession: "create"
            case .attachPublisher, .attachSubscriber: "attach"
            case .keepalive: "keepalive"
            case .destroy: "destroy"
            case .joinPublisher, .joinSubscriber: "join"
            case .createRoom: "create room"
            case .publish: "publish"
            case .configureSending, .configureSubscription: "configure"
            case .leave: "leave"
            case .subscribe: "subscribe"
            case .start: "start"
            }
        }

        /// A VideoRoom request (a Janus `message`), answered by the plugin's data.
        var isPluginRequest: Bool {
            switch self {
            case .createSession, .attachPublisher, .attachSubscriber, .keepalive, .destroy: false
            default: true
            }
        }

        /// Answered by `ack` alone (the core's keepalive), not by a later `success` or `event`.
        var endsWithAck: Bool { self == .keepalive }
    }

    struct Pending: Equatable {
        var kind: Kind
        var deadline: MonotonicInstant
        /// The feeds a subscriber `join` or `subscribe` asked for.
        var feeds: [UInt64] = []
    }

    private var next: UInt64 = 1
    private(set) var pending: [String: Pending] = [:]

    /// A fresh transaction for a request sent now.
    mutating func begin(_ kind: Kind, now: MonotonicInstant, timeout: Double, feeds: [UInt64] = []) -> String {
        let transaction = "c\(next)"
        next += 1
        pending[transaction] = Pending(kind: kind, deadline: now + timeout, feeds: feeds)
        return transaction
    }

    func peek(_ transaction: String) -> Pending? { pending[transaction] }

    mutating func finish(_ transaction: String) -> Pending? { pending.removeValue(forKey: transaction) }

    /// The requests past their deadline, removed, oldest transaction first.
    mutating func expire(now: MonotonicInstant) -> [Pending] {
        let late = pending.filter { $0.value.deadline <= now }.sorted { $0.key.count != $1.key.count ? $0.key.count < $1.key.count : $0.key < $1.key }
        for (key, _) in late { pending.removeValue(forKey: key) }
        return late.map(\.value)
    }

    var earliestDeadline: MonotonicInstant? { pending.values.map(\.deadline).min() }

    mutating func removeAll() { pending.removeAll() }
}
