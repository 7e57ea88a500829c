import EngineTransport
/// The playout buffer for one Opus stream (RFC 7587: one 20 ms frame per packet, 960 ticks).
///
/// The player pulls exactly once per 20 ms and always gets an instruction for one slot:
/// - `.packet(bytes)`: decode it;
/// - `.recoverFromNext(bytes)`: the slot's packet is missing but the next one is here: rebuild the
///   slot from its in-band FEC (RFC 6716 §2.1.7, `OpusDecoder.recover(from:)`);
/// - `.conceal`: nothing usable, run packet-loss concealment (`OpusDecoder.conceal()`);
/// - `.silence`: the stream has not started yet (nothing to decode or conceal from), or nothing came for longer than
///   `maxConcealedRun` slots.
///
/// Slots are keyed by RTP timestamp, not sequence number, so DTX pauses (no packets, timestamps
/// jump) play as concealment that fades out, then as silence (a muted or silent sender sends nothing for seconds:
/// running the decoder's concealment for every slot of it would cost as much as decoding, for nothing audible), and
/// duplicates or reordered packets fall into their
/// own slot. The delay adapts between `minDelay` and `maxDelay` from the measured interarrival
/// jitter (RFC 3550 A.8 estimator): target = 20 ms + 4·J. Playout lag above the target by more than
/// two frames drops the oldest frame; a missing slot while the lag is below target is concealed
/// without advancing (a stretch), growing the delay.
public struct AudioJitterBuffer: Sendable {
    public enum Pull: Sendable, Equatable {
        case packet([UInt8])
        case recoverFromNext([UInt8])
        case conceal
        case silence
    }

    public struct Configuration: Sendable {
        public var minDelay: Duration = .milliseconds(40)
        public var maxDelay: Duration = .milliseconds(120)
        /// Packets further ahead than this are refused (bounds memory against a bogus timestamp).
        public var maxPackets: Int = 100
        public init() {}
    }

    static let frameTicks: Int64 = 960
    /// Slots concealed in a row before the rest of a gap is silence: 500 ms. Opus's concealment has faded out well
    /// before that (it attenuates what it repeats frame by frame), so the switch is not heard.
    public static let maxConcealedRun = 25
    static let frameDuration: Duration = .milliseconds(20)

    public var configuration: Configuration
    private var unwrapper = TimestampUnwrapper()
    private var firstTimestamp: Int64?
    private var slots: [Int64: [UInt8]] = [:]
    private var nextSlot: Int64?
    private var firstArrival: TransportTime?
    // RFC 3550 A.8 jitter in seconds, from arrival time vs. media time.
    private var lastTransit: Double?
    public private(set) var jitter: Double = 0

    public private(set) var packetsPlayed = 0
    public private(set) var framesRecovered = 0
    public private(set) var framesConcealed = 0
    /// Slots of a gap past `maxConcealedRun`, given as silence.
    public private(set) var framesSilencedInGaps = 0
    private var concealedRun = 0
    public private(set) var duplicates = 0
    public private(set) var latePackets = 0
    public private(set) var framesDroppedForDelay = 0

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// The delay the buffer aims for now.
    public var targetDelay: Duration {
        let j = Duration.nanoseconds(Int64(jitter * 4e9))
        return min(max(Self.frameDuration + j, configuration.minDelay), configuration.maxDelay)
    }

    private var targetFrames: Int64 { Int64((targetDelay / Self.frameDuration).rounded(.up)) }

    /// Frames buffered from the next one to play up to the newest.
    public var bufferedFrames: Int {
        guard let next = nextSlot, let newest = slots.keys.max() else { return slots.count }
        return Int(max(0, newest - next + 1))
    }

    public mutating func insert(_ packet: RTPPacket, now: TransportTime) {
        let ts = unwrapper.unwrap(packet.timestamp)
        let base = firstTimestamp ?? ts
        if firstTimestamp == nil { firstTimestamp = ts; firstArrival = now }
        let offset = ts - base
        let slot = offset >= 0 ? offset / Self.frameTicks : -((-offset + Self.frameTicks - 1) / Self.frameTicks)
        // A timestamp discontinuity (the sender restarted or switched source) would otherwise
        // leave playout concealing towards a slot far ahead, or refusing every packet as late:
        // start over from this packet instead.
        let reference = nextSlot ?? slots.keys.min() ?? slot
        if abs(slot - reference) > Self.resyncFrames || lateRun >= Self.resyncLateRun {
            resync(at: ts, now: now)
            slots[0] = packet.payload
            return
        }
        if let next = nextSlot, slot < next { latePackets += 1; lateRun += 1; return }
        lateRun = 0
        if slots[slot] != nil { duplicates += 1; return }
        // A.8: D = (Rj - Ri) - (Sj - Si), J += (|D| - J)/16, here in seconds.
        let transit = now.seconds - Double(offset) / 48_000
        if let last = lastTransit { jitter += (abs(transit - last) - jitter) / 16 }
        lastTransit = transit
        guard slots.count < configuration.maxPackets else { return }
        slots[slot] = packet.payload
    }

    /// A packet more than this many frames (1 s) away from playout, or this many late packets in
    /// a row, is a discontinuity rather than jitter.
    static let resyncFrames: Int64 = 50
    static let resyncLateRun = 10
    private var lateRun = 0
    public private(set) var resyncs = 0

    private mutating func resync(at timestamp: Int64, now: TransportTime) {
        resyncs += 1
        firstTimestamp = timestamp
        firstArrival = now
        slots.removeAll()
        nextSlot = nil
        lastTransit = nil
        lateRun = 0
    }

    /// One 20 ms slot of playout. Call exactly once per 20 ms of audio played.
    public mutating func pull(now: TransportTime) -> Pull {
        guard var next = nextSlot else {
            // Start once the first packet has waited the target delay (the initial buffering).
            guard let first = firstArrival, now - first >= targetDelay, let lowest = slots.keys.min() else { return .silence }
            nextSlot = lowest
            return pull(now: now)
        }
        if let newest = slots.keys.max(), newest - next + 1 > targetFrames + 2, slots[next] != nil || slots[next + 1] != nil {
            // Too far behind the newest packet: drop the oldest frame to shrink the delay.
            slots.removeValue(forKey: next)
            next += 1
            framesDroppedForDelay += 1
        }
        if let payload = slots.removeValue(forKey: next) {
            nextSlot = next + 1
            packetsPlayed += 1
            concealedRun = 0
            return .packet(payload)
        }
        let lag = (slots.keys.max() ?? next) - next
        if slots[next + 1] == nil, !slots.isEmpty, lag < targetFrames - 1 {
            // Below target and the slot is missing: stretch (conceal without consuming the slot).
            nextSlot = next
            return concealment()
        }
        nextSlot = next + 1
        if let following = slots[next + 1] {
            framesRecovered += 1
            concealedRun = 0
            return .recoverFromNext(following)
        }
        return concealment()
    }

    /// A slot with nothing to play: concealed, or silence once the gap is longer than `maxConcealedRun` slots.
    private mutating func concealment() -> Pull {
        concealedRun += 1
        guard concealedRun <= Self.maxConcealedRun else {
            framesSilencedInGaps += 1
            return .silence
        }
        framesConcealed += 1
        return .conceal
    }
}
