/// An incremental, sans-IO RFC 6455 frame parser: feed it bytes as they arrive, then pull complete
/// messages with `next()`. It never touches a socket or a clock, so every rule below is unit-tested
/// byte for byte.
///
/// Once `next()` has thrown, the connection is failed and the parser must not be used again (§7.1.7).
public struct WebSocketFrameParser: Sendable {
    /// Which side this parser runs on; it decides the masking rule of §5.1.
    public enum Role: Sendable {
        /// Parses frames sent by a client: they MUST be masked.
        case server
        /// Parses frames sent by a server: they MUST NOT be masked.
        case client
    }

    public let role: Role
    /// The largest data message (after reassembly) accepted; larger ones fail with 1009.
    public let maxMessageSize: Int

    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The opcode (text or binary) of a fragmented message in progress (§5.4), if any.
    private var fragmentOpcode: WebSocketOpcode?
    private var fragments: [UInt8] = []

    public init(role: Role, maxMessageSize: Int = 1 << 20) {
        self.role = role
        self.maxMessageSize = maxMessageSize
    }

    /// Bytes fed but not yet consumed as frames (bounded by one frame: the size cap is checked on the
    /// declared length before the payload is waited for).
    public var bufferedByteCount: Int { buffer.count - readIndex + fragments.count }

    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if readIndex > 0 && readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message or control frame, or nil when more bytes are needed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketMessage? {
        try nextInbound()?.message
    }

    /// Like `next()`, with a data message left as its bytes (what the server parses JSON from).
    public mutating func nextInbound() throws(WebSocketProtocolError) -> WebSocketInbound? {
        while true {
            guard let frame = try nextFrame() else { return nil }
            if let message = try assemble(frame) { return message }
        }
    }

    private struct Frame {
        let fin: Bool
        let opcode: WebSocketOpcode
        let payload: [UInt8]
    }

