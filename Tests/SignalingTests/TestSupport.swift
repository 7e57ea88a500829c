import Foundation
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 at a port the kernel picks, for the tests' own scripted servers; `configure`
/// sets socket options before it binds.
func loopbackListener(configure: (Int32) -> Void = { _ in }) -> (fd: Int32, port: UInt16) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    configure(listener)
    var sin = sockaddr_in()
    sin.sin_family = sa_family_t(AF_INET)
    sin.sin_addr = SocketOptions.ipv4("127.0.0.1")!
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) } }
    listen(listener, 1)
    _ = withUnsafeMutablePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) } }
    return (listener, UInt16(bigEndian: sin.sin_port))
}

/// Starts servers on 127.0.0.1:0 with short timeouts, so every test is fast and self-contained.
enum TestServer {
    static func start(log: SignalingLog = .discard, _ tweak: (inout SignalingServerConfiguration) -> Void = { _ in }) throws -> SignalingServer {
        var config = SignalingServerConfiguration()
        config.host = "127.0.0.1"
        config.port = 0
        config.handshakeTimeout = 2
        config.pingInterval = 5
        config.closeTimeout = 0.5
        // Test clients often just close their socket (no close frame), and the tests expect the member gone at once;
        // the resume tests set a grace of their own.
        config.resumeGrace = 0
        tweak(&config)
        let server = try SignalingServer(config, log: log)
        server.start()
        return server
    }

    /// Polls `condition` every 10 ms for up to `timeout` seconds.
    static func eventually(_ timeout: Double = 3, _ condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        while MonotonicClock.now() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// The server has forgotten every connection, socket and room.
    static func drained(_ server: SignalingServer) -> Bool {
        eventually(3) {
            let s = server.stats
            return s.connections == 0 && s.webSockets == 0 && s.rooms == 0 && s.joined == 0
        }
    }

    /// Proof that the server still serves well-behaved clients: two fresh clients join a room and
    /// one forwards an offer to the other, exact text checked.
    static func stillServes(_ server: SignalingServer) throws -> Bool {
        let room = "check-\(UInt32.random(in: 0...UInt32.max))"
        let a = try SkyRTCClient(url: server.webSocketURL)
        let b = try SkyRTCClient(url: server.webSocketURL)
        defer { a.close(); b.close() }
        let pa = try a.join(room: room).peers
        let pb = try b.join(room: room).peers
        guard pb.connections == [pa.you], try a.next(timeout: 3) == .newPeer(pb.you, name: nil) else { return false }
        try b.send(.offer(SkyRTCDescription(sdp: .object([("type", .string("offer")), ("sdp", .string("v=0\r\n"))]), socketId: pa.you)))
        guard case .text(let text) = try a.webSocket.receive(timeout: 3) else { return false }
        return text == #"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"v=0\r\n"},"socketId":"\#(pb.you)"}}"#
    }
}

/// A hand-driven TCP client for hostile cases: raw bytes out, frames in, with the parser in client role.
final class RawClient {
    let fd: Int32
    private var pending: [UInt8] = []
    private var parser = WebSocketFrameParser(role: .client, maxMessageSize: 64 << 20)

    /// `source` binds the client's end to another loopback address (127.0.0.2, ...): Linux routes
    /// all of 127/8 to the loopback interface, so tests can play several client addresses.
    init(port: UInt16, receiveBuffer: Int32? = nil, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SignalingError.system(call: "socket", errno: errno) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr = SocketOptions.ipv4(source)!
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw SignalingError.system(call: "bind", errno: errno) }
        }
        if var size = receiveBuffer {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        sin.sin_addr = SocketOptions.ipv4("127.0.0.1")!
        let rc = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw SignalingError.system(call: "connect", errno: errno) }
    }

    deinit { close(fd) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) {
        send(WebSocketFrameWriter.frame(opcode, payload: payload, fin: fin, maskKey: masked ? WebSocketFrameWriter.randomMaskKey() : nil))
    }

    /// Reads whatever arrives within `timeout`; nil on EOF/reset with nothing read.
    private func readSome(timeout: Double) -> [UInt8]? {
        guard SocketOptions.wait(fd, events: Int16(POLLIN), timeout: timeout) else { return [] }
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buf, buf.count, 0)
        return n > 0 ? Array(buf[0..<n]) : nil
    }

    /// The HTTP response head (and body bytes, if any, until EOF or timeout) as text.
    func readHTTPResponse(timeout: Double = 3) -> String {
        var all: [UInt8] = []
        let deadline = MonotonicClock.now() + timeout
        while MonotonicClock.now() < deadline {
            guard let chunk = readSome(timeout: deadline - MonotonicClock.now()) else { break }
            all += chunk
            if let end = HTTPRequestParser.headEnd(all), String(decoding: all[0..<end], as: UTF8.self).contains("101 Switching") {
                pending = Array(all[end...])
                parser.feed(pending)
                return String(decoding: all[0..<end], as: UTF8.self)
            }
        }
        return String(decoding: all, as: UTF8.self)
    }

    /// Sends an upgrade request and returns whether the server answered 101.
    func upgrade(path: String = "/", host: String = "127.0.0.1", headers: [String] = []) -> Bool {
        send(Self.upgradeRequest(path: path, host: host, headers: headers))
        return readHTTPResponse().hasPrefix("HTTP/1.1 101 ")
    }

    /// `headers` are extra header lines ("Origin: http://x"), written as given.
    static func upgradeRequest(path: String = "/", host: String = "127.0.0.1", headers: [String] = []) -> String {
        "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(WebSocketAcceptKey.randomKey())\r\nSec-WebSocket-Version: 13\r\n"
            + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    /// Upgrades and joins `room`; returns the `_peers` text (nil if either failed). `resumable`: as conftui's client
    /// joins, so the server keeps the place when the connection drops.
    func upgradeAndJoin(_ room: String, resumable: Bool = false) -> String? {
        guard upgrade() else { return nil }
        let hint = resumable ? #","resumable":true"# : ""
        sendFrame(.text, Array(#"{"eventName":"__join","data":{"room":"\#(room)"\#(hint)}}"#.utf8))
        guard case .message(.text(let text)) = next(), text.hasPrefix(#"{"eventName":"_peers""#) else { return nil }
        return text
    }

    enum Received: Equatable {
        case message(WebSocketMessage)
        case timeout
        case closed
    }

    func next(timeout: Double = 3) -> Received {
        let deadline = MonotonicClock.now() + timeout
        while true {
            if let m = try? parser.next() { return .message(m) }
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else { return .timeout }
            guard let chunk = readSome(timeout: remaining) else { return .closed }
            parser.feed(chunk)
        }
    }

    /// Reads and discards until the server closes the TCP connection (true) or `timeout` passes.
    func waitForEOF(timeout: Double = 3) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        while MonotonicClock.now() < deadline {
            if readSome(timeout: deadline - MonotonicClock.now()) == nil { return true }
        }
        return false
    }

    /// The close code of the next close frame, skipping other frames; nil if none came.
    func closeCode(timeout: Double = 3) -> UInt16? {
        while true {
            switch next(timeout: timeout) {
            case .message(.close(let code, _)): return code.rawValue
            case .message: continue
            case .timeout, .closed: return nil
            }
        }
    }
}

extension SkyRTCClient {
    /// The next text frame's exact JSON text.
    func nextText(timeout: Double = 3) throws -> String {
        while true {
            switch try webSocket.receive(timeout: timeout) {
            case .text(let t): return t
            case .close(let code, let reason): throw SignalingError.closedByPeer(code: code.rawValue, reason: reason)
            default: continue
            }
        }
    }
}
