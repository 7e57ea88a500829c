import Foundation
import Synchronization
import Testing
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket "server" that completes the opening handshake and then never reads again, with a small receive
/// buffer (SO_RCVBUF, inherited from the listening socket) so the client's writes back up at once.
final class StuckServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let accepted = AcceptedSocket()

    final class AcceptedSocket: Sendable {
        let fd = Atomic<Int32>(-1)
    }

    init() {
        let (listener, port) = loopbackListener { fd in
            var small: Int32 = 4096
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        }
        self.listener = listener
        self.port = port
        let accepted = self.accepted
        Thread {
            let fd = accept(listener, nil, nil)
            accepted.fd.store(fd, ordering: .releasing)
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buf, buf.count, 0)
            let request = String(decoding: buf[0..<max(0, n)], as: UTF8.self)
            let key = request.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }?
                .split(separator: ":")[1].trimmingCharacters(in: .whitespaces) ?? ""
            let reply = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(WebSocketAcceptKey.accept(forKey: key))\r\n\r\n"
            _ = send(fd, reply, reply.utf8.count, 0)
        }.start()
    }

    deinit {
        close(listener)
        let fd = accepted.fd.load(ordering: .acquiring)
        if fd >= 0 { close(fd) }
    }

    var url: String { "ws://127.0.0.1:\(port)/" }
}

@Suite(.serialized) struct ClientSendQueueTests {
    @Test(.timeLimit(.minutes(1)))
    func sendsNeverBlockAndAFullQueueFailsTheConnection() throws {
        let server = StuckServer()
        var options = WebSocketClientOptions()
        options.maxQueuedBytes = 256 << 10
        let client = try WebSocketClient(url: server.url, options: options)
        let message = String(repeating: "x", count: 16 << 10)
        var slowest = 0.0
        var sent = 0
        var refusal: SignalingError?
        // The kernel's buffers take some; the queue the rest, until it is full: then the send fails at once.
        while refusal == nil && sent < 4096 {
            let t0 = MonotonicClock.now()
            do {
                try client.send(text: message)
                sent += 1
            } catch {
                refusal = error
            }
            slowest = max(slowest, MonotonicClock.now() - t0)
        }
        print("send queue: \(sent) sends of 16 KiB queued before refusal, slowest send \(String(format: "%.2f", slowest * 1000)) ms")
        guard case .sendQueueFull = try #require(refusal) else {
            Issue.record("expected sendQueueFull, got \(String(describing: refusal))")
            return
        }
        #expect(slowest < 0.1, "a send waited \(slowest) s")
        #expect(throws: SignalingError.closed) { try client.send(text: "after") }
        // The connection is failed, and the reader says so (1006).
        guard case .close(let code, _) = try client.receive(timeout: 3) else {
            Issue.record("no close after the queue overflowed")
            return
        }
        #expect(code == .abnormal)
        #expect(client.isClosed)
    }

    @Test(.timeLimit(.minutes(1)))
    func outputThatMakesNoProgressFailsTheConnection() throws {
        let server = StuckServer()
        var options = WebSocketClientOptions()
        options.writeStallTimeout = 0.5
        options.maxQueuedBytes = 16 << 20
        let client = try WebSocketClient(url: server.url, options: options)
        // More than the kernel's buffers take on loopback (the send buffer grows to a few MiB), less than the
        // queue: the rest waits, then stalls.
        let message = String(repeating: "y", count: 64 << 10)
        for _ in 0..<128 { try client.send(text: message) }
        let t0 = MonotonicClock.now()
        guard case .close(let code, let reason) = try client.receive(timeout: 5) else {
            Issue.record("no close after the stall")
            return
        }
        let waited = MonotonicClock.now() - t0
        #expect(code == .abnormal && reason.contains("stalled"), "\(reason)")
        #expect(waited >= 0.3 && waited < 3, "failed after \(waited) s")
    }
}
