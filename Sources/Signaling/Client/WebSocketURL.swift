/// A parsed `ws://` or `wss://` URL (RFC 6455 §3). Also accepts http(s):// as a convenience.
public struct WebSocketURL: Equatable, Sendable {
    public var secure: Bool
    public var host: String
    public var port: UInt16
    /// Path and query, at least "/". The fragment is dropped (§3: "Fragment identifiers are meaningless").
    public var resource: String

    public init(_ text: String) throws(SignalingError) {
        let schemes: [(String, Bool)] = [("ws://", false), ("wss://", true), ("http://", false), ("https://", true)]
        guard let (scheme, secure) = schemes.first(where: { text.lowercased().hasPrefix($0.0) }) else {
            throw .invalidArgument("not a ws:// or wss:// URL: \(text)")
        }
        self.secure = secure
        var rest = Substring(text.dropFirst(scheme.count))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authority: Substring
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
            authority = rest[..<slash]
            resource = rest[slash] == "?" ? "/" + rest[slash...] : String(rest[slash...])
        } else {
            authority = rest
            resource = "/"
        }
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let p = UInt16(authority[authority.index(after: colon)...]), p > 0 else {
                throw .invalidArgument("bad port in \(text)")
            }
            port = p
        } else {
            host = String(authority)
            port = secure ? 443 : 80
        }
        guard !host.isEmpty else { throw .invalidArgument("no host in \(text)") }
    }

    /// The Host header value (§4.1: port included when not the default).
    var hostHeader: String { port == (secure ? 443 : 80) ? host : "\(host):\(port)" }
}
