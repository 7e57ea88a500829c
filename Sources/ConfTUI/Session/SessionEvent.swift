import Engine

/// What a room session tells the screen and the bot about the room, in the room's own terms whatever protocol
/// carries it: SkyRTC's (`SkyRTCSession`) or another driver's speak the same events. The call's own state
/// (connections, frames, levels) comes from its snapshots instead.
///
/// Members are named by the call's `RemotePeerID` rather than the room model's `ParticipantID`: the session sits
/// between the signaling and the `Call`, which keys its events, snapshots and frames by `RemotePeerID`, so the
/// bot (which has no room model) needs nothing else, and `CallRoomEvents` turns both streams into `ParticipantID`s
/// in one place.
enum SessionEvent: Sendable, Equatable {
    /// We are in the room, the first time or again after a reconnect (with a new `you`): who is there already, the
    /// names of those that gave one, the media of those that announced it.
    case joined(you: RemotePeerID, peers: [RemotePeerID], names: [RemotePeerID: String] = [:],
                media: [RemotePeerID: RemoteMediaState] = [:])
    /// A member's microphone and camera as it announced them.
    case peerMedia(RemotePeerID, RemoteMediaState)
    case peerJoined(RemotePeerID, name: String?)
    case peerLeft(RemotePeerID)
    /// The signaling connection dropped; the next attempt is `retryIn` seconds away (nil: no reconnecting).
    case signalingLost(reason: String, retryIn: Double?)
    /// The signaling connection dropped but our place in the room is kept while we reconnect (a resume): the calls
    /// go on, only new signals wait. The next attempt is `retryIn` seconds away (0: at once).
    case signalingInterrupted(reason: String, retryIn: Double)
    /// Back in the room as the same member after `signalingInterrupted`; who left or came meanwhile follows as
    /// `peerLeft`/`peerJoined`.
    case signalingResumed
    /// What the server refused or reported, as text for the status bar.
    case serverError(String)
}

/// A remote member's own word on its microphone and camera. Either may be nil: a protocol may announce only one of
/// them (or announce them apart), and what was not said is left as the screen last knew it, never guessed.
struct RemoteMediaState: Sendable, Equatable {
    var audioMuted: Bool?
    var videoOn: Bool?
}
