import EngineTransport
/// The VP8 payload descriptor at the start of every VP8 RTP payload (RFC 7741 §4.2):
///
///     |X|R|N|S|R| PID |   required
///     |I|L|T|K| RSV   |   if X
///     |M| PictureID   |   if I (M = 15-bit PictureID, second byte follows)
///     |   TL0PICIDX   |   if L
///     |TID|Y| KEYIDX  |   if T or K
public struct VP8PayloadDescriptor: Equatable, Sendable {
    /// N: the frame is not used as a reference.
    public var nonReference: Bool
    /// S: this packet starts a VP8 partition.
    public var startOfPartition: Bool
    /// PID: the partition index (0...7).
    public var partitionIndex: UInt8
    /// 7- or 15-bit picture id, nil when the I bit is clear.
    public var pictureId: UInt16?
    /// Whether the picture id is written in the 15-bit form (M bit).
    public var pictureIdIs15Bit: Bool
    public var tl0PictureIndex: UInt8?
    public var temporalLayerIndex: UInt8?
    public var layerSync: Bool
    public var keyIndex: UInt8?

    public init(nonReference: Bool = false, startOfPartition: Bool, partitionIndex: UInt8 = 0, pictureId: UInt16? = nil,
                pictureIdIs15Bit: Bool = true, tl0PictureIndex: UInt8? = nil, temporalLayerIndex: UInt8? = nil,
                layerSync: Bool = false, keyIndex: UInt8? = nil) {
        self.nonReference = nonReference; self.startOfPartition = startOfPartition; self.partitionIndex = partitionIndex
        self.pictureId = pictureId; self.pictureIdIs15Bit = pictureIdIs15Bit; self.tl0PictureIndex = tl0PictureIndex
        self.temporalLayerIndex = temporalLayerIndex; self.layerSync = layerSync; self.keyIndex = keyIndex
    }

    /// True for the first packet of a frame: S = 1 and PID = 0 (RFC 7741 §4.2).
    public var startsFrame: Bool { startOfPartition && partitionIndex == 0 }

    /// Parses the descriptor; returns it and its size. The payload that follows must not be empty
    /// (RFC 7741 §4.2 puts at least one byte of VP8 data in every packet).
    public static func parse(_ payload: [UInt8]) throws(EngineError) -> (VP8PayloadDescriptor, size: Int) {
        func bad(_ s: String) -> EngineError { .malformed(what: "VP8 payload descriptor", reason: s) }
        var r = ByteReader(payload)
        guard let b0 = r.u8() else { throw bad("empty payload") }
        var d = VP8PayloadDescriptor(nonReference: b0 & 0x20 != 0, startOfPartition: b0 & 0x10 != 0,
                                     partitionIndex: b0 & 0x07)
        if b0 & 0x80 != 0 {
            guard let x = r.u8() else { throw bad("X set but no extension byte") }
            if x & 0x80 != 0 {
                guard let p0 = r.u8() else { throw bad("I set but no PictureID") }
                if p0 & 0x80 != 0 {
                    guard let p1 = r.u8() else { throw bad("truncated 15-bit PictureID") }
                    d.pictureId = UInt16(p0 & 0x7F) << 8 | UInt16(p1)
                    d.pictureIdIs15Bit = true
                } else {
                    d.pictureId = UInt16(p0)
                    d.pictureIdIs15Bit = false
                }
            }
            if x & 0x40 != 0 {
                guard let t = r.u8() else { throw bad("L set but no TL0PICIDX") }
                d.tl0PictureIndex = t
            }
            if x & 0x30 != 0 {
                guard let tk = r.u8() else { throw bad("T/K set but no TID/KEYIDX byte") }
                if x & 0x20 != 0 { d.temporalLayerIndex = tk >> 6; d.layerSync = tk & 0x20 != 0 }
                if x & 0x10 != 0 { d.keyIndex = tk & 0x1F }
            }
        }
        guard r.remaining > 0 else { throw bad("no VP8 data after the descriptor") }
        return (d, r.offset)
    }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        let hasT = temporalLayerIndex != nil, hasK = keyIndex != nil
        let hasX = pictureId != nil || tl0PictureIndex != nil || hasT || hasK
        out.append((hasX ? 0x80 : 0) | (nonReference ? 0x20 : 0) | (startOfPartition ? 0x10 : 0) | (partitionIndex & 0x07))
        guard hasX else { return out }
        out.append((pictureId != nil ? 0x80 : 0) | (tl0PictureIndex != nil ? 0x40 : 0) | (hasT ? 0x20 : 0) | (hasK ? 0x10 : 0))
        if let pid = pictureId {
            if pictureIdIs15Bit {
                out.append(0x80 | UInt8((pid >> 8) & 0x7F)); out.append(UInt8(truncatingIfNeeded: pid))
            } else {
                out.append(UInt8(pid & 0x7F))
            }
        }
        if let t = tl0PictureIndex { out.append(t) }
        if hasT || hasK {
            out.append(((temporalLayerIndex ?? 0) & 0x03) << 6 | (layerSync ? 0x20 : 0) | ((keyIndex ?? 0) & 0x1F))
        }
        return out
    }

    /// RFC 7741 §4.3: in the first packet of a frame the VP8 payload header follows the
    /// descriptor; its P bit (bit 0 of the first byte, the key frame flag of the VP8 frame tag,
    /// RFC 6386 §9.1) is 0 for a key frame.
    public static func isKeyframe(payload: [UInt8]) -> Bool {
        guard let (d, size) = try? parse(payload), d.startsFrame else { return false }
        return payload[size] & 0x01 == 0
    }
}
