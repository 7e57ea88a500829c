import Foundation

/// Which web pages may open a WebSocket to this server: the defence against cross-site WebSocket
/// hijacking. Without it any page a user has open could connect to `ws://127.0.0.1:PORT/` (the
/// server `conftui demo` and `make run` start on the user's own machine), join rooms and send the
/// peers anything. Pure: the `Origin` and `Host` header values in, a verdict out.
///
/// Accepted:
/// - no `Origin` at all: a non-browser client (conftui's own, the aiortc peers' python
///   `websockets`, none of which send one). Browsers always send it on a WebSocket handshake.
/// - an origin listed in `--allow-origin` (`*` allows every origin);
/// - the server's own page origin: `http` (`https` with TLS) plus the `Host` the request came to,
///   exactly as the browser sends it when our page (which connects to `location.host`) was loaded
///   from it, and the configured address and port (`localhost` too when it is loopback).
///   The request's `Host` only counts when it names the server by an IP literal or `localhost`:
///   a DNS name could be an attacker's, rebound to 127.0.0.1 (DNS rebinding: the page at
///   `http://evil.example:PORT` then has Origin and Host equal), so names need `--allow-origin`.
public struct OriginPolicy: Sendable, Equatable {
    public enum Verdict: Equatable, Sendable {
        case accept
        /// Refused; the reason is for the log line.
        case refuse(String)
    }

    /// Normalised extra origins (`scheme://host:port`), from `--allow-origin`.
    public let allowed: Set<String>
    public let allowsAll: Bool
    /// "https" with TLS, else "http": the scheme our own page is served with.
    public let scheme: String
    /// Our own page origins from the configuration (normalised).
    public let ownOrigins: Set<String>

    /// `entries` are origins as a browser serialises them (`http://host:port`, default
    /// port optional) or `*`. Invalid entries throw, so a typo is reported at start.
    public init(allowing entries: [String], tls: Bool, host: String, port: UInt16) throws(SignalingError) {
        scheme = tls ? "https" : "http"
        var set = Set<String>()
        var all = false
        for entry in entries {
            if entry == "*" {
                all = true
            } else if entry == "null" {
                // The opaque origin (file:// pages, sandboxed frames): only when asked for by name.
                set.insert("null")
            } else if let origin = Self.normalise(origin: entry) {
                set.insert(origin)
            } else {
                throw .invalidArgument("--allow-origin takes an origin like http://example.org:8080 (or *), not '\(entry)'")
            }
        }
        self.allowed = set
        allowsAll = all
        var own = Set<String>()
        let names = Self.isLoopback(host) ? [host, "127.0.0.1", "localhost"] : [host]
        for name in names where host != "0.0.0.0" {
            if let origin = Self.normalise(scheme: scheme, authority: "\(name):\(port)") { own.insert(origin) }
        }
        ownOrigins = own
    }

    public func check(origin: String?, host: String?) -> Verdict {
        // RFC 6455 §4.2.2 step 4, /origin/: "The server MAY use this information as part of a
        // determination of whether to accept the incoming connection. If the server does not
        // validate the origin, it will accept connections from anywhere. If the server does not
        // wish to accept this connection, it MUST return an appropriate HTTP error code (e.g., 403
        // Forbidden) and abort the WebSocket handshake". §10.2: "Servers that are not intended to
        // process input from any web page but only for certain sites SHOULD verify the |Origin|
        // field is an origin they expect. If the origin indicated is unacceptable to the server,
        // then it SHOULD respond to the WebSocket handshake with a reply containing HTTP 403
        // Forbidden status code." and "The intent is not to prevent non-browser clients from
        // establishing connections" — hence no Origin, no check (§4.1: browsers MUST send it).
        guard let origin else { return .accept }
        if allowsAll { return .accept }
        if origin == "null" {
            return allowed.contains("null") ? .accept : .refuse("opaque origin null")
        }
        guard let normalised = Self.normalise(origin: origin) else { return .refuse("malformed origin") }
        if allowed.contains(normalised) || ownOrigins.contains(normalised) { return .accept }
        if let host, Self.isTrustedHostName(host), Self.normalise(scheme: scheme, authority: host) == normalised {
            return .accept
        }
        return .refuse("origin not allowed")
    }

    // MARK: parsing (everything here is client-supplied text: checked before any conversion)

    /// `scheme://host[:port]` → `scheme://host:port` lowercased with the default port made
    /// explicit (RFC 6454 §4 and §6.2: an origin is scheme, host and port; browsers omit port 80
    /// for http and 443 for https). Nil for anything else (paths, user info, other schemes).
    static func normalise(origin: String) -> String? {
        guard let separator = origin.range(of: "://") else { return nil }
        let scheme = origin[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        return normalise(scheme: scheme, authority: String(origin[separator.upperBound...]))
    }

    /// `host[:port]` (a Host header, RFC 9110 §7.2, or an origin's authority) under `scheme`.
    static func normalise(scheme: String, authority: String) -> String? {
        guard !authority.isEmpty, authority.utf8.count <= 300 else { return nil }
        let text = authority.lowercased()
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            // IPv6 literal: "[::1]" or "[::1]:3000".
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[...close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text[...]
        }
        // A registered name or IPv4 (letters, digits, '.', '-', '_'), or the inside of an IPv6 literal.
        let nameBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789.-_".utf8)
        let ipv6Bytes = Set("0123456789abcdef:.".utf8)
        if host.hasPrefix("[") {
            guard host.count > 2, host.dropFirst().dropLast().utf8.allSatisfy({ ipv6Bytes.contains($0) }) else { return nil }
        } else {
            guard !host.isEmpty, host.utf8.allSatisfy({ nameBytes.contains($0) }) else { return nil }
        }
        if host.hasSuffix(".") && host.count > 1 { host = host.dropLast() }
        let port: Int
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let value = Int(portText), (1...65535).contains(value) else { return nil }
            port = value
        } else {
            port = scheme == "https" ? 443 : 80
        }
        return "\(scheme)://\(host):\(port)"
    }

    /// A Host whose name cannot be an attacker's DNS name: an IPv4 or bracketed IPv6 literal, or
    /// `localhost` (which browsers resolve to loopback themselves, never through DNS).
    static func isTrustedHostName(_ hostHeader: String) -> Bool {
        guard let normalised = normalise(scheme: "http", authority: hostHeader),
              let afterScheme = normalised.range(of: "://") else { return false }
        let authority = normalised[afterScheme.upperBound...]
        guard let colon = authority.lastIndex(of: ":") else { return false }
        let host = authority[..<colon]
        if host == "localhost" || host.hasPrefix("[") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && (Int(part) ?? 256) <= 255
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.")
    }
}
