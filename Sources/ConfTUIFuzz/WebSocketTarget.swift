@testable import Signaling

/// Target 6, WebSocket framing from both ends: the server's parser (a client's masked frames) and the client's
/// (a server's unmasked frames), the input fed in fuzzer-chosen pieces as TCP may deliver them; plus the server's
/// HTTP upgrade request parser, which sees the same bytes first on a real connection.
enum WebSocketTarget {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        let role: WebSocketFrameParser.Role = control & 1 == 0 ? .server : .client
        // A small limit sometimes, so the 1009 path is reached within small inputs.
        let limit = control & 2 == 0 ? 1 << 20 : Int(control >> 2) * 16
        let cut = Int(input.byte())
        let stream = input.rest()
        _ = HTTPRequestParser.parse(stream, maxHeadBytes: 8192)
        var parser = WebSocketFrameParser(role: role, maxMessageSize: limit)
        var offset = 0
        var messages = 0
        while offset < stream.count {
            let end = cut == 0 ? stream.count : min(stream.count, offset + cut)
            parser.feed(stream[offset..<end])
            offset = end
            do {
                while let message = try parser.next() {
                    messages += 1
                    // Each message is what the client reads next: decode it as SkyRTC, as the client does.
                    if case .text(let text) = message { _ = try? SkyRTCServerMessage.decode(Array(text.utf8)) }
                }
            } catch {
                return   // §7.1.7: the connection is failed; the parser is not used again.
            }
            _ = parser.bufferedByteCount
        }
    }
}
