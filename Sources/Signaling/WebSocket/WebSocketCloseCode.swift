/// A close status code (RFC 6455 §7.4). A struct, not an enum, because the peer may send any code in
/// the application range 3000–4999.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let normal = WebSocketCloseCode(rawValue: 1000)
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// §7.4.1: "MUST NOT be set as a status code in a Close control frame"; reported when the peer
    /// sent a close frame without a body.
    public static let noStatus = WebSocketCloseCode(rawValue: 1005)
    /// §7.4.1: never on the wire; reported when the TCP connection ended without a close frame.
    public static let abnormal = WebSocketCloseCode(rawValue: 1006)
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether a peer may put this code in a close frame (§7.4.1, §7.4.2: 1004–1006 and 1015 are
    /// reserved, 0–999 unused, 1012–2999 reserved for future RFCs; 3000–4999 are for libraries and
    /// applications). Codes 1012–1014 were later registered by IANA and are accepted as well.
    public var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    public var description: String { String(rawValue) }
}
