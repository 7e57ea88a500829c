@testable import Signaling

/// Bytes → Signaling's JSON parser, then both SkyRTC decoders (what a server reads from a client, what a client
/// reads from a server). Whatever parses must write back and parse to the same value.
enum JSONTarget {
    static func run(_ bytes: [UInt8]) {
        if let value = try? JSONParser.parse(bytes) {
            let again = try? JSONParser.parse(Array(JSONWriter.string(value).utf8))
            precondition(again == value, "JSON round trip changed the value")
        }
        _ = try? SkyRTCClientMessage.decode(bytes)
        _ = try? SkyRTCServerMessage.decode(bytes)
    }
}
