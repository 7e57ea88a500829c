import EngineTransport

/// The interface between the call core (`CallCore`: connections, media fan-out, relays) and a room policy: who
/// connects to whom, when, and what happens when a connection fails. A policy is sans-IO: room and signaling events
/// plus `now` in, actions out, and `nextDeadline` for the core's timer. `Mesh` (SkyRTC's full mesh) is one; the
/// tests' scripted policy is another; an SFU's (one publishing connection and subscriptions) is meant to be a third.
/// `Call(options:policy:)` takes any of them.
public protocol RoomPolicy: Sendable {
    /// Feeds one input at `now`; returns what the core must do, in order.
    mutating func handle(_ input: RoomInput, now: TransportTime) -> [RoomAction]
    /// The earliest time the core must feed `.timer`, if any.
    var nextDeadline: TransportTime? { get }
    /// Our own id in the room while joined (nil before the first join and after signaling is lost).
    var you: RemotePeerID? { get }
}

/// A signaling message as the policy sees it: checked and parsed by the core (ids within bounds, SDP and candidates
/// parsed), so the policy decides on values and its actions carry them back.
public enum RoomSignal: Sendable, Equatable {
    /// `_peers`: our own id and the ids already in the room.
    case joined(you: RemotePeerID, others: [RemotePeerID])
    /// Back in the room with the same id after the signaling connection was lost (`CallSignalIn.resumed`).
    case resumed(you: RemotePeerID, others: [RemotePeerID])
    /// `_new_peer`.
    case newPeer(RemotePeerID)
    case removePeer(RemotePeerID)
    case offer(from: RemotePeerID, SessionDescription)
    case answer(from: RemotePeerID, SessionDescription)
    /// A trickled candidate (end-of-candidates never reaches the policy: the connection needs nothing for it).
    case candidate(from: RemotePeerID, IceCandidate)
    /// Whose media each section of a forwarding server's connection carries (`CallSignalIn.sections`).
    case sections(of: RemotePeerID, owners: [String: RemotePeerID])
}

/// What the core tells a room policy.
public enum RoomInput: Sendable, Equatable {
    case signal(RoomSignal)
    /// Connection `peer` changed state (its `PeerConnection` emitted `.stateChanged`).
    case connectionState(RemotePeerID, PeerConnectionState)
    /// The connection of `peer` produced a signal for the remote side (local description or candidate).
    case localSignal(CallSignalOut)
    /// `nextDeadline` passed.
    case timer
    /// The signaling connection is gone: our place in the room with it (a rejoin gets a new id).
    case signalingLost
    /// We leave the room (or the call ends).
    case leave
}

/// What a room policy tells the core to do.
public enum RoomAction: Sendable, Equatable {
    /// Create a fresh connection for `peer`. `.offerer`: create an offer at once; `nil`: wait for the remote offer.
    /// `media`: what it carries of ours and theirs (a mesh connection both; an SFU's publishing one only ours).
    /// `participants`: who the connection's media belongs to: `peer` itself (a mesh), or, for a forwarding server's
    /// connections, the participants `assignSections` names per section (none until it does).
    case createConnection(RemotePeerID, role: SignalingRole?, media: ConnectionMedia = .sendReceive,
                          participants: ConnectionParticipants = .own)
    /// Which participant each section (by mid) of a `.bySection` connection carries; sections not named are not
    /// decoded. Replaces the previous map: participants no longer named close, new ones open.
    case assignSections(RemotePeerID, owners: [String: RemotePeerID])
    /// Renegotiation: a new section on the connection, or one stopped; `createOffer` then offers the change.
    case addTransceiver(RemotePeerID, MediaKind, MediaDirection)
    case stopTransceiver(RemotePeerID, mid: String)
    case createOffer(RemotePeerID)
    /// ICE restart on the connection to `peer` (RFC 8445 §9): a re-offer with new credentials, the call kept.
    case restartIce(RemotePeerID)
    /// Open a data channel to `peer` (ordered, reliable) once its SCTP association is up.
    case openDataChannel(RemotePeerID, label: String)
    case closeConnection(RemotePeerID, cause: String)
    case applyRemoteOffer(RemotePeerID, SessionDescription)
    case applyRemoteAnswer(RemotePeerID, SessionDescription)
    case addRemoteCandidate(RemotePeerID, IceCandidate)
    case send(CallSignalOut)
    case log(String)
}

/// Whose media a connection carries: the peer at its other end (a mesh), or many participants, one per section, as
/// a forwarding server's subscription does (and none: its publishing connection only sends).
public enum ConnectionParticipants: Sendable, Equatable {
    case own, bySection
}

/// What a connection carries: our media, the peer's, or both.
public enum ConnectionMedia: String, Sendable, Equatable {
    case sendReceive, sendOnly, receiveOnly

    var sends: Bool { self != .receiveOnly }
    var receives: Bool { self != .sendOnly }
}

extension CallSignalOut {
    /// The peer this signal goes to.
    public var peer: RemotePeerID {
        switch self {
        case .offer(let to, _), .answer(let to, _), .candidate(let to, _, _, _): to
        }
    }
}