    private mutating func nextFrame() throws(WebSocketProtocolError) -> Frame? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let b0 = buffer[readIndex], b1 = buffer[readIndex + 1]
        let fin = b0 & 0x80 != 0
        // §5.2: "RSV1, RSV2, RSV3: MUST be 0 unless an extension is negotiated that defines meanings
        // for non-zero values." We negotiate none.
        guard b0 & 0x70 == 0 else { throw WebSocketProtocolError(.protocolError, "reserved bits set without an extension") }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            throw WebSocketProtocolError(.protocolError, "reserved opcode 0x\(String(b0 & 0x0F, radix: 16))")
        }
        let masked = b1 & 0x80 != 0
        // §5.1: "a client MUST mask all frames that it sends to the server ... The server MUST close the
        // connection upon receiving a frame that is not masked" and "A server MUST NOT mask any frames
        // ... A client MUST close a connection if it detects a masked frame." Status 1002 (§7.4.1).
        switch role {
        case .server where !masked: throw WebSocketProtocolError(.protocolError, "client frame is not masked")
        case .client where masked: throw WebSocketProtocolError(.protocolError, "server frame is masked")
        default: break
        }
        let length7 = Int(b1 & 0x7F)
        if opcode.isControl {
            // §5.5: "All control frames MUST have a payload length of 125 bytes or less and MUST NOT be fragmented."
            guard fin else { throw WebSocketProtocolError(.protocolError, "fragmented control frame") }
            guard length7 <= 125 else { throw WebSocketProtocolError(.protocolError, "control frame longer than 125 bytes") }
        }
        var headerLength = 2
        var payloadLength: UInt64
        switch length7 {
        case 126:
            guard available >= 4 else { return nil }
            payloadLength = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
            headerLength = 4
        case 127:
            guard available >= 10 else { return nil }
            payloadLength = 0
            for i in 0..<8 { payloadLength = payloadLength << 8 | UInt64(buffer[readIndex + 2 + i]) }
            // §5.2: "the most significant bit MUST be 0" for the 64-bit length.
            guard payloadLength & (1 << 63) == 0 else { throw WebSocketProtocolError(.protocolError, "64-bit length has its top bit set") }
            headerLength = 10
        default:
            payloadLength = UInt64(length7)
        }
        // The size cap is checked on the *declared* length, before any payload is buffered, so a
        // peer announcing a huge frame cannot make us allocate for it (§10.4: "implementations SHOULD
        // impose a limit on frame sizes and the total message size after reassembly").
        if !opcode.isControl {
            let already = opcode == .continuation ? UInt64(fragments.count) : 0
            guard payloadLength <= UInt64(maxMessageSize) && already + payloadLength <= UInt64(maxMessageSize) else {
                throw WebSocketProtocolError(.messageTooBig, "message larger than \(maxMessageSize) bytes")
            }
        }
        let maskLength = masked ? 4 : 0
        let total = headerLength + maskLength + Int(payloadLength)
        guard available >= total else { return nil }
        let payloadStart = readIndex + headerLength + maskLength
        // `payloadLength` is at most `maxMessageSize` (data) or 125 (control) here, so the Int
        // arithmetic above cannot overflow.
        let payloadRange = payloadStart..<(payloadStart + Int(payloadLength))
        let payload: [UInt8]
        if masked {
            let keyStart = readIndex + headerLength
            let key = (buffer[keyStart], buffer[keyStart + 1], buffer[keyStart + 2], buffer[keyStart + 3])
            payload = buffer.withUnsafeBytes { WebSocketMasking.unmasked(UnsafeRawBufferPointer(rebasing: $0[payloadRange]), key: key) }
        } else {
            payload = Array(buffer[payloadRange])
        }
        readIndex += total
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.count <= 64 * 1024)
            readIndex = 0
        }
        return Frame(fin: fin, opcode: opcode, payload: payload)
    }

    private mutating func assemble(_ frame: Frame) throws(WebSocketProtocolError) -> WebSocketInbound? {
        switch frame.opcode {
        case .ping:
            return .control(.ping(frame.payload))
        case .pong:
            return .control(.pong(frame.payload))
        case .close:
            return .control(try Self.parseClose(frame.payload))
        case .continuation:
            // §5.4: a continuation frame only makes sense inside a fragmented message.
            guard let opcode = fragmentOpcode else {
                throw WebSocketProtocolError(.protocolError, "continuation frame without a message to continue")
            }
            fragments.append(contentsOf: frame.payload)
            guard frame.fin else { return nil }
            let whole = fragments
            fragments = []
            fragmentOpcode = nil
            return try Self.dataMessage(opcode, whole)
        case .text, .binary:
            // §5.4: "the fragments of one message MUST NOT be interleaved between the fragments of
            // another message" (only control frames may be injected in between).
            guard fragmentOpcode == nil else {
                throw WebSocketProtocolError(.protocolError, "new data frame while a fragmented message is open")
            }
            if frame.fin { return try Self.dataMessage(frame.opcode, frame.payload) }
            fragmentOpcode = frame.opcode
            fragments = frame.payload
            return nil
        }
    }

    private static func dataMessage(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketInbound {
        guard opcode == .text else { return .data(payload, isText: false) }
        // §8.1: "When an endpoint is to interpret a byte stream as UTF-8 but finds that the byte stream
        // is not, in fact, a valid UTF-8 stream, that endpoint MUST _Fail the WebSocket Connection_"
        // (status 1007, §7.4.1). Checked on the reassembled message, so a code point split across
        // fragments is fine.
        guard UTF8Validation.isValid(payload) else {
            throw WebSocketProtocolError(.invalidPayload, "text message is not valid UTF-8")
        }
        return .data(payload, isText: true)
    }

    static func parseClose(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketMessage {
        // §5.5.1: the body, if any, starts with a 2-byte status code, followed by a UTF-8 reason.
        if payload.isEmpty { return .close(code: .noStatus, reason: "") }
        guard payload.count >= 2 else { throw WebSocketProtocolError(.protocolError, "close frame with a 1-byte body") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnTheWire else { throw WebSocketProtocolError(.protocolError, "invalid close code \(code.rawValue)") }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw WebSocketProtocolError(.invalidPayload, "close reason is not valid UTF-8")
        }
        return .close(code: code, reason: reason)
    }
}
