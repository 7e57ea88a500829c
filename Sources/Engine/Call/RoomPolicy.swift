/// The interface between a call driver (`Call`: sockets, `PeerConnection`s, threads, the clock) and a room policy:
/// who connects to whom, when, and what happens when a connection fails. A policy is sans-IO: room and signaling
/// events plus `now` in, actions out, and `nextDeadline` for the driver's timer. `Mesh` (SkyRTC's full mesh) is the
/// first; a second policy (an SFU: one publishing connection and subscriptions instead of one per peer) is meant to sit
/// behind this same interface.
public protocol RoomPolicy {
    /// Feeds one input at `now`; returns what the driver must do, in order.
    mutating func handle(_ input: RoomInput, now: TransportTime) -> [RoomAction]
    /// The earliest time the driver must feed `.timer`, if any.
    var nextDeadline: TransportTime? { get }
}

/// What a driver tells a room policy.
public enum RoomInput: Sendable, Equatable {
    /// A message from the signaling server (joined with these peers, a new peer, a peer removed, offer/answer/candidate).
    case signal(CallSignalIn)
    /// Connection `peer` changed state (its `PeerConnection` emitted `.stateChanged`).
    case connectionState(RemotePeerID, PeerConnectionState)
    /// The connection of `peer` produced a signal for the remote side (local description or candidate).
    case localSignal(CallSignalOut)
    /// `nextDeadline` passed.
    case timer
    /// We leave the room (or the call ends).
    case leave
}

/// What a room policy tells the driver to do.
public enum RoomAction: Sendable, Equatable {
    /// Create a fresh connection for `peer`. `.offerer`: create an offer at once; `nil`: wait for the remote offer.
    case createConnection(RemotePeerID, role: SignalingRole?)
    case closeConnection(RemotePeerID, cause: String)
    case applyRemoteOffer(RemotePeerID, sdp: String)
    case applyRemoteAnswer(RemotePeerID, sdp: String)
    /// A trimmed, non-empty `candidate:...` line; the driver parses it.
    case addRemoteCandidate(RemotePeerID, candidate: String)
    case send(CallSignalOut)
    case log(String)
}

extension CallSignalOut {
    /// The peer this signal goes to.
    public var peer: RemotePeerID {
        switch self {
        case .offer(let to, _), .answer(let to, _), .candidate(let to, _, _, _): to
        }
    }
}
