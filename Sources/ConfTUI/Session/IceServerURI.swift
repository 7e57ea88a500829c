import Engine
import Glibc

/// `--stun` and `--turn` URIs (RFC 7064, RFC 7065) resolved to the IPv4 transport address the engine contacts.
///
/// - `stun:HOST[:PORT]`, port 3478 by default.
/// - `turn:HOST[:PORT][?transport=udp|tcp]`, port 3478 by default and UDP unless `?transport=tcp` (RFC 7065 §3).
///   `turns:` (TLS, port 5349) is recognised and refused with a clear error: conftui has no TLS client for TURN yet.
enum IceServerURI {
    static func stun(_ text: String) throws -> TransportAddress {
        var rest = Substring(text)
        if rest.hasPrefix("stun:") { rest = rest.dropFirst(5) }
        return try resolve(rest, option: "--stun", text: text)
    }

    static func turn(_ text: String, credentials: TurnCredentials) throws -> TurnServer {
        var rest = Substring(text)
        if rest.hasPrefix("turns:") {
            throw UsageError("--turn: '\(text)' asks for TURN over TLS (turns:), which conftui does not speak yet; use turn:HOST:PORT?transport=tcp or udp")
        }
        guard rest.hasPrefix("turn:") else { throw UsageError("--turn: '\(text)' is not a turn: URI (turn:HOST[:PORT][?transport=udp|tcp])") }
        rest = rest.dropFirst(5)
        var transport = TurnServer.Transport.udp
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            guard query.hasPrefix("transport="), let t = TurnServer.Transport(rawValue: String(query.dropFirst(10)).lowercased()) else {
                throw UsageError("--turn: '\(query)' in '\(text)': expected ?transport=udp or ?transport=tcp")
            }
            transport = t
        }
        return TurnServer(address: try resolve(rest, option: "--turn", text: text), transport: transport, credentials: credentials)
    }

    /// HOST[:PORT] (an IPv4 address or a name resolved once, now) with 3478 as the default port.
    private static func resolve(_ rest: Substring, option: String, text: String) throws -> TransportAddress {
        var host = String(rest), port: UInt16 = 3478
        if let colon = rest.lastIndex(of: ":") {
            guard let p = UInt16(rest[rest.index(after: colon)...]), p > 0 else { throw UsageError("\(option): bad port in '\(text)'") }
            host = String(rest[..<colon])
            port = p
        }
        guard !host.isEmpty else { throw UsageError("\(option): no host in '\(text)'") }
        if let ip = IPAddress(host) { return TransportAddress(ip: ip, port: port) }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result, let sa = first.pointee.ai_addr else {
            throw UsageError("\(option): cannot resolve '\(host)'")
        }
        defer { freeaddrinfo(result) }
        let v4 = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
        return TransportAddress(ip: .v4(v4), port: port)
    }
}
