/// The one error type of the Signaling module.
public enum SignalingError: Error, Equatable, CustomStringConvertible {
    /// A socket call failed; `call` names it, `errno` is the C error number.
    case system(call: String, errno: Int32)
    /// The peer broke RFC 6455 or HTTP/1.1; `reason` says how.
    case protocolViolation(String)
    /// A TLS operation failed; `reason` carries OpenSSL's text.
    case tls(String)
    /// A URL or option the caller gave is not usable.
    case invalidArgument(String)
    /// The connection is closed.
    case closed
    /// A SkyRTC message was refused; `code` is what the server puts in its `_error` reply.
    case badMessage(SkyRTCErrorCode, String)
    /// The peer closed the WebSocket (or it was failed) with this status code and reason.
    case closedByPeer(code: UInt16, reason: String)
    /// Nothing arrived within the time asked for.
    case timeout
    /// A send found the outgoing queue full (the peer stopped reading); the connection is failed.
    case sendQueueFull(bytes: Int)

    public var description: String {
        switch self {
        case .system(let call, let errno): return "\(call) failed: \(String(cString: strerror(errno)))"
        case .protocolViolation(let r): return "protocol violation: \(r)"
        case .tls(let r): return "TLS: \(r)"
        case .invalidArgument(let r): return r
        case .closed: return "connection closed"
        case .badMessage(let code, let message): return "\(code.rawValue): \(message)"
        case .closedByPeer(let code, let reason): return "closed by peer (\(code)\(reason.isEmpty ? "" : ": " + reason))"
        case .timeout: return "timed out"
        case .sendQueueFull(let bytes): return "send queue full (\(bytes) bytes unwritten): connection failed"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
