import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Options of `WebSocketClient`.
public struct WebSocketClientOptions: Sendable {
    /// How a wss:// server's certificate is checked (`.insecure` for `--tls self-signed` servers).
    public var tlsVerification: TLSVerification = .system
    /// Seconds for TCP connect + TLS + opening handshake.
    public var connectTimeout = 5.0
    /// Largest message accepted from the server (1009 past it). Above the server's 1 MiB input cap,
    /// because a forwarded message grows by the rewritten `socketId` and envelope.
    public var maxMessageSize = 4 << 20
    /// Bytes of frames waiting to be written. A send that would go past it fails the connection instead of
    /// waiting: a server that stops reading must not hold up the caller (the call's event thread sends too).
    public var maxQueuedBytes = 1 << 20
    /// Seconds queued output may make no progress before the connection is failed as stuck.
    public var writeStallTimeout = 10.0
    /// Seconds without a frame from the server before the client pings it, and fails the connection (1006) after
    /// twice that; nil (the default) leaves keepalive to the server, which pings its clients.
    public var pingInterval: Double? = nil
    /// Seconds from our close frame to the server's close before the connection is given up as lost (1006).
    public var closeTimeout = 1.0
    /// The subprotocols to ask for, most preferred first (`Sec-WebSocket-Protocol`, RFC 6455 §4.1), e.g.
    /// `["janus-protocol"]`; empty (the default, what SkyRTC expects) sends no header. Each must be an RFC 6455 token,
    /// checked before connecting. The server's choice is `WebSocketClient.subprotocol`.
    public var subprotocols: [String] = []
    public init() {}
}

/// A WebSocket client (RFC 6455) for ws:// and wss://: the opening handshake here, then the same
/// `WebSocketSession` the server runs, in the client role (masked frames, automatic pong, close
/// handshake). One I/O thread owns the socket: it turns incoming frames into a queue that
/// `receive(timeout:)` pops, and writes the frames that sends queue. Sends may come from any thread
/// and never block on the network (see `WebSocketClientSession`).
///
/// Written here because Foundation's URLSessionWebSocketTask does not work on Linux (libcurl
/// without ws support, docs/toolchain-pitfalls.md §4b).
public final class WebSocketClient: Sendable {
    public let url: WebSocketURL
    /// The subprotocol the server chose among `WebSocketClientOptions.subprotocols`; nil when it chose none (a server
    /// that speaks none of them, conftui's own included, answers without the header).
    public let subprotocol: String?
    /// Our end's IPv4 address, dotted (nil if the system would not say): when the machine loses that address the
    /// connection is dead even though nothing has failed yet, and a watcher of the interfaces can tell.
    public let localAddress: String?
    private let session: WebSocketClientSession

