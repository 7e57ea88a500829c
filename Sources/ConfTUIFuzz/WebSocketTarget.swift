@testable import Signaling

/// Target 6, WebSocket from both ends: the session in the server role (a client's masked frames) and in the client
/// role (a server's unmasked frames), the input fed in fuzzer-chosen pieces as TCP may deliver them, with the clock
/// moving on between pieces (pings, the rate limit); plus the server's HTTP upgrade request parser, which sees the
/// same bytes first on a real connection.
enum WebSocketTarget {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        let role: WebSocketSession.Role = control & 1 == 0 ? .server : .client
        // A small limit sometimes, so the 1009 path is reached within small inputs.
        let limit = control & 2 == 0 ? 1 << 20 : Int(control >> 2) * 16
        let cut = Int(input.byte())
        let stream = input.rest()
        _ = HTTPRequestParser.parse(stream, maxHeadBytes: 8192)
        var now = MonotonicInstant(seconds: 0)
        var session = WebSocketSession(role: role, maxMessageSize: limit, timers: .init(pingInterval: 1, closeTimeout: 1),
                                       rateLimit: MessageRateLimit(perSecond: 50, burst: 8, refusalsBeforeClose: 16, now: now.seconds),
                                       now: now)
        var output: [UInt8] = []
        var offset = 0
        while offset < stream.count {
            let end = cut == 0 ? stream.count : min(stream.count, offset + cut)
            session.receive(stream[offset..<end])
            offset = end
            while let event = session.nextEvent(now: now, into: &output) {
                switch event {
                case .message(let bytes, let isText):
                    // Each message is what the client reads next: decode it as SkyRTC, as the client does.
                    if isText { _ = try? SkyRTCServerMessage.decode(bytes) }
                case .pong, .throttled:
                    break
                case .closed, .protocolError, .dropped:
                    return   // §7.1.7: the connection is over; nothing more is read.
                }
            }
            now = now + 0.25
            if session.expire(now: now, into: &output) != nil { return }
            _ = session.bufferedByteCount
            output.removeAll(keepingCapacity: true)
        }
    }
}
