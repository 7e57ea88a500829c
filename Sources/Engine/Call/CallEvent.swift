/// What happened in a call, one event per change, in the order it happened: what a screen needs to show the call as
/// it is, without comparing snapshots (a connection that goes connected → disconnected → connected between two
/// looks would otherwise never be seen). Snapshots remain for reports and statistics.
public enum CallEvent: Sendable, Equatable {
    /// A peer connection changed state (`cause` as the connection gave it: "ICE checks succeeded", "consent expired").
    case peerState(RemotePeerID, PeerConnectionState, cause: String)
    /// A peer's video: its first decoded picture, and afterwards every change of picture size.
    case videoSize(RemotePeerID, width: Int, height: Int)
    /// The video sections a peer sends us, by mid in m= order, whenever they change (renegotiation): the first is
    /// its main video (`videoSize`), each further one (a shared screen) a picture of its own.
    case videoStreams(RemotePeerID, mids: [String])
    /// A further video section's first decoded picture, and afterwards every change of its size.
    case streamVideoSize(RemotePeerID, mid: String, width: Int, height: Int)
    /// What we send changed (mute, video on/off, the source), as the media pipeline now does it: the one truth about
    /// the local media, so the screen shows what the others get rather than what a key asked for.
    case localMedia(LocalMediaState)
}

/// The local media as the pipeline applies it.
public struct LocalMediaState: Sendable, Equatable {
    public var audioMuted: Bool
    public var videoOn: Bool
    /// The video source's name (`card`, `bars`, a camera device, a file).
    public var source: String

    public init(audioMuted: Bool, videoOn: Bool, source: String) {
        self.audioMuted = audioMuted
        self.videoOn = videoOn
        self.source = source
    }
}
