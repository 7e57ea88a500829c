import EngineTransport
/// Transport-wide congestion control feedback (transport-wide-cc-extensions-01 §3.1; docs/congestion-control.md):
/// RTCP transport-layer feedback PT 205, FMT 15. The receiver tells the sender, for a range of transport-wide
/// sequence numbers, which packets arrived and when, to 250 µs:
///
///     | sender SSRC | media SSRC |
///     |      base sequence number     |      packet status count      |
///     |          reference time (24 bits, ×64 ms)     |  fb pkt count |
///     | packet chunks (16 bits each) ... | receive deltas (8 or 16 bits each) ... | padding |
///
/// A status is "not received", "received, small delta" (one unsigned byte) or "received, large or negative delta"
/// (two signed bytes). The first received packet's delta is from the reference time, every other one from the
/// previous received packet.
public struct TransportFeedback: Equatable, Sendable {
    public enum PacketStatus: Equatable, Sendable {
        case notReceived
        /// Arrival relative to the previous received packet (or to the reference time), in 250 µs ticks.
        case received(deltaTicks: Int16)

        /// The two-bit status symbol (§3.1.1): 0 not received, 1 small delta, 2 large or negative delta.
        var symbol: UInt8 {
            switch self {
            case .notReceived: return 0
            case .received(let d): return (0...255).contains(d) ? 1 : 2
            }
        }
    }

    static let format: UInt8 = 15
    /// §3.1.5: "The delta is represented as multiples of 250us".
    public static let tick: Duration = .microseconds(250)
    /// §3.1: "reference time ... in multiples of 64ms".
    public static let referenceTimeUnit: Duration = .milliseconds(64)
    /// The reference time field is 24 bits wide; senders unwrap it modulo this.
    public static let referenceTimeModulus: UInt32 = 1 << 24

    public var senderSSRC: SSRC
    public var mediaSSRC: SSRC
    public var baseSequence: UInt16
    /// The 24-bit reference time as sent (0 ..< 2^24, in 64 ms units; it wraps).
    public var referenceTime: UInt32
    /// Counts feedback packets (wraps at 256), so the sender can tell a lost feedback from a late one.
    public var feedbackCount: UInt8
    /// One status per sequence number from `baseSequence` on (wrapping).
    public var statuses: [PacketStatus]

    public init(senderSSRC: SSRC, mediaSSRC: SSRC, baseSequence: UInt16, referenceTime: UInt32, feedbackCount: UInt8,
                statuses: [PacketStatus]) {
        self.senderSSRC = senderSSRC; self.mediaSSRC = mediaSSRC; self.baseSequence = baseSequence
        self.referenceTime = referenceTime & (Self.referenceTimeModulus - 1); self.feedbackCount = feedbackCount
        self.statuses = statuses
    }

    // MARK: parsing

    static func parse(body r: inout ByteReader) throws(EngineError) -> TransportFeedback {
        func bad(_ s: String) -> EngineError { .malformed(what: "RTCP transport feedback", reason: s) }
        guard let sender = r.u32(), let media = r.u32(), let base = r.u16(), let count = r.u16(),
              let refHigh = r.u16(), let refLow = r.u8(), let fbCount = r.u8() else { throw bad("truncated header") }
        // An empty report tells nothing; libwebrtc does not send one either.
        guard count > 0 else { throw bad("packet status count 0") }
        let total = Int(count)
        // Symbols first (chunks), then one delta per received symbol. `total` is at most 65535, so the arrays are
        // bounded whatever the chunks claim; a chunk's run never adds more than the statuses still missing.
        var symbols: [UInt8] = []
        symbols.reserveCapacity(min(total, r.remaining * 14))
        while symbols.count < total {
            guard let chunk = r.u16() else { throw bad("\(symbols.count) of \(total) statuses before the chunks end") }
            let missing = total - symbols.count
            if chunk & 0x8000 == 0 {
                // §3.1.3 run length chunk: T=0, S (2 bits), run length (13 bits).
                let symbol = UInt8((chunk >> 13) & 0x3), run = Int(chunk & 0x1FFF)
                guard symbol != 3 else { throw bad("reserved status symbol 3 in a run") }
                guard run > 0 else { throw bad("run length 0") }
                symbols.append(contentsOf: repeatElement(symbol, count: min(run, missing)))
            } else if chunk & 0x4000 == 0 {
                // §3.1.4 status vector, S=0: fourteen one-bit symbols (received small / not received).
                for i in 0..<min(14, missing) { symbols.append(UInt8((chunk >> (13 - i)) & 0x1)) }
            } else {
                // §3.1.4 status vector, S=1: seven two-bit symbols.
                for i in 0..<min(7, missing) {
                    let s = UInt8((chunk >> (12 - 2 * i)) & 0x3)
                    guard s != 3 else { throw bad("reserved status symbol 3 in a vector") }
                    symbols.append(s)
                }
            }
        }
        var statuses: [PacketStatus] = []
        statuses.reserveCapacity(total)
        for s in symbols {
            switch s {
            case 0: statuses.append(.notReceived)
            case 1:
                guard let d = r.u8() else { throw bad("a small delta is missing") }
                statuses.append(.received(deltaTicks: Int16(d)))
            default:
                guard let d = r.u16() else { throw bad("a large delta is missing") }
                statuses.append(.received(deltaTicks: Int16(bitPattern: d)))
            }
        }
        return TransportFeedback(senderSSRC: SSRC(sender), mediaSSRC: SSRC(media), baseSequence: base,
                                 referenceTime: UInt32(refHigh) << 8 | UInt32(refLow), feedbackCount: fbCount,
                                 statuses: statuses)
    }

