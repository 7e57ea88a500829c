/// A DATA chunk sent and not yet covered by the peer's cumulative TSN, with what the retransmission rules need.
struct SctpOutstanding {
    var chunk: SctpDataChunk
    var transmissions = 1
    /// Reported in a gap block of the latest SACK.
    var gapAcked = false
    /// Counted in the flight size (sent and neither acknowledged nor marked lost).
    var inFlight = false
    /// Marked for retransmission by T3 or by fast retransmit.
    var retransmit = false
    var fastRetransmitted = false
    var fastRetransmitNow = false
    /// Miss indications (RFC 9260 §7.2.4).
    var misses = 0

    init(chunk: SctpDataChunk) { self.chunk = chunk }

    /// What the chunk counts for in windows: its payload plus the DATA header, as RFC 9260 §6.1 counts it.
    var size: Int { chunk.payload.count + SctpDataChunk.headerSize }
    /// Bytes in a packet, padding included.
    var wireSize: Int { (size + 3) & ~3 }
}

/// RTO from RTT measurements (RFC 9260 §6.3.1): SRTT and RTTVAR with alpha 1/8 and beta 1/4, clamped, doubled on
/// each expiry (§6.3.3).
struct SctpRetransmissionTimer {
    private(set) var rto: Duration
    private var srtt: Duration?
    private var rttvar: Duration = .zero
    let minimum: Duration
    let maximum: Duration

    init(initial: Duration, min: Duration, max: Duration) {
        rto = initial
        minimum = min
        maximum = max
    }

    mutating func measured(_ r: Duration) {
        guard r >= .zero else { return }
        if let s = srtt {
            let diff = s > r ? s - r : r - s
            rttvar = rttvar * 3 / 4 + diff / 4
            srtt = s * 7 / 8 + r / 8
        } else {
            srtt = r
            rttvar = r / 2
        }
        rto = Swift.min(maximum, Swift.max(minimum, srtt! + rttvar * 4))
    }

    mutating func backOff() { rto = Swift.min(maximum, rto * 2) }

    var smoothed: Duration? { srtt }
}

/// The state cookie of our INIT ACK (RFC 9260 §5.1.3): what we need to build the association when the peer
/// echoes it. One association per DTLS connection, so the cookie is checked by comparing it with the few we
/// issued rather than by a MAC; the nonce keeps two of them apart.
struct SctpCookie: Equatable {
    var localTag: UInt32
    var peerTag: UInt32
    var peerInitialTSN: UInt32
    var peerWindow: UInt32
    var peerOutbound: UInt16
    var peerInbound: UInt16
    var nonce: UInt64

    static let size = 28

    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.appendBE(localTag); out.appendBE(peerTag); out.appendBE(peerInitialTSN); out.appendBE(peerWindow)
        out.appendBE(peerOutbound); out.appendBE(peerInbound); out.appendBE(nonce)
        return out
    }

    init(localTag: UInt32, peerTag: UInt32, peerInitialTSN: UInt32, peerWindow: UInt32, peerOutbound: UInt16,
         peerInbound: UInt16, nonce: UInt64) {
        self.localTag = localTag; self.peerTag = peerTag; self.peerInitialTSN = peerInitialTSN
        self.peerWindow = peerWindow; self.peerOutbound = peerOutbound; self.peerInbound = peerInbound; self.nonce = nonce
    }

    init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        guard bytes.count == Self.size, let a = r.u32(), let b = r.u32(), let c = r.u32(), let d = r.u32(),
              let e = r.u16(), let f = r.u16(), let g = r.u64() else { return nil }
        self.init(localTag: a, peerTag: b, peerInitialTSN: c, peerWindow: d, peerOutbound: e, peerInbound: f, nonce: g)
    }
}

/// A token bucket on new DATA bytes.
struct SctpRateLimit {
    let bytesPerSecond: Int
    let burst: Int
    private var tokens: Double
    private var last: TransportTime

    init(bytesPerSecond: Int, burst: Int, now: TransportTime) {
        self.bytesPerSecond = bytesPerSecond
        self.burst = burst
        tokens = Double(burst)
        last = now
    }

    private mutating func refill(_ now: TransportTime) {
        let elapsed = max(0, (now - last).nanoseconds)
        tokens = min(Double(burst), tokens + Double(elapsed) * Double(bytesPerSecond) / 1e9)
        last = now
    }

    mutating func take(_ bytes: Int, now: TransportTime) -> Bool {
        refill(now)
        guard tokens > 0 else { return false }
        tokens -= Double(bytes)
        return true
    }

    func readyAt(_ bytes: Int, now: TransportTime) -> TransportTime {
        guard tokens <= 0 else { return now }
        let wait = (-tokens + 1) / Double(bytesPerSecond)
        return last + .nanoseconds(Int64(wait * 1e9) + 1)
    }
}
