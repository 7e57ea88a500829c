import EngineTransport

/// What the call core keeps for one connection besides its `PeerConnection`: its addresses, the helpers that gather
/// candidates for it (STUN, TURN), the candidates it signalled or holds back, how it connected, and which encoding
/// of our video it gets. Owned by `CallCore`.
final class CallConnection {
    let id: ConnectionID
    let peer: RemotePeerID
    /// The role the policy asked for (nil: wait for the remote offer), and what the connection carries.
    let requestedRole: SignalingRole?
    let media: ConnectionMedia
    /// `.own`: the connection is participant `peer`; `.bySection`: `owners` says whose each section is.
    let participants: ConnectionParticipants
    var owners: [String: RemotePeerID] = [:]
    /// The sections last negotiated, and the connection's state: what a participant assigned later is told.
    var sections: [SectionState] = []
    var state: PeerConnectionState = .new
    let createdAt: Double
    /// Created once the driver has bound its sockets (`CallCore.Input.socketsOpened`).
    var connection: PeerConnection?
    var localAddresses: [TransportAddress] = []
    var deadline: TransportTime?
    var gatherer: ServerReflexiveGatherer?
    var relay: RelayLink?
    /// Allocations lost mid-call and allocated again (bounded by `CallLimits.maxRelayReallocations`).
    var relayReallocations = 0
    /// The peer's candidate addresses so far: a new allocation permits them at once, before the peer's answer to
    /// our ICE restart names them again (bounded like the candidates themselves).
    var remoteRelayPeers = Set<IPAddress>()
    /// The relay was allocated again because the host addresses changed: its relayed candidate joins the ICE
    /// generation that the change already restarted, rather than restarting it again.
    var relayJoinsRestart = false
    /// Our server-reflexive candidates: each new ICE generation signals them again (the peer forgot them).
    var reflexiveCandidates: [IceCandidate] = []
    /// The ICE username fragment of our last description: a new one means a new generation.
    var describedUfrag: String?
    var timeline: [StateChange] = []
    var timeToConnected: Double?
    /// Server-reflexive candidates found before our description went out wait for it (trickle follows SDP).
    var described = false
    var heldCandidates: [IceCandidate] = []
    var signalledCandidates: [String] = []
    /// Which encoding this peer receives (`EncodingPlan`); after a switch, frames wait for that encoding's keyframe,
    /// since the peer's decoder has none of the frames the new encoding's deltas refer to.
    var layer = EncodingPlan.Layer.full
    /// A new peer's video starts at a keyframe too (and a simulcast connection's low encoding).
    var awaitingKeyframe = true
    var awaitingLowKeyframe = true
    /// Channels a forwarding server opened on a `.bySection` connection, by stream id: whose messages they carry
    /// (Janus labels each with the sending publisher's feed id).
    var dataOwners: [UInt16: RemotePeerID] = [:]
    /// Channels the server opened whose label named nobody yet, by stream id (bounded by the association's streams),
    /// with the events that came on them meanwhile (the opening, then at most `maxHeldEvents` messages, `heldBytes` in
    /// all, at most `maxHeldBytes`; past those, messages are dropped): Janus can relay a newcomer's first message before
    /// its offer tells us whose the newcomer's sections are.
    var unclaimedChannels: [UInt16: (label: String, events: [DataChannelEvent])] = [:]
    var heldBytes = 0
    static let maxHeldBytes = 64 * 1024
    static let maxHeldEvents = 16
    /// The receiving video sections last told (`CallEvent.videoStreams`), per participant.
    var videoStreams: [RemotePeerID: [String]] = [:]

    init(id: ConnectionID, peer: RemotePeerID, role: SignalingRole?, media: ConnectionMedia,
         participants: ConnectionParticipants = .own, createdAt: Double) {
        self.id = id
        self.peer = peer
        requestedRole = role
        self.media = media
        self.participants = participants
        self.createdAt = createdAt
    }

    /// The participants whose media this connection carries.
    var participantIDs: [RemotePeerID] {
        participants == .own ? [peer] : Set(owners.values).sorted()
    }

    /// Whose section `mid` is (nil: nobody's, not decoded).
    func owner(of mid: String) -> RemotePeerID? { participants == .own ? peer : owners[mid] }

