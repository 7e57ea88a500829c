import Testing
@testable import Signaling

/// The client's session timers against a real socket: a server that completes the handshake and then says nothing
/// (`StuckServer`) never answers a close or a ping, so the client must give up on it by itself.
@Suite(.serialized) struct ClientTimerTests {
    @Test(.timeLimit(.minutes(1)))
    func aCloseTheServerNeverAnswersEndsAtTheCloseTimeout() throws {
        let server = StuckServer()
        var options = WebSocketClientOptions()
        options.closeTimeout = 0.3
        let client = try WebSocketClient(url: server.url, options: options)
        let t0 = MonotonicClock.now()
        client.close(.normal, reason: "bye")
        #expect(throws: SignalingError.closed) { try client.send(text: "after the close") }
        guard case .close(let code, _) = try client.receive(timeout: 3) else {
            Issue.record("no close after the close timeout")
            return
        }
        let waited = MonotonicClock.now() - t0
        // §7.1.5: no close frame from the server, so 1006.
        #expect(code == .abnormal)
        #expect(waited >= 0.25 && waited < 2, "ended after \(waited) s")
        #expect(client.isClosed)
    }

    @Test(.timeLimit(.minutes(1)))
    func withKeepaliveASilentServerIsDroppedAfterTwiceThePingInterval() throws {
        let server = StuckServer()
        var options = WebSocketClientOptions()
        options.pingInterval = 0.2
        let client = try WebSocketClient(url: server.url, options: options)
        let t0 = MonotonicClock.now()
        guard case .close(let code, let reason) = try client.receive(timeout: 3) else {
            Issue.record("no close for a silent server")
            return
        }
        let waited = MonotonicClock.now() - t0
        #expect(code == .abnormal && reason.contains("no frame"), "\(reason)")
        #expect(waited >= 0.35 && waited < 2, "dropped after \(waited) s")
    }
}
