import EngineTransport
/// The receive buffer for one VP8 stream. It orders packets by extended sequence number, hands
/// out *complete* frames in order, and never feeds the decoder a frame with a hole or a delta
/// frame whose reference was lost — the behaviour WebRTC receivers have with NACK on (a lost
/// packet that never comes back means a freeze until the next keyframe, mediasoup#72).
///
/// Decisions, in order, on every `poll`:
/// 1. While it waits for a keyframe (at start, after a drop, after a decode failure) it looks for
///    the earliest complete keyframe; everything older is discarded. It reports `keyframeNeeded`
///    so the receiver can send PLI (RFC 4585 §6.3.1).
/// 2. Otherwise the next frame must begin right after the last one handed out, or else be the next picture: its VP8
///    picture ID follows the last one handed out (RFC 7741 §4.2), so the numbers between them held no frame (they
///    were padding-only packets, RFC 3550 §5.1, which never enter the buffer, or such packets lost on the way). If it is complete
///    it is handed out. If it is not, the buffer holds it for `holdTime` (measured from the first
///    packet that arrived after the gap), during which NACK retransmissions can fill the hole.
///    When the hold runs out, the NACK generator gives up on a missing packet, or the buffer
///    exceeds `maxPackets`, the frame is unrecoverable: it is dropped and rule 1 applies.
public struct VideoJitterBuffer: Sendable {
    public struct Configuration: Sendable {
        /// How long an incomplete frame may wait for missing packets.
        public var holdTime: Duration = .milliseconds(100)
        /// Upper bound for `holdTime`, and the age after which buffered packets are discarded.
        public var maxHoldTime: Duration = .milliseconds(500)
        /// Upper bound on buffered packets.
        public var maxPackets: Int = 1_000
        public init() {}
    }

    /// A frame ready to decode.
    public struct Frame: Sendable, Equatable {
        public var data: [UInt8]
        public var isKeyframe: Bool
        public var rtpTimestamp: UInt32
        public var pictureId: UInt16?
        public var firstSequence: ExtendedSequenceNumber
        public var lastSequence: ExtendedSequenceNumber
        /// When the first of its packets arrived.
        public var firstArrival: TransportTime
        /// When it became complete and was handed out.
        public var completedAt: TransportTime
        /// Packet-to-frame latency: from the first packet's arrival to hand-out.
        public var latency: Duration { completedAt - firstArrival }
    }

    public enum Event: Sendable, Equatable {
        /// A frame (or run of packets) could not be completed and was dropped.
        case frameDropped(firstSequence: ExtendedSequenceNumber, reason: DropReason)
        /// Decoding cannot continue without a keyframe.
        case keyframeNeeded
    }

    public enum DropReason: Sendable, Equatable {
        case holdExpired, retransmissionGaveUp, overflow, corrupt
    }

    public enum InsertResult: Sendable, Equatable { case inserted, duplicate, late }

    private struct Entry: Sendable {
        var packet: RTPPacket
        var arrival: TransportTime
        var startsFrame: Bool
        var isKeyframeStart: Bool
        /// The frame's VP8 picture ID (on a frame's first packet; nil when the sender sends none), and its wrap
        /// (15 or 7 bits).
        var pictureId: UInt16?
        var pictureIdMask: UInt16 = 0x7FFF
    }

    public var configuration: Configuration
    private var packets: [UInt64: Entry] = [:]
    /// Last sequence number of the last frame handed out (or of the keyframe we resumed at).
    private var lastHandedOut: UInt64?
    /// The picture ID of the last frame handed out and its wrap (nil: unknown, or the sender sends none).
    private var lastPictureId: (id: UInt16, mask: UInt16)?
    public private(set) var waitingForKeyframe = true
    static let restartLateRun = 50
    private var lateRun = 0
    public private(set) var restarts = 0
    private var gaveUp: Set<UInt64> = []

    // Statistics.
    public private(set) var framesOut = 0
    public private(set) var framesDropped = 0
    public private(set) var duplicates = 0
    public private(set) var latePackets = 0
    public private(set) var totalLatency: Duration = .zero
    public private(set) var maxLatency: Duration = .zero

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// The hold applied to incomplete frames; the receiver raises it with the RTT so a NACK has
    /// time to come back (clamped to `maxHoldTime`).
    public var holdTime: Duration {
        get { configuration.holdTime }
        set { configuration.holdTime = min(max(newValue, .zero), configuration.maxHoldTime) }
    }

