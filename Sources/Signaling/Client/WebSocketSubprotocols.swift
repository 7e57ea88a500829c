import Foundation

/// The client's half of subprotocol negotiation (RFC 6455 §1.9, §4.1, §11.3.4), sans-IO: the list the client asks
/// for, checked before anything is sent; the `Sec-WebSocket-Protocol` request header; and the server's answer,
/// checked against what was asked.
public enum WebSocketSubprotocols {
    /// The longest `Sec-WebSocket-Protocol` value sent or accepted, in bytes. The answer is network input: anything
    /// longer cannot be one of the names we asked for (which are bounded by the same limit), so it is refused
    /// before it is split, compared or quoted in an error.
    public static let maxHeaderValueBytes = 1024

    /// Refuses a list that would make a malformed request. §4.1 (10): "The elements that comprise this value MUST be
    /// non-empty strings with characters in the range U+0021 to U+007E not including separator characters as defined
    /// in [RFC2616] and MUST all be unique strings."
    public static func validate(_ names: [String]) throws(SignalingError) {
        var seen = Set<String>()
        for name in names {
            guard isToken(name) else {
                throw .invalidArgument("subprotocol \"\(LogEscaping.escape(name, maxBytes: 64))\" is not an RFC 6455 token "
                                       + "(visible ASCII, no separators such as , ; \" / or space)")
            }
            guard seen.insert(name).inserted else { throw .invalidArgument("subprotocol \"\(name)\" asked for twice") }
        }
        guard let value = headerValue(names), value.utf8.count > maxHeaderValueBytes else { return }
        throw .invalidArgument("subprotocols take \(value.utf8.count) bytes, over \(maxHeaderValueBytes)")
    }

    /// The request header's value, `a, b` (§11.3.4: a comma-separated list of tokens); nil when none is asked for,
    /// so no header is sent.
    public static func headerValue(_ names: [String]) -> String? {
        names.isEmpty ? nil : names.joined(separator: ", ")
    }

    /// The subprotocol the server chose, from every `Sec-WebSocket-Protocol` value in its 101 (`answers`, one per
    /// header line); nil when it sent none. §4.1: "If the response includes a |Sec-WebSocket-Protocol| header field
    /// and this header field indicates the use of a subprotocol that was not present in the client's handshake (the
    /// server has indicated a subprotocol not requested by the client), the client MUST _Fail the WebSocket
    /// Connection_." The server may pick only one (§4.2.2: "Either a single value representing the subprotocol the
    /// server is ready to use or null"), so two names, or the header twice, fail it too.
    public static func chosen(answers: [String], asked: [String]) throws(SignalingError) -> String? {
        guard !answers.isEmpty else { return nil }
        let total = answers.reduce(0) { $0 + $1.utf8.count }
        guard total <= maxHeaderValueBytes else {
            throw .protocolViolation("Sec-WebSocket-Protocol answer of \(total) bytes, over \(maxHeaderValueBytes)")
        }
        let names = answers.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let shown = LogEscaping.escape(answers.joined(separator: ", "), maxBytes: 128)
        guard names.count == 1, let name = names.first else {
            throw .protocolViolation("server answered more than one subprotocol: \(shown)")
        }
        guard asked.contains(name) else {
            let list = asked.isEmpty ? "none" : asked.joined(separator: ", ")
            throw .protocolViolation("server chose subprotocol \"\(shown)\", which was not asked for (asked: \(list))")
        }
        return name
    }

    /// RFC 2616 §2.2's token: one or more CHARs that are neither CTLs nor separators.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (0x21...0x7E).contains(byte) && !separators.contains(byte)
        }
    }

    /// RFC 2616 §2.2: `( ) < > @ , ; : \ " / [ ] ? = { }`, space and horizontal tab (the last two are outside
    /// U+0021...U+007E already).
    private static let separators: Set<UInt8> = Set("()<>@,;:\\\"/[]?={}".utf8)
}