    // MARK: writing

    /// The packet chunks for `statuses`: a run length chunk for a run of 14 or more equal symbols (or a run that
    /// ends the report), otherwise a one-bit vector when the next fourteen need no large delta, else a two-bit one.
    static func chunks(for symbols: [UInt8]) -> [UInt16] {
        var out: [UInt16] = []
        var i = 0
        while i < symbols.count {
            var run = 1
            while i + run < symbols.count, symbols[i + run] == symbols[i], run < 0x1FFF { run += 1 }
            if run >= 14 || i + run == symbols.count {
                out.append(UInt16(symbols[i]) << 13 | UInt16(run))
                i += run
                continue
            }
            let window14 = symbols[i..<min(i + 14, symbols.count)]
            if !window14.contains(2) {
                var chunk: UInt16 = 0x8000
                for (k, s) in window14.enumerated() { chunk |= UInt16(s) << (13 - k) }
                out.append(chunk)
                i += window14.count
            } else {
                var chunk: UInt16 = 0xC000
                let window7 = symbols[i..<min(i + 7, symbols.count)]
                for (k, s) in window7.enumerated() { chunk |= UInt16(s) << (12 - 2 * k) }
                out.append(chunk)
                i += window7.count
            }
        }
        return out
    }

    /// Bytes on the wire for this report, header and padding included.
    public var wireSize: Int {
        let symbols = statuses.map(\.symbol)
        let body = 16 + 2 * Self.chunks(for: symbols).count + symbols.reduce(0) { $0 + Int($1) }
        return RTCPHeader.size + (body + 3) / 4 * 4
    }

    func write(_ w: inout WireWriter) {
        let symbols = statuses.map(\.symbol)
        let chunks = Self.chunks(for: symbols)
        let unpadded = 16 + 2 * chunks.count + symbols.reduce(0) { $0 + Int($1) }
        let padding = (4 - unpadded % 4) % 4
        let start = w.count
        RTCPHeader.write(&w, countOrFormat: Self.format, packetType: RTCPPacketType.transportFeedback,
                         bodySize: unpadded + padding)
        w.u32(senderSSRC.rawValue); w.u32(mediaSSRC.rawValue)
        w.u16(baseSequence)
        w.u16(UInt16(truncatingIfNeeded: statuses.count))
        w.u24(referenceTime)
        w.u8(feedbackCount)
        for c in chunks { w.u16(c) }
        for s in statuses {
            guard case .received(let d) = s else { continue }
            if s.symbol == 1 { w.u8(UInt8(d)) } else { w.u16(UInt16(bitPattern: d)) }
        }
        if padding > 0 {
            // RFC 3550 §6.4.1 padding, as libwebrtc writes it: the P bit, zeros, and the count in the last byte.
            w.zeros(padding - 1)
            w.u8(UInt8(padding))
            w.set(w.bytes[start] | 0x20, at: start)
        }
    }
}
