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
    /// A chat message from a participant (wall-clock seconds). One from an id not in the room is kept under its short
    /// id: it may come from someone whose join was not announced yet or who has just left, and dropping it silently
    /// would hide what was said.
    case chatReceived(ParticipantID, text: String, at: Double)
    /// A line from the app itself in the chat (a file offered, chat not available): shown dim, never counted unread.
    case chatNotice(String, at: Double)
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
    /// You sent a chat message (it is shown at once, under your name).
    case sentChat(text: String, at: Double)
    /// The chat pane was shown or hidden: unread messages are counted while it is hidden.
    case setChatVisible(Bool)
}

/// The result of applying one event.
public enum RoomChange: Sendable, Equatable {
    case changed
    /// Nothing changed; the reason says why (an unknown id, a duplicate join, ...).
    case ignored(String)
}
