/// ERROR-CODE attribute value (RFC 5389 §15.6): a 3-digit code and a UTF-8 reason phrase.
public struct StunErrorCode: Hashable, Sendable {
    /// 300...699.
    public let code: Int
    public let reason: String

    public init?(code: Int, reason: String) {
        guard (300...699).contains(code) else { return nil }
        self.code = code
        self.reason = reason
    }

    public static let badRequest = StunErrorCode(code: 400, reason: "Bad Request")!
    public static let unauthorized = StunErrorCode(code: 401, reason: "Unauthorized")!
    public static let unknownAttribute = StunErrorCode(code: 420, reason: "Unknown Attribute")!
    /// RFC 8445 §7.3.1.1: sent by the agent that keeps its role when both claim the same one.
    public static let roleConflict = StunErrorCode(code: 487, reason: "Role Conflict")!
    public static let serverError = StunErrorCode(code: 500, reason: "Server Error")!
}
