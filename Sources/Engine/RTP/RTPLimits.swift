/// Every resource of the RTP layer that grows with what a remote peer sends, and its bound, in one place.
/// docs/bounds-and-security.md lists them with the other layers'. Each is enforced where the resource lives (named
/// below); beyond a bound the input is dropped or the oldest state evicted, never an unbounded allocation.
public enum RTPLimits {
    /// Sequence numbers a receive stream asks for (NACK) at once, in total over all gaps (`NackGenerator`).
    /// The sender can only answer from its history (`SendHistory`, 512 packets by default): a number more than that
    /// far behind the newest is gone, so asking for more is pointless. Beyond it the oldest missing number is given
    /// up (the jitter buffer learns it and asks for a keyframe if a frame needed it). A single jump larger than this
    /// is not NACKed at all: a keyframe is asked for instead (a generic NACK, RFC 4585 §6.2.1, names lost packets;
    /// which of them a receiver asks for is its own choice).
    public static let maxMissingPackets = 500

    /// Retransmissions we send in answer to NACKs (RFC 4585 §6.2.1) are budgeted per interval, whatever RTT the peer's
    /// reports imply and however often it asks: a peer that NACKs everything with a tiny RTT gets at most the budget.
    public static let retransmissionInterval: Duration = .milliseconds(100)
    /// Bytes per `retransmissionInterval` always allowed: ten full 1200-byte packets (about 1 Mbit/s), enough to
    /// repair the loss of a whole keyframe burst at the start of a call.
    public static let retransmissionFloorBytes = 12_000
    /// On top of the floor, retransmissions may use this share of the media bytes sent over the last second (spread
    /// per interval): at most half again the media rate, so a NACK storm cannot multiply our upload.
    public static let retransmissionShareOfSendRate = 0.5
    /// With a send-side estimate, retransmissions also stay under this share of it (per interval, at least one full
    /// packet): the budget above follows what was sent over the last second, which after a capacity drop is the old,
    /// wider rate, and resending half of a collapsed 2 Mbit/s stream into a 600 kbit/s link keeps the queue full
    /// for seconds after the estimate came down (measured on the bench: 2 Mbit/s still sent 1 s after the drop).
    public static let retransmissionShareOfEstimate = 0.5
    /// One packet is resent at most once per this, even when the peer's reports claim an RTT near zero.
    public static let minRetransmissionSpacing: Duration = .milliseconds(10)

    /// Remote SSRCs one section routes (`RTPStreamRouter`): its media stream, the extra SSRCs a peer announces for it
    /// (e.g. an RTX, RFC 4588, or FEC stream it offered, though never negotiated), and a restart or two.
    public static let maxRemoteSSRCsPerSection = 4
    /// Remote SSRCs one peer connection routes in all: an SFU subscription of 32 participants' audio and video (64
    /// streams) with room to spare. Packets from further SSRCs are dropped before they reach any per-SSRC state.
    public static let maxRemoteSSRCs = 80
}
