/// The frame opcodes of RFC 6455 §5.2. Values 3–7 and 0xB–0xF are reserved; a frame carrying one
/// is a protocol error (§5.2: "If an unknown opcode is received, the receiving endpoint MUST _Fail the
/// WebSocket Connection_").
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// §5.5: control frames are those whose opcode has the most significant bit set.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
