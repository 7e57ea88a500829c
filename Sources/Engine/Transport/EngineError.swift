/// The one error type of the Engine targets (transport, RTP, media, codecs, call). It lives in EngineTransport, the
/// lowest of them, so every layer above throws the same type.
public enum EngineError: Error, Equatable, CustomStringConvertible {
    /// A datagram or SDP could not be parsed; `what` names the parser, `reason` the defect.
    case malformed(what: String, reason: String)
    /// A C library call failed.
    case library(name: String, call: String, code: Int32)
    /// The operation is not valid in the current state.
    case invalidState(String)
    /// A caller-supplied argument is out of range.
    case invalidArgument(String)
    /// The DTLS handshake failed or the peer certificate did not match the SDP fingerprint (RFC 5763 §5).
    case dtlsFailed(String)

    public var description: String {
        switch self {
        case .malformed(let what, let reason): return "malformed \(what): \(reason)"
        case .library(let name, let call, let code): return "\(name): \(call) returned \(code)"
        case .invalidState(let r): return "invalid state: \(r)"
        case .invalidArgument(let r): return "invalid argument: \(r)"
        case .dtlsFailed(let r): return "DTLS failed: \(r)"
        }
    }
}
