import EngineTransport
/// Every resource of the call layer (`Call`, `PeerConnection`) that grows with remote input (signaling messages,
/// peers joining and leaving), and its bound, in one place. docs/bounds-and-security.md lists them with the other
/// layers' (`TransportLimits`, `RTPLimits`).
public enum CallLimits {
    /// Remote candidates a `PeerConnection` takes in total (SDP and trickle, before and after the remote description),
    /// and so also the candidates buffered while the description has not arrived yet: the ICE agent keeps no more
    /// (`TransportLimits.maxRemoteCandidates`, after RFC 8445 §6.1.2.5), so buffering more would only be dropped
    /// later. Beyond it candidates are ignored (`PeerConnection.droppedRemoteCandidates`).
    public static let maxRemoteCandidates = TransportLimits.maxRemoteCandidates
    /// Inputs queued for the call's event thread from other threads (`Call.handle`, `Call.signalingLost`, the decoders'
    /// keyframe requests): signaling messages nearly all. The thread drains the queue every
    /// wake-up (at most ~100 ms apart), so a legitimate room never comes near it: a SkyRTC room of N peers sends a
    /// few messages per peer per join. Beyond it new messages are dropped and counted (`Call.droppedSignals`).
    public static let maxQueuedSignals = 10_000
    /// Call events waiting for the screen (`CallEventQueue`). The screen takes them ~30 times a second, and a call
    /// makes a few per peer per connection change or picture-size change: 64 peers flapping together stay far below.
    /// A reader that stops reading loses the oldest (counted in `CallEventQueue.dropped`).
    public static let maxQueuedEvents = 4_096
    /// Peers that left, remembered as their last snapshot (state timeline, counters) for the report: the newest this
    /// many. A closed peer's connection (ICE, DTLS and SRTP contexts), sockets, decoders, jitter buffers and last
    /// picture are released when it closes, so join/leave churn returns to the baseline memory.
    public static let closedPeerSummaries = 16
    /// Open peer connections of one call. A full mesh sends our media once per peer: beyond a few dozen no uplink
    /// carries it, and each connection costs sockets, an ICE agent, a DTLS context and two decoders. A signaling
    /// server (or a peer) announcing more ids than this gets no connection for the extra ones (logged).
    public static let maxPeers = 64
    /// Sections a forwarding server may assign to participants on one connection: as many as a description may
    /// have (`RemoteInputLimits.mediaSections`).
    public static let maxSectionOwners = RemoteInputLimits.mediaSections
    /// State changes remembered per connection (`PeerSnapshot.timeline`). A peer can make its connection flap
    /// (connected ↔ disconnected as consent lapses and returns, RFC 7675) for as long as the call lasts. The first
    /// `timelineHead` changes (how it connected) and the latest ones are kept; those in between are dropped.
    public static let timelineEntries = 64
    public static let timelineHead = 16
    /// TURN allocations one connection may lose and allocate again (a relay that keeps losing them is given up
    /// on; the mesh's retry of the whole connection remains).
    public static let maxRelayReallocations = 5
}

extension Array where Element == StateChange {
    /// Appends a state change to a connection's timeline, keeping the first `CallLimits.timelineHead` and the latest
    /// ones: at most `CallLimits.timelineEntries`.
    mutating func appendBounded(_ change: StateChange) {
        append(change)
        if count > CallLimits.timelineEntries { remove(at: CallLimits.timelineHead) }
    }
}
