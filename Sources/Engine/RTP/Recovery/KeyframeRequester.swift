import EngineTransport
/// Receiver-side keyframe requests (PLI, RFC 4585 §6.3.1), rate-limited: however many reasons
/// arise (stream start without a keyframe, a decode failure, an unrecoverable gap), at most one
/// PLI leaves per `minInterval`; a reason that is still there after the interval sends another,
/// in case the keyframe itself was lost (pion's interval PLI, agentbbs' 2 s PLI).
public struct KeyframeRequester: Sendable {
    public var minInterval: Duration
    private var pending = false
    private var lastSent: TransportTime?
    public private(set) var sent = 0

    public init(minInterval: Duration = .milliseconds(500)) { self.minInterval = minInterval }

    public mutating func request() { pending = true }

    /// The request was satisfied (a keyframe was decoded).
    public mutating func satisfied() { pending = false }

    /// True when a PLI should be sent now.
    public mutating func poll(now: TransportTime) -> Bool {
        guard pending else { return false }
        if let last = lastSent, now - last < minInterval { return false }
        lastSent = now
        pending = false
        sent += 1
        return true
    }

    public func nextDeadline() -> TransportTime? {
        guard pending else { return nil }
        return lastSent.map { $0 + minInterval }
    }
}
