/// Everything that can happen to a room, as the call and the keyboard report it.
/// Times are seconds on the caller's clock: the model never reads a clock itself.
public enum RoomEvent: Sendable, Equatable {
    /// `_peers`: we are in the room as `you`; `peers` were there before us, in join order.
    case joined(you: ParticipantID, peers: [ParticipantID])
    /// `_new_peer`: someone joined after us.
    case peerJoined(ParticipantID)
    /// `_remove_peer`: someone left (or their socket dropped).
    case peerLeft(ParticipantID)
    case connectionChanged(ParticipantID, ConnectionState)
    case statsUpdated(ParticipantID, MediaStats)
    /// The participant's video started (first picture) or changed size.
    case frameArrived(ParticipantID, at: Double, width: Int, height: Int)
    /// The participant's further video streams (shared screens) are now these, by id in the call's order: each gets
    /// a tile after the participant's main one; an empty list removes them all.
    case streamsChanged(ParticipantID, extra: [String])
    /// A further stream's picture started (first picture) or changed size.
    case streamFrameArrived(ParticipantID, stream: String, at: Double, width: Int, height: Int)
    case audioLevel(ParticipantID, level: Double, at: Double)
    case nameChanged(ParticipantID, String)
    /// A remote announced its mute / video state.
    case remoteMediaChanged(ParticipantID, audioMuted: Bool?, videoOn: Bool?)
    case local(LocalAction)
    /// We left the room: every remote is gone.
    case left
}

/// What the local media now does, as the media layer reports it after applying it (a key only asks; the room shows
/// what the others get).
public enum LocalAction: Sendable, Equatable {
    case setMuted(Bool)
    case setVideoOn(Bool)
    case setSource(String)
}

/// The result of applying one event.
public enum RoomChange: Sendable, Equatable {
    case changed
    /// Nothing changed; the reason says why (an unknown id, a duplicate join, ...).
    case ignored(String)
}