    /// Each participant's receiving video sections, in section order.
    func receivingVideo() -> [RemotePeerID: [String]] {
        var result: [RemotePeerID: [String]] = [:]
        for p in participantIDs { result[p] = [] }
        for section in sections where section.kind == MediaKind.video.rawValue && section.receives {
            if let p = owner(of: section.mid) { result[p, default: []].append(section.mid) }
        }
        return result
    }

    var isConnected: Bool { connection?.state == .connected }

    enum DataRoute: Equatable {
        /// The connection's own peer (a mesh peer, or our channel to the forwarding server).
        case connection
        /// A participant whose messages the forwarding server relays on a channel of its own.
        case participant(RemotePeerID)
        /// A channel the server opened whose label names no participant of this connection (yet): held, with what
        /// comes on it, until the label does (`claimChannels`), within bounds.
        case nobody(label: String)
        /// A later event of such a channel (held, or dropped past the bounds).
        case dropped
    }

    /// Whose a data-channel event is. On a connection that carries many participants, a channel the server opened
    /// belongs to the participant its label names (Janus relays each publisher's messages on a channel labelled with
    /// its feed id); only labels of this connection's owners are believed, so a label cannot invent a participant.
    func dataRoute(of event: DataChannelEvent) -> DataRoute {
        guard participants == .bySection else { return .connection }
        switch event {
        case .opened(let id, let label, let byPeer, _):
            guard byPeer else { return .connection }
            release(id)
            guard let owner = owner(labelled: label) else {
                dataOwners[id] = nil
                unclaimedChannels[id] = (label, [event])
                return .nobody(label: label)
            }
            dataOwners[id] = owner
            return .participant(owner)
        case .message(let id, let message):
            guard var held = unclaimedChannels[id] else { return dataOwners[id].map(DataRoute.participant) ?? .connection }
            let size = message.byteCount
            if held.events.count <= Self.maxHeldEvents, heldBytes + size <= Self.maxHeldBytes {
                held.events.append(event)
                heldBytes += size
                unclaimedChannels[id] = held
            }
            return .dropped
        case .buffered(let id, _, _), .sendFailed(let id, _):
            if unclaimedChannels[id] != nil { return .dropped }
            return dataOwners[id].map(DataRoute.participant) ?? .connection
        case .closed(let id):
            if release(id) { return .dropped }
            return dataOwners.removeValue(forKey: id).map(DataRoute.participant) ?? .connection
        }
    }

    /// Channels held because their label named nobody, whose label names an owner now (the section map changed):
    /// theirs from now on, with the events held for them, in order.
    func claimChannels() -> [(RemotePeerID, [DataChannelEvent])] {
        var claimed: [(RemotePeerID, [DataChannelEvent])] = []
        for id in unclaimedChannels.keys.sorted() {
            guard let held = unclaimedChannels[id], let owner = owner(labelled: held.label) else { continue }
            release(id)
            dataOwners[id] = owner
            claimed.append((owner, held.events))
        }
        return claimed
    }

    private func owner(labelled label: String) -> RemotePeerID? { owners.values.first { $0.rawValue == label } }

    /// Forgets a held channel and what it held; true when there was one.
    @discardableResult
    private func release(_ id: UInt16) -> Bool {
        guard let held = unclaimedChannels.removeValue(forKey: id) else { return false }
        for case .message(_, let message) in held.events { heldBytes -= message.byteCount }
        return true
    }

    /// The core's part of the participant's snapshot: how it connected and its transport and RTP figures (the
    /// decoders fill in what they saw).
    func summary(now: TransportTime) -> PeerSnapshot {
        PeerSnapshot(role: connection?.role, createdAt: createdAt, timeline: timeline, timeToConnected: timeToConnected,
                     localCandidates: signalledCandidates,
                     transport: connection?.stats(now: now) ?? PeerConnection.Stats(state: .new, iceState: "new"),
                     video: ReceivedVideoSnapshot(), audio: ReceivedAudioSnapshot())
    }
}

private extension DataChannels.Message {
    var byteCount: Int {
        switch self {
        case .text(let bytes), .binary(let bytes): bytes.count
        }
    }
}
