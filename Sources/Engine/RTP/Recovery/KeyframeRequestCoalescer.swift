import EngineTransport
/// Sender-side handling of keyframe requests (PLI, RFC 4585 §6.3.1; FIR, RFC 5104 §4.3.1):
/// requests become one flag the encoder takes before its next frame, and requests arriving within
/// `window` after a keyframe was produced are ignored — they were sent before that keyframe could
/// reach the peer, and answering each would multiply the bitrate (several PLIs from a burst, or
/// one per receiver in a mesh, become one keyframe). A FIR with a command sequence number already
/// answered is a repeat and is ignored too (RFC 5104 §4.3.1.2).
public struct KeyframeRequestCoalescer: Sendable {
    public var window: Duration
    private var pending = false
    private var lastKeyframe: TransportTime?
    private var answeredFIR: [SSRC: UInt8] = [:]
    /// FIR senders remembered (tests check the bound).
    var firSenderCount: Int { answeredFIR.count }
    public private(set) var requestsReceived = 0
    public private(set) var keyframesForced = 0

    public init(window: Duration = .milliseconds(250)) { self.window = window }

    public mutating func pictureLoss(now: TransportTime) {
        requestsReceived += 1
        if let last = lastKeyframe, now - last < window { return }
        pending = true
    }

    public mutating func fullIntraRequest(from sender: SSRC, sequenceNumber: UInt8, now: TransportTime) {
        if answeredFIR[sender] == sequenceNumber { requestsReceived += 1; return }
        // Bounded by `RTPLimits.maxRemoteSSRCs` senders: the FIR's sender SSRC is whatever the peer writes. A full
        // table is forgotten; the worst case is one repeated FIR answered again, still coalesced by `window`.
        if answeredFIR[sender] == nil, answeredFIR.count >= RTPLimits.maxRemoteSSRCs { answeredFIR.removeAll() }
        answeredFIR[sender] = sequenceNumber
        pictureLoss(now: now)
    }

    /// True once per coalesced request: the encoder must force a keyframe now.
    public mutating func takeRequest(now: TransportTime) -> Bool {
        guard pending else { return false }
        pending = false
        lastKeyframe = now
        keyframesForced += 1
        return true
    }

    /// The encoder produced a keyframe on its own (start, periodic): it answers requests too.
    public mutating func keyframeSent(now: TransportTime) {
        lastKeyframe = now
        pending = false
    }
}
