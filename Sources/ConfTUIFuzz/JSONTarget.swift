@testable import Signaling

/// Target 7: bytes → Signaling's JSON parser, then the SkyRTC decoders: the server's (`SkyRTCInbound`, which reads
/// a client's frame in one selecting pass, as a text and as a binary frame) and the client's. Properties checked:
/// whatever parses writes back and parses to the same value; the server's one-pass decoder agrees with the full
/// `SkyRTCClientMessage.decode` (its documented contract: same checks, same results). The same bytes as a peer's
/// data-channel message (`SkyRTCPeerMessage`): what parses as a file signal encodes and parses back to itself, and a
/// chunk's data goes through the data-URL decoder.
enum JSONTarget {
    static func run(_ bytes: [UInt8]) {
        if let value = try? JSONParser.parse(bytes) {
            let again = try? JSONParser.parse(Array(JSONWriter.string(value).utf8))
            precondition(again == value, "JSON round trip changed the value")
        }
        let full = try? SkyRTCClientMessage.decode(bytes)
        // As a text frame it has passed the frame parser's UTF-8 check; as binary it is checked here: comparing
        // the binary reading keeps invalid UTF-8 (which no text frame can carry) out of the comparison.
        _ = try? SkyRTCInbound.decode(bytes, isBinary: false)
        let inbound = try? SkyRTCInbound.decode(bytes, isBinary: true)
        if case .message(let m)? = inbound { precondition(full == m, "server's one-pass decode disagrees with the full decode") }
        if full != nil, String(validating: bytes, as: UTF8.self) != nil {
            precondition(inbound != nil, "the full decode accepts what the server's one-pass decode refuses")
        }
        _ = try? SkyRTCServerMessage.decode(bytes)
        peerMessage(bytes)
    }

    static func peerMessage(_ bytes: [UInt8]) {
        guard let message = try? SkyRTCPeerMessage.parse(bytes) else { return }
        guard case .file(let signal) = message else { return }
        precondition((try? SkyRTCPeerMessage.parse(message.jsonBytes)) == message, "peer message round trip changed it")
        if case .chunk(_, let data, let last, _) = signal {
            var decoder = DataURLStreamDecoder()
            var out: [UInt8] = []
            _ = try? decoder.decode(data.utf8, into: &out)
            if last { _ = try? decoder.finish(into: &out) }
        }
    }
}
