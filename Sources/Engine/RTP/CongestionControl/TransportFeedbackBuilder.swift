import EngineTransport
/// The receiving side of transport-wide congestion control: remembers when each packet carrying a transport-wide
/// sequence number arrived and, when polled (every 50 ms by the peer connection), reports every number since the
/// last report (docs/congestion-control.md). Sans-IO: arrival times are the caller's `now`.
///
/// Bounds: a peer controls the sequence numbers, so at most `maxWindow` numbers are ever pending; a jump further
/// ahead gives up the oldest ones (they are never reported, which the sender takes as lost feedback, not as loss).
public struct TransportFeedbackBuilder: Sendable {
    /// Statuses per RTCP message: 350 statuses take at most 16 + 2·50 + 2·350 bytes, which with the headers of
    /// SRTCP stays under a 1200-byte datagram (the MTU conftui assumes everywhere).
    public static let maxStatusesPerMessage = 350
    /// Sequence numbers waiting for a report: about 4 s of video at 1000 packets a second.
    public static let maxWindow: UInt64 = 4096

    public let senderSSRC: SSRC
    private var unwrapper = SequenceUnwrapper()
    private var arrivals: [UInt64: TransportTime] = [:]
    /// The first number the next report starts at.
    private var nextToReport: UInt64?
    private var highest: UInt64 = 0
    private var mediaSSRC = SSRC(0)
    private var feedbackCount: UInt8 = 0
    /// Reports sent (for statistics and tests).
    public private(set) var messagesSent = 0

    public init(senderSSRC: SSRC) { self.senderSSRC = senderSSRC }

    /// Records one packet's arrival. Packets older than the last report are dropped: they were reported as not
    /// received, and a sender learns of their late arrival from nothing else (libwebrtc behaves the same way).
    public mutating func record(sequence: UInt16, mediaSSRC ssrc: SSRC, arrival: TransportTime) {
        let n = unwrapper.unwrap(SequenceNumber(sequence)).rawValue
        mediaSSRC = ssrc
        if let start = nextToReport, n < start { return }
        if nextToReport == nil { nextToReport = n }
        arrivals[n] = arrival
        highest = max(highest, n)
        if let start = nextToReport, highest - start >= Self.maxWindow {
            let keepFrom = highest - Self.maxWindow + 1
            arrivals = arrivals.filter { $0.key >= keepFrom }
            nextToReport = keepFrom
        }
    }

    /// The reports for everything recorded since the last call (none if nothing arrived).
    public mutating func poll() -> [TransportFeedback] {
        guard let start = nextToReport, !arrivals.isEmpty, highest >= start else { return [] }
        var out: [TransportFeedback] = []
        var from = start
        while from <= highest {
            let (message, next) = message(from: from)
            if let message { out.append(message) }
            from = next
        }
        nextToReport = highest + 1
        arrivals.removeAll(keepingCapacity: true)
        messagesSent += out.count
        return out
    }

    /// One message from `from` on: up to `maxStatusesPerMessage` statuses, ended early before a delta that does not
    /// fit 16 bits of 250 µs ticks (±8 s). Returns the message (nil if the range held no received packet) and the
    /// number the next one starts at.
    private mutating func message(from: UInt64) -> (TransportFeedback?, UInt64) {
        let end = min(highest, from + UInt64(Self.maxStatusesPerMessage) - 1)
        // Skip a leading stretch with nothing received: its numbers are lost, and a report must carry at least one
        // arrival to have a reference time. They still appear as "not received" when a later arrival follows.
        guard let firstReceived = (from...end).first(where: { arrivals[$0] != nil }), let firstArrival = arrivals[firstReceived]
        else { return (nil, end + 1) }
        let unit = TransportFeedback.referenceTimeUnit.nanoseconds
        let tick = TransportFeedback.tick.nanoseconds
        // The reference time is the first arrival rounded down to 64 ms; its deltas count from there.
        let referenceUnits = firstArrival.nanoseconds.floorDiv(unit)
        var last = referenceUnits * unit
        var statuses: [TransportFeedback.PacketStatus] = []
        var n = from
        while n <= end {
            guard let arrival = arrivals[n] else { statuses.append(.notReceived); n += 1; continue }
            // Deltas are taken from the rounded previous time, so rounding errors do not add up along a report.
            let ticks = (arrival.nanoseconds - last + tick / 2).floorDiv(tick)
            guard let delta = Int16(exactly: ticks) else { break }
            statuses.append(.received(deltaTicks: delta))
            last += Int64(delta) * tick
            n += 1
        }
        // Trailing "not received" statuses would only be repeated by the next report: end at the last arrival.
        while case .notReceived? = statuses.last { statuses.removeLast() }
        let consumed = UInt64(statuses.count)
        let feedback = TransportFeedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                                         baseSequence: UInt16(truncatingIfNeeded: from),
                                         referenceTime: UInt32(truncatingIfNeeded: referenceUnits), feedbackCount: feedbackCount,
                                         statuses: statuses)
        feedbackCount &+= 1
        return (feedback, from + consumed)
    }
}

private extension Int64 {
    /// Division rounding towards minus infinity (a negative delta of 1.5 ticks is -2, not -1).
    func floorDiv(_ d: Int64) -> Int64 { let q = self / d; return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q }
}