    public var bufferedPackets: Int { packets.count }

    public var averageLatency: Duration { framesOut == 0 ? .zero : totalLatency / framesOut }

    @discardableResult
    public mutating func insert(_ packet: RTPPacket, sequence: ExtendedSequenceNumber, now: TransportTime) -> InsertResult {
        let seq = sequence.rawValue
        if let last = lastHandedOut, seq <= last {
            latePackets += 1
            lateRun += 1
            // A long run of "late" packets is a sender that restarted its sequence numbers, not
            // reordering: start over and wait for a keyframe of the new numbering.
            guard lateRun >= Self.restartLateRun else { return .late }
            restarts += 1
            packets.removeAll()
            gaveUp.removeAll()
            lastHandedOut = nil
            waitingForKeyframe = true
        }
        lateRun = 0
        guard packets[seq] == nil else { duplicates += 1; return .duplicate }
        let parsed = try? VP8PayloadDescriptor.parse(packet.payload)
        let starts = parsed?.0.startsFrame ?? false
        packets[seq] = Entry(packet: packet, arrival: now, startsFrame: starts,
                             isKeyframeStart: starts && VP8PayloadDescriptor.isKeyframe(payload: packet.payload),
                             pictureId: starts ? parsed?.0.pictureId : nil,
                             pictureIdMask: parsed?.0.pictureIdIs15Bit == false ? 0x7F : 0x7FFF)
        return .inserted
    }

    /// The NACK generator stopped asking for `sequence`: a frame that needs it cannot complete.
    public mutating func retransmissionGaveUp(_ sequence: ExtendedSequenceNumber) {
        if let last = lastHandedOut, sequence.rawValue <= last { return }
        gaveUp.insert(sequence.rawValue)
    }

    /// Forget the decoder state (decode failure): skip to the next keyframe.
    public mutating func requireKeyframe() { waitingForKeyframe = true }

    public mutating func poll(now: TransportTime) -> (frames: [Frame], events: [Event]) {
        var frames: [Frame] = []
        var events: [Event] = []
        var announcedKeyframeNeed = false
        while true {
            if !waitingForKeyframe, let last = lastHandedOut {
                let cursor = nextPictureStart(after: last) ?? last + 1
                switch scan(from: cursor) {
                case .complete(let end):
                    if let f = handOut(from: cursor, to: end, now: now) { frames.append(f); continue }
                    drop(from: cursor, reason: .corrupt, events: &events)
                case .corrupt:
                    drop(from: cursor, reason: .corrupt, events: &events)
                case .incomplete:
                    guard let oldest = packets.values.map(\.arrival).min() else { return (frames, events) }
                    let reason: DropReason?
                    if packets.count > configuration.maxPackets { reason = .overflow }
                    else if gaveUpWithinFrame(at: cursor) { reason = .retransmissionGaveUp }
                    else if now - oldest >= configuration.holdTime { reason = .holdExpired }
                    else { reason = nil }
                    guard let reason else { return (frames, events) }
                    drop(from: cursor, reason: reason, events: &events)
                }
                if !announcedKeyframeNeed { events.append(.keyframeNeeded); announcedKeyframeNeed = true }
                continue
            }
            // Waiting for a keyframe: the earliest complete one wins.
            if let (start, end) = earliestCompleteKeyframe(), let f = handOut(from: start, to: end, now: now) {
                waitingForKeyframe = false
                frames.append(f)
                continue
            }
            purge(now: now)
            if !packets.isEmpty, !announcedKeyframeNeed { events.append(.keyframeNeeded) }
            return (frames, events)
        }
    }

    /// When `poll` should run again even if no packet arrives: the hold deadline of the frame
    /// being waited for, or the purge time of the oldest packet while waiting for a keyframe.
    public func nextDeadline() -> TransportTime? {
        guard let oldest = packets.values.map(\.arrival).min() else { return nil }
        return oldest + (waitingForKeyframe ? configuration.maxHoldTime : configuration.holdTime)
    }

