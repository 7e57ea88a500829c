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

    public var description: String {
        switch self {
        case .system(let call, let errno): return "\(call) failed: \(String(cString: strerror(errno)))"
        case .protocolViolation(let r): return "protocol violation: \(r)"
        case .tls(let r): return "TLS: \(r)"
        case .invalidArgument(let r): return r
        case .closed: return "connection closed"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
