import EngineTransport

/// The room policy of a selective forwarding unit (Janus's VideoRoom, for one) as a sans-IO core: two connections to
/// the server instead of one per participant. We publish on one (we offer, it only sends); the server offers the
/// other, which carries every other participant's streams, one section each, and says whose each section is
/// (`RoomSignal.sections`). The participants the screen shows are those owners, not the connections.
///
/// Rules:
/// - `joined`: create the publishing connection and offer.
/// - The server's offers for the subscription create it (the first) or renegotiate it (later ones, same ICE session);
///   an offer with new ICE credentials starts a fresh connection.
/// - The section map goes to the core before the offer it belongs to, so the first media is already attributed.
/// - Chat: a channel on the publication carries what we say, once, to everyone; what the others say arrives on the
///   subscription, a channel per publisher (the core gives each to its participant by label).
/// - A failed publishing connection is offered again after 1, 2 and 4 s, on a fresh connection (new ports and ICE
///   credentials: the server takes it as a new publication of the same participant); a failed subscription waits for
///   the server's next offer.
public struct SfuRoom: RoomPolicy, Sendable {
    /// The connection ids of the two connections (participants are the server's feed ids, never these).
    public static let publisher = RemotePeerID("publisher")
    public static let subscriber = RemotePeerID("subscriber")

    public private(set) var you: RemotePeerID?
    private(set) var open: Set<RemotePeerID> = []
    private var states: [RemotePeerID: PeerConnectionState] = [:]
    private var subscriberUfrag: String?
    /// The section map for the subscription, kept for a fresh connection.
    private(set) var owners: [String: RemotePeerID] = [:]
    private var retry: (attempt: Int, at: TransportTime?)?

    public init() {}

    public var nextDeadline: TransportTime? { retry?.at }

    public mutating func handle(_ input: RoomInput, now: TransportTime) -> [RoomAction] {
        var out: [RoomAction] = []
        switch input {
        case .signal(let signal): handle(signal, into: &out)
        case .connectionState(let id, let state): changed(id, state, now: now, into: &out)
        case .localSignal(let signal):
            if open.contains(signal.peer) { out.append(.send(signal)) }
        case .timer:
            if let r = retry, let at = r.at, at <= now, states[Self.publisher] == .failed {
                close(Self.publisher, cause: "failed; publishing again", into: &out)
                retry = (r.attempt, nil)
                publish(into: &out)
            }
        case .signalingLost:
            closeAll(cause: "signaling lost", into: &out)
            you = nil
        case .leave:
            closeAll(cause: "left the room", into: &out)
        }
        return out
    }

    private mutating func handle(_ signal: RoomSignal, into out: inout [RoomAction]) {
        switch signal {
        case .joined(let me, _):
            you = me
            out.append(.log("joined the forwarding server's room as \(me); publishing"))
            retry = nil
            if !open.contains(Self.publisher) { publish(into: &out) }
        case .resumed(let me, _):
            you = me   // the publication and the subscription carry on
        case .newPeer, .removePeer:
            break   // participants come and go with the subscription's sections
        case .sections(let of, let map):
            guard of == Self.subscriber else { return out.append(.log("section map for \(of) ignored: not the subscription")) }
            owners = map
            if open.contains(of) { out.append(.assignSections(of, owners: map)) }
        case .offer(let from, let offer):
            guard from == Self.subscriber else { return out.append(.log("offer from \(from) ignored: only the subscription is offered")) }
            let ufrag = Mesh.ufrag(of: offer)
            if open.contains(from), ufrag != nil, ufrag == subscriberUfrag, states[from] != .failed {
                out.append(.log("subscription renegotiated"))
            } else {
                if open.contains(from) { close(from, cause: "replaced by a new offer", into: &out) }
                open.insert(from)
                out.append(.createConnection(from, role: nil, media: .receiveOnly, participants: .bySection))
                out.append(.assignSections(from, owners: owners))
                // Janus relays others' messages to a subscription only once its SCTP has gone "dry" after sending
                // something (usrsctp's SENDER_DRY tells the plugin the channel is ready), and it sends nothing
                // unprompted: a channel of ours makes it answer (DCEP ACK), as janus.js's default channel does.
                out.append(.openDataChannel(from, label: Self.chatLabel))
            }
            subscriberUfrag = ufrag
            out.append(.applyRemoteOffer(from, offer))
        case .answer(let from, let answer):
            guard from == Self.publisher, open.contains(from) else { return }
            out.append(.applyRemoteAnswer(from, answer))
        case .candidate(let from, let candidate):
            guard open.contains(from) else { return }
            out.append(.addRemoteCandidate(from, candidate))
        }
    }

    private mutating func changed(_ id: RemotePeerID, _ state: PeerConnectionState, now: TransportTime, into out: inout [RoomAction]) {
        guard open.contains(id) else { return }
        states[id] = state
        guard id == Self.publisher else { return }
        if state == .connected { retry = nil }
        guard state == .failed else { return }
        let attempt = (retry?.attempt ?? 0) + 1
        guard attempt <= Mesh.retryDelays.count else {
            retry = nil
            return out.append(.log("publishing failed \(attempt - 1) more times; giving up"))
        }
        let delay = Mesh.retryDelays[attempt - 1]
        retry = (attempt, now + delay)
        out.append(.log("publishing connection failed; offering again in \(delay.components.seconds) s (attempt \(attempt))"))
    }

    private mutating func publish(into out: inout [RoomAction]) {
        open.insert(Self.publisher)
        states[Self.publisher] = .new
        out.append(.createConnection(Self.publisher, role: .offerer, media: .sendOnly, participants: .bySection))
        // Chat goes out once, on the publication: the server relays it to every subscriber of our data, on a channel
        // labelled with our feed id (which is how they know who spoke).
        out.append(.openDataChannel(Self.publisher, label: Self.chatLabel))
    }

    /// The label of our channel on the publication (the server relays under its own labels).
    public static let chatLabel = "chat"

    private mutating func close(_ id: RemotePeerID, cause: String, into out: inout [RoomAction]) {
        guard open.remove(id) != nil else { return }
        states[id] = nil
        out.append(.closeConnection(id, cause: cause))
    }

    private mutating func closeAll(cause: String, into out: inout [RoomAction]) {
        for id in open.sorted() { close(id, cause: cause, into: &out) }
        retry = nil
        subscriberUfrag = nil
    }
}
