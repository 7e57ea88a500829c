import Engine
import Glibc

/// `--stun` and `--turn` URIs (RFC 7064, RFC 7065) resolved to the IPv4 transport address the engine contacts.
///
/// - `stun:HOST[:PORT]`, port 3478 by default.
/// - `turn:HOST[:PORT][?transport=udp|tcp]`, port 3478 by default and UDP unless `?transport=tcp` (RFC 7065 §3).
/// - `turns:HOST[:PORT][?transport=tcp]`, TLS over TCP, port 5349 by default (RFC 7065 §3); the certificate must
///   name HOST (or carry it as an IP address) unless `verification` is `.insecure`.
enum IceServerURI {
    static func stun(_ text: String) throws -> TransportAddress {
        var rest = Substring(text)
        if rest.hasPrefix("stun:") { rest = rest.dropFirst(5) }
        return try resolve(rest, option: "--stun", text: text, defaultPort: 3478).address
    }

    static func turn(_ text: String, credentials: TurnCredentials,
                     verification: TlsClientCore.Verification = .system) throws -> TurnServer {
        var rest = Substring(text)
        let secure = rest.hasPrefix("turns:")
        guard secure || rest.hasPrefix("turn:") else {
            throw UsageError("--turn: '\(text)' is not a turn: or turns: URI (turn:HOST[:PORT][?transport=udp|tcp], turns:HOST[:PORT])")
        }
        rest = rest.dropFirst(secure ? 6 : 5)
        var transport = secure ? TurnServer.Transport.tls : .udp
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            let asked = query.hasPrefix("transport=") ? String(query.dropFirst(10)).lowercased() : ""
            switch (secure, asked) {
            case (false, "udp"): transport = .udp
            case (false, "tcp"): transport = .tcp
            case (true, "tcp"): transport = .tls
            case (true, "udp"):
                throw UsageError("--turn: '\(text)' asks for TURN over DTLS, which conftui does not speak; use turns:HOST:PORT (TLS over TCP)")
            default:
                throw UsageError("--turn: '\(query)' in '\(text)': expected ?transport=udp or ?transport=tcp")
            }
        }
        let (address, host) = try resolve(rest, option: "--turn", text: text, defaultPort: secure ? 5349 : 3478)
        return TurnServer(address: address, transport: transport, credentials: credentials, tlsHost: host,
                          tlsVerification: verification)
    }

    /// HOST[:PORT] (an IPv4 address or a name resolved once, now): the address and HOST as written.
    private static func resolve(_ rest: Substring, option: String, text: String,
                                defaultPort: UInt16) throws -> (address: TransportAddress, host: String) {
        var host = String(rest), port = defaultPort
        if let colon = rest.lastIndex(of: ":") {
            guard let p = UInt16(rest[rest.index(after: colon)...]), p > 0 else { throw UsageError("\(option): bad port in '\(text)'") }
            host = String(rest[..<colon])
            port = p
        }
        guard !host.isEmpty else { throw UsageError("\(option): no host in '\(text)'") }
        if let ip = IPAddress(host) { return (TransportAddress(ip: ip, port: port), host) }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result, let sa = first.pointee.ai_addr else {
            throw UsageError("\(option): cannot resolve '\(host)'")
        }
        defer { freeaddrinfo(result) }
        let v4 = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
        return (TransportAddress(ip: .v4(v4), port: port), host)
    }
}
