#if canImport(Glibc)
import Glibc
#endif

/// Builds RFC 6455 frames. Pure: the caller supplies the masking key (clients) or none (servers).
public enum WebSocketFrameWriter {
    /// One frame. `maskKey` must be given by a client and omitted by a server (§5.1).
    public static func frame(_ opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true,
                             maskKey: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        appendFrame(opcode, payload: payload, fin: fin, maskKey: maskKey, to: &out)
        return out
    }

    /// Appends one frame to `out`: the header, then the payload in one copy (masked in place when a
    /// `maskKey` is given), so a session writes straight into a connection's output buffer.
    public static func appendFrame(_ opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true,
                                   maskKey: (UInt8, UInt8, UInt8, UInt8)? = nil, to out: inout [UInt8]) {
        // No reserveCapacity here: reserving exactly what one more frame needs, frame after frame
        // into a backed-up buffer, would reallocate every time (append grows geometrically).
        appendHeader(opcode, length: payload.count, fin: fin, masked: maskKey != nil, to: &out)
        guard let key = maskKey else {
            out.append(contentsOf: payload)
            return
        }
        out.append(contentsOf: [key.0, key.1, key.2, key.3])
        let payloadStart = out.count
        out.append(contentsOf: payload)
        out.withUnsafeMutableBytes { WebSocketMasking.apply(key: key, to: UnsafeMutableRawBufferPointer(rebasing: $0[payloadStart...])) }
    }

    /// The first byte, the length (§5.2: "the minimal number of bytes MUST be used to encode the
    /// length") and the mask bit; the masking key, if any, is the caller's to append.
    static func appendHeader(_ opcode: WebSocketOpcode, length: Int, fin: Bool, masked: Bool, to out: inout [UInt8]) {
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length <= 125 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
        } else {
            out.append(maskBit | 127)
            let length = UInt64(length)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((length >> UInt64(shift)) & 0xFF)) }
        }
    }

    /// A close frame (§5.5.1). `.noStatus` produces an empty body, since 1005 must never be sent.
    /// The reason is cut to fit the 125-byte control-frame limit on a UTF-8 boundary.
    public static func close(_ code: WebSocketCloseCode, reason: String = "",
                             maskKey: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        frame(.close, payload: closeBody(code, reason: reason), maskKey: maskKey)
    }

    /// The body of a close frame: the code (none for `.noStatus` and `.abnormal`, which §7.4.1 keeps
    /// off the wire), then as much of the reason as fits in 125 bytes, cut on a UTF-8 boundary.
    static func closeBody(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
        guard code != .noStatus && code != .abnormal else { return [] }
        var body: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = Array(reason.utf8)
        while reasonBytes.count > 123 {
            reasonBytes.removeLast()
            while let last = reasonBytes.last, last & 0xC0 == 0x80 { reasonBytes.removeLast() }
            if let last = reasonBytes.last, last >= 0xC0 { reasonBytes.removeLast() }
        }
        body.append(contentsOf: reasonBytes)
        return body
    }

    /// A fresh random masking key. §5.3: "The masking key MUST be unpredictable".
    public static func randomMaskKey() -> (UInt8, UInt8, UInt8, UInt8) {
        var g = SystemRandomNumberGenerator()
        let v = g.next() as UInt32
        return (UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24))
    }
}
