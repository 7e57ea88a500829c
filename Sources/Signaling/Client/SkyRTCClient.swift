/// A typed SkyRTC client over `WebSocketClient`: what `conftui bot` and `conftui join` use to talk
/// to a SkyRTC server (ours or the original).
public final class SkyRTCClient: Sendable {
    public let webSocket: WebSocketClient

    public init(url: String, options: WebSocketClientOptions = .init()) throws(SignalingError) {
        webSocket = try WebSocketClient(url: url, options: options)
    }

    /// Sends one message as a text frame.
    public func send(_ message: SkyRTCClientMessage) throws(SignalingError) {
        try webSocket.send(text: message.jsonText)
    }

    /// `__join`, then waits for `_peers` (always the first reply to a join, docs/skyrtc-protocol.md §3).
    /// Messages that arrive before it are returned in `earlier` so none is lost. `name` is the
    /// display name others see (an extension the original server drops; see `SkyRTCDisplayName`).
    /// A server that refuses the join for one of its caps (`room_full`, `too_many_rooms`) sends no
    /// `_peers`: that `_error` is thrown as `.badMessage` at once rather than waiting for the timeout.
    /// `resume` is the token of an earlier `_peers` (conftui's server then keeps our socketId); `resumable` says we
    /// would reconnect with it, so the server keeps our place a while when the connection drops.
    public func join(room: String, name: String? = nil, resume: String? = nil, resumable: Bool = false,
                     timeout: Double = 5) throws(SignalingError) -> (peers: SkyRTCPeers, earlier: [SkyRTCServerMessage]) {
        try send(.join(SkyRTCJoin(room: room, name: name, resume: resume, resumable: resumable ? true : nil)))
        var earlier: [SkyRTCServerMessage] = []
        let deadline = MonotonicClock.now() + timeout
        while true {
            let message = try next(timeout: max(0, deadline - MonotonicClock.now()))
            if case .peers(let peers) = message { return (peers, earlier) }
            if case .error(let e) = message, e.code == .roomFull || e.code == .tooManyRooms {
                throw .badMessage(e.code, e.message)
            }
            earlier.append(message)
        }
    }

    /// The next server message. Throws `.closedByPeer` when the server closed the connection.
    public func next(timeout: Double) throws(SignalingError) -> SkyRTCServerMessage {
        while true {
            switch try webSocket.receive(timeout: timeout) {
            case .text(let text): return try SkyRTCServerMessage.decode(Array(text.utf8))
            case .binary(let bytes): return try SkyRTCServerMessage.decode(bytes)
            case .close(let code, let reason): throw .closedByPeer(code: code.rawValue, reason: reason)
            case .ping, .pong: continue
            }
        }
    }

    public func close() { webSocket.close() }
}
