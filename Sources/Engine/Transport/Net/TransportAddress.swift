/// An IP address and UDP port: where a datagram comes from or goes to (RFC 8445 §3 "transport address").
public struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16

    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// Parses "a.b.c.d:port" or "[v6]:port".
    public init?(_ text: String) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = UInt16(rest.dropFirst()), let ip = IPAddress(host) else { return nil }
            self.init(ip: ip, port: port)
        } else {
            guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]),
                  let ip = IPAddress(text[..<colon]) else { return nil }
            self.init(ip: ip, port: port)
        }
    }

    /// Why no unicast peer can be reached here, or nil: an address no unicast peer has (`IPAddress.notUnicastReason`)
    /// or port 0, which no socket can send to (Linux refuses it with EINVAL, another error a relay dies of).
    public var notUnicastPeerReason: String? {
        if let reason = ip.notUnicastReason { return reason }
        return port == 0 ? "port 0" : nil
    }

    public var description: String {
        ip.isIPv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }
}
