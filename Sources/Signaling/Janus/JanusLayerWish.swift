/// conftui's one message of its own on a Janus room's data channels: which simulcast encoding this participant takes
/// from every publisher, `{"type":"__layers","take":"low"}` (or `"full"`). Sent on the publication's channel, so the
/// server relays it to everyone; a publisher stops the encoding nobody takes (docs/janus.md, "Simulcast").
///
/// Anything else on the channel is chat or a file, as the SkyRTC data-channel protocol says; a message that is almost
/// this one (another `take`, more members, too long) is not this one and goes on as chat, as the original would show it.
public enum JanusLayerWish: String, Sendable, Equatable {
    case full
    case low

    /// The message is under 40 bytes; one far longer is somebody else's.
    static let maxBytes = 128

    /// The wish `bytes` carry, or nil when they are not this message.
    public static func parse(_ bytes: [UInt8]) -> JanusLayerWish? {
        guard bytes.count <= maxBytes, let value = try? JSONParser.parse(bytes, maxDepth: 2),
              case .object(let members) = value, members.count == 2,
              value["type"]?.stringValue == "__layers", let take = value["take"]?.stringValue else { return nil }
        return JanusLayerWish(rawValue: take)
    }

    /// The message's text.
    public var message: [UInt8] {
        Array(JSONWriter.string(.object([("type", .string("__layers")), ("take", .string(rawValue))])).utf8)
    }
}