    /// Connects, performs the opening handshake (§4.1) and starts the I/O thread.
    public init(url text: String, options: WebSocketClientOptions = .init()) throws(SignalingError) {
        let url = try WebSocketURL(text)
        self.url = url
        // A bad name is the caller's mistake: said before any connection, not sent as a malformed request.
        try WebSocketSubprotocols.validate(options.subprotocols)
        let deadline = MonotonicClock.now() + options.connectTimeout
        let fd = try Self.connectTCP(host: url.host, port: url.port, deadline: deadline)
        localAddress = Self.localAddress(of: fd)
        let stream: ByteStream
        do {
            if url.secure {
                stream = try TLSClientSession.connect(fd: fd, host: url.host, verification: options.tlsVerification,
                                                      timeout: deadline - MonotonicClock.now())
            } else {
                stream = PlainStream(fd: fd)
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
        let leftover: [UInt8]
        do {
            (leftover, subprotocol) = try Self.openingHandshake(stream, url: url, subprotocols: options.subprotocols,
                                                                deadline: deadline)
        } catch {
            stream.close()
            throw error
        }
        session = try WebSocketClientSession(stream: stream, leftover: leftover, options: options)
        // The thread holds the session, not the client: dropping the client stops the thread
        // (which then says 1001 "going away" and closes the socket) instead of keeping it alive.
        let session = self.session
        let thread = Thread { session.run() }
        thread.name = "websocket-client"
        thread.start()
    }

    deinit { session.stop() }

    public func send(text: String) throws(SignalingError) { try session.sendFrame(.text, Array(text.utf8)) }
    public func send(binary: [UInt8]) throws(SignalingError) { try session.sendFrame(.binary, binary) }
    public func ping(_ payload: [UInt8] = []) throws(SignalingError) { try session.sendFrame(.ping, payload) }

    /// Starts the close handshake (§7.1.2); the server's close frame then arrives via `receive`.
    public func close(_ code: WebSocketCloseCode = .normal, reason: String = "") { session.close(code, reason) }

    /// Sends bytes as they are, unframed (tests use it to break the protocol on purpose).
    public func sendRaw(_ bytes: [UInt8]) throws(SignalingError) { try session.sendRaw(bytes) }

    /// The next data message, pong or close from the server. Pings are answered automatically and
    /// not returned. After the close has been returned, further calls throw `.closed`.
    public func receive(timeout: Double) throws(SignalingError) -> WebSocketMessage { try session.receive(timeout: timeout) }

    /// Whether the connection has ended (close handshake done or connection lost).
    public var isClosed: Bool { session.isEnded }

    // MARK: connecting

    private static func localAddress(of fd: Int32) -> String? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0, address.sin_family == sa_family_t(AF_INET) else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func connectTCP(host: String, port: UInt16, deadline: Double) throws(SignalingError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let info = result else { throw .invalidArgument("cannot resolve \(host): \(String(cString: gai_strerror(rc)))") }
        defer { freeaddrinfo(result) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        SocketOptions.setNonBlocking(fd)
        SocketOptions.setNoDelay(fd)
        if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                let e = errno
                Glibc.close(fd)
                throw .system(call: "connect \(host):\(port)", errno: e)
            }
            guard SocketOptions.wait(fd, events: Int16(POLLOUT), timeout: deadline - MonotonicClock.now()) else {
                Glibc.close(fd)
                throw .timeout
            }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            guard err == 0 else {
                Glibc.close(fd)
                throw .system(call: "connect \(host):\(port)", errno: err)
            }
        }
        return fd
    }

    /// §4.1: send the upgrade request, then read the 101 and check Sec-WebSocket-Accept and the subprotocol the
    /// server chose. Returns any bytes that arrived after the response head (the first frames) and that subprotocol.
    private static func openingHandshake(_ stream: ByteStream, url: WebSocketURL, subprotocols: [String],
                                         deadline: Double) throws(SignalingError) -> (leftover: [UInt8], subprotocol: String?) {
        let key = WebSocketAcceptKey.randomKey()
        let protocolLine = WebSocketSubprotocols.headerValue(subprotocols).map { "Sec-WebSocket-Protocol: \($0)\r\n" } ?? ""
        let request = "GET \(url.resource) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n" + protocolLine + "\r\n"
        try WebSocketClientSession.writeAll(stream, Array(request.utf8))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while HTTPRequestParser.headEnd(received) == nil {
            guard received.count < 16 << 10 else { throw .protocolViolation("handshake response too large") }
            let r = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
            switch r {
            case .bytes(let n): received.append(contentsOf: buffer[0..<n])
            case .wouldBlock, .wantsWrite:
                let remaining = deadline - MonotonicClock.now()
                guard remaining > 0 else { throw .timeout }
                _ = SocketOptions.wait(stream.fd, events: Int16(POLLIN), timeout: min(remaining, 0.1))
            case .endOfStream: throw .protocolViolation("server closed during the opening handshake")
            case .failed(let why): throw .protocolViolation(why)
            }
        }
        let end = HTTPRequestParser.headEnd(received)!
        let head = String(decoding: received[0..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        // §4.1: "If the status code received from the server is not 101, the client handles the
        // response per HTTP procedures" — for us, a failure carrying the status line.
        guard let status = lines.first, status.hasPrefix("HTTP/1.1 101") else {
            throw .protocolViolation("upgrade refused: \(lines.first ?? "")")
        }
        var accept: String?
        var protocolAnswers: [String] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch line[..<colon].lowercased() {
            case "sec-websocket-accept": accept = value
            case "sec-websocket-protocol": protocolAnswers.append(value)
            default: break
            }
        }
        guard accept == WebSocketAcceptKey.accept(forKey: key) else {
            throw .protocolViolation("wrong Sec-WebSocket-Accept")
        }
        let chosen = try WebSocketSubprotocols.chosen(answers: protocolAnswers, asked: subprotocols)
        return (Array(received[end...]), chosen)
    }
}