    // MARK: - Internals

    private enum Scan { case complete(end: UInt64), incomplete, corrupt }

    /// Walks from `start` to the packet with the marker bit.
    private func scan(from start: UInt64) -> Scan {
        guard let first = packets[start] else { return .incomplete }
        guard first.startsFrame else { return .corrupt }
        var seq = start
        while let e = packets[seq] {
            if e.packet.timestamp != first.packet.timestamp { return .corrupt }   // the frame's end went missing
            if seq != start && e.startsFrame { return .corrupt }
            if e.packet.marker { return .complete(end: seq) }
            seq += 1
        }
        return .incomplete
    }

    /// The first packet of the picture after the last one handed out when it lies beyond a gap of sequence numbers:
    /// picture IDs are consecutive (15 bits, wrapping), so the gap held no frame. Nil when the next number is there,
    /// or there is no such picture (yet).
    private func nextPictureStart(after last: UInt64) -> UInt64? {
        guard packets[last + 1] == nil, let (id, mask) = lastPictureId else { return nil }
        let wanted = (id &+ 1) & mask
        return packets.lazy.filter { $0.key > last && $0.value.startsFrame && $0.value.pictureId == wanted }.map(\.key).min()
    }

    /// True when a packet the NACK generator gave up on lies in the frame starting at `cursor`
    /// (up to the next buffered frame start); a loss in a later frame is that frame's problem.
    private func gaveUpWithinFrame(at cursor: UInt64) -> Bool {
        guard !gaveUp.isEmpty else { return false }
        let nextStart = packets.lazy.filter { $0.key > cursor && $0.value.startsFrame }.map(\.key).min()
        return gaveUp.contains { seq in seq >= cursor && seq < (nextStart ?? UInt64.max) }
    }

    private func earliestCompleteKeyframe() -> (UInt64, UInt64)? {
        for seq in packets.keys.sorted() where packets[seq]!.isKeyframeStart {
            if case .complete(let end) = scan(from: seq) { return (seq, end) }
        }
        return nil
    }

    private mutating func handOut(from start: UInt64, to end: UInt64, now: TransportTime) -> Frame? {
        let entries = (start...end).compactMap { packets[$0] }
        // Everything before the frame is now useless.
        for key in packets.keys where key <= end { packets.removeValue(forKey: key) }
        gaveUp = gaveUp.filter { $0 > end }
        lastHandedOut = end
        lastPictureId = entries.first.flatMap { e in e.pictureId.map { ($0, e.pictureIdMask) } }
        guard let assembled = try? VP8Depacketizer.assemble(entries.map(\.packet)) else { return nil }
        let first = entries.map(\.arrival).min() ?? now
        let frame = Frame(data: assembled.data, isKeyframe: assembled.isKeyframe, rtpTimestamp: assembled.rtpTimestamp,
                          pictureId: assembled.pictureId, firstSequence: ExtendedSequenceNumber(start),
                          lastSequence: ExtendedSequenceNumber(end), firstArrival: first, completedAt: now)
        framesOut += 1
        totalLatency += frame.latency
        maxLatency = max(maxLatency, frame.latency)
        return frame
    }

    private mutating func drop(from cursor: UInt64, reason: DropReason, events: inout [Event]) {
        framesDropped += 1
        events.append(.frameDropped(firstSequence: ExtendedSequenceNumber(cursor), reason: reason))
        waitingForKeyframe = true
    }

    /// While waiting for a keyframe: discard packets older than the maximum hold, and the oldest
    /// ones beyond the packet bound.
    private mutating func purge(now: TransportTime) {
        // `>=`, as `nextDeadline` promises: at exactly arrival + maxHoldTime the packet goes, or a driver woken at
        // that deadline would be handed the same deadline again and spin.
        for (key, e) in packets where now - e.arrival >= configuration.maxHoldTime { packets.removeValue(forKey: key) }
        if packets.count > configuration.maxPackets {
            for key in packets.keys.sorted().prefix(packets.count - configuration.maxPackets) { packets.removeValue(forKey: key) }
        }
        if let minKey = packets.keys.min() { gaveUp = gaveUp.filter { $0 >= minKey } } else { gaveUp.removeAll() }
    }
}
