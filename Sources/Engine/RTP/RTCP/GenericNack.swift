import EngineTransport
/// Generic NACK (RFC 4585 §6.2.1): transport-layer feedback PT 205, FMT 1. Each FCI entry names
/// a lost packet (PID) and, in the bitmask BLP, which of the 16 following packets are lost too.
public struct GenericNack: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var packetId: UInt16
        public var lostBitmask: UInt16
        public init(packetId: UInt16, lostBitmask: UInt16) { self.packetId = packetId; self.lostBitmask = lostBitmask }
    }

    static let format: UInt8 = 1

    public var senderSSRC: SSRC
    public var mediaSSRC: SSRC
    public var entries: [Entry]

    public init(senderSSRC: SSRC, mediaSSRC: SSRC, entries: [Entry]) {
        self.senderSSRC = senderSSRC; self.mediaSSRC = mediaSSRC; self.entries = entries
    }

    /// Packs sequence numbers into as few entries as possible (RFC 4585 §6.2.1: "bit i of the BLP
    /// is set to 1 if the packet with sequence number (PID + i + 1) is lost").
    public init(senderSSRC: SSRC, mediaSSRC: SSRC, lost: [SequenceNumber]) {
        var entries: [Entry] = []
        // Sort in wrap-aware order relative to the first number.
        guard let first = lost.first else { self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, entries: []); return }
        let ordered = Set(lost.map(\.rawValue)).sorted { ($0 &- first.rawValue) < ($1 &- first.rawValue) }
        var current: Entry?
        for seq in ordered {
            if var e = current {
                let d = seq &- e.packetId
                if d >= 1 && d <= 16 {
                    e.lostBitmask |= 1 << (d - 1)
                    current = e
                    continue
                }
                entries.append(e)
            }
            current = Entry(packetId: seq, lostBitmask: 0)
        }
        if let e = current { entries.append(e) }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, entries: entries)
    }

    /// Every sequence number this NACK asks for.
    public var lostSequenceNumbers: [SequenceNumber] {
        var out: [SequenceNumber] = []
        for e in entries {
            out.append(SequenceNumber(e.packetId))
            for bit in 0..<16 where e.lostBitmask & (1 << bit) != 0 {
                out.append(SequenceNumber(e.packetId &+ UInt16(bit + 1)))
            }
        }
        return out
    }

    static func parse(body r: inout ByteReader) throws(EngineError) -> GenericNack {
        guard let sender = r.u32(), let media = r.u32() else { throw .malformed(what: "RTCP NACK", reason: "truncated") }
        var entries: [Entry] = []
        while r.remaining >= 4, let pid = r.u16(), let blp = r.u16() { entries.append(Entry(packetId: pid, lostBitmask: blp)) }
        guard !entries.isEmpty else { throw .malformed(what: "RTCP NACK", reason: "no FCI entry") }
        return GenericNack(senderSSRC: SSRC(sender), mediaSSRC: SSRC(media), entries: entries)
    }

    func write(_ w: inout WireWriter) {
        RTCPHeader.write(&w, countOrFormat: Self.format, packetType: RTCPPacketType.transportFeedback,
                         bodySize: 8 + 4 * entries.count)
        w.u32(senderSSRC.rawValue); w.u32(mediaSSRC.rawValue)
        for e in entries { w.u16(e.packetId); w.u16(e.lostBitmask) }
    }
}
