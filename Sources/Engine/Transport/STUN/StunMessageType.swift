/// STUN message class (RFC 5389 §6: the C1/C0 bits).
public enum StunClass: UInt16, Sendable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// STUN method (12 bits). ICE only uses Binding (RFC 8445 §7.2.2).
public struct StunMethod: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16
    public init?(rawValue: UInt16) {
        guard rawValue <= 0x0FFF else { return nil }
        self.rawValue = rawValue
    }
    public static let binding = StunMethod(rawValue: 0x001)!
}

/// The 14-bit message type field: method bits M11..M0 interleaved with class bits C1 C0 (RFC 5389 §6, Figure 3).
public struct StunMessageType: Hashable, Sendable {
    public var method: StunMethod
    public var stunClass: StunClass

    public init(method: StunMethod, stunClass: StunClass) {
        self.method = method
        self.stunClass = stunClass
    }

    public static let bindingRequest = StunMessageType(method: .binding, stunClass: .request)
    public static let bindingSuccess = StunMessageType(method: .binding, stunClass: .successResponse)
    public static let bindingError = StunMessageType(method: .binding, stunClass: .errorResponse)
    public static let bindingIndication = StunMessageType(method: .binding, stunClass: .indication)

    /// Layout: M11 M10 M9 M8 M7 C1 M6 M5 M4 C0 M3 M2 M1 M0 (the two top bits are zero).
    var wireValue: UInt16 {
        let m = method.rawValue
        let c = stunClass.rawValue
        return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | ((c & 0b01) << 4) | ((c & 0b10) << 7)
    }

    init(wireValue v: UInt16) {
        let m = (v & 0x000F) | ((v >> 1) & 0x0070) | ((v >> 2) & 0x0F80)
        let c = ((v >> 4) & 0b01) | ((v >> 7) & 0b10)
        method = StunMethod(rawValue: m)!
        stunClass = StunClass(rawValue: c)!
    }
}
