/// One text message on a peer's SkyRTC data channel: chat, or one step of a file transfer.
///
/// The original client parses each message with `JSON.parse` and, unless `type` is `"__file"`, shows `data`
/// as chat, whatever `type` says. Here the same, with its gaps filled so nothing a peer sends is silently lost
/// or shown as `undefined`: `data` that is a string is shown as it is, any other `data` as its JSON text, and a
/// message that is not a JSON object, or an object without `data`, as the whole message text (the original
/// would throw or show "undefined"). Terminal safety is the display's job: chat text is untrusted either way.
public enum SkyRTCPeerMessage: Equatable, Sendable {
    case chat(String)
    case file(SkyRTCFileSignal)

    /// The largest message accepted by default: the max-message-size conftui announces for its channels.
    public static let defaultMaxMessageSize = 256 * 1024
    /// RFC 8259 numbers above 2^53 are not exact in JavaScript, so no original client can state a larger size.
    public static let maxFileSize: Int64 = 1 << 53
    /// The original passes the browser's `File.name`; 255 bytes is what file systems allow in one name.
    public static let maxNameBytes = 255
    /// A data channel message nests at most this deep; the sub-protocol needs 2.
    static let maxDepth = 8

    /// Parses one text message, refusing it above `maxMessageSize` bytes before reading any of it.
    public static func parse(_ bytes: [UInt8], maxMessageSize: Int = defaultMaxMessageSize)
        throws(SkyRTCPeerMessageError) -> SkyRTCPeerMessage {
        guard bytes.count <= maxMessageSize else { throw .tooLarge(bytes.count, limit: maxMessageSize) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        return try interpret(try? JSONParser.parse(bytes, maxDepth: maxDepth), text: text)
    }

    /// The meaning of a message already parsed (`value`, nil when `text` is not JSON), for a caller that parsed it
    /// itself to tell JSON from not-JSON.
    static func interpret(_ value: JSONValue?, text: String) throws(SkyRTCPeerMessageError) -> SkyRTCPeerMessage {
        guard let value, case .object = value else { return .chat(text) }
        guard value["type"]?.stringValue == "__file" else {
            switch value["data"] {
            case .string(let s)?: return .chat(s)
            case let other?: return .chat(JSONWriter.string(other))
            case nil: return .chat(text)
            }
        }
        return .file(try fileSignal(value))
    }

    private static func fileSignal(_ value: JSONValue) throws(SkyRTCPeerMessageError) -> SkyRTCFileSignal {
        guard let signal = value["signal"]?.stringValue else { throw .badField("signal") }
        switch signal {
        case "ask":
            let id = try sendId(value)
            guard let name = value["name"]?.stringValue, name.utf8.count <= maxNameBytes else { throw .badField("name") }
            guard let size = value["size"]?.integerValue, size >= 0, Int64(size) <= maxFileSize else { throw .badField("size") }
            return .ask(sendId: id, name: name, size: Int64(size))
        case "accept": return .accept(sendId: try sendId(value))
        case "refuse": return .refuse(sendId: try sendId(value))
        case "chunk":
            let id = try sendId(value)
            guard let data = value["data"]?.stringValue else { throw .badField("data") }
            guard case .bool(let last)? = value["last"] else { throw .badField("last") }
            var percent: Double?
            switch value["percent"] {
            case nil, .null?: percent = nil
            case .integer(let i)?: percent = Double(i)
            case .number(let d)?: percent = d
            default: throw .badField("percent")
            }
            if let p = percent, !(0...100).contains(p) { throw .badField("percent") }
            return .chunk(sendId: id, data: data, last: last, percent: percent)
        default:
            throw .ignoredSignal(signal)
        }
    }

    private static func sendId(_ value: JSONValue) throws(SkyRTCPeerMessageError) -> FileSendID {
        guard let text = value["sendId"]?.stringValue, let id = FileSendID(text) else { throw .badField("sendId") }
        return id
    }

    /// The message as the original browser client writes it: its keys in the order of the JS object literals
    /// (`JSON.stringify` keeps insertion order), so a capture of either side reads the same.
    public var json: JSONValue {
        let file = JSONValue.string("__file")
        switch self {
        case .chat(let text):
            return .object([("type", .string("__msg")), ("data", .string(text))])
        case .file(.ask(let id, let name, let size)):
            return .object([("name", .string(name)), ("size", .integer(size)), ("sendId", .string(id.rawValue)),
                            ("type", file), ("signal", .string("ask"))])
        case .file(.accept(let id)):
            return .object([("type", file), ("signal", .string("accept")), ("sendId", .string(id.rawValue))])
        case .file(.refuse(let id)):
            return .object([("type", file), ("signal", .string("refuse")), ("sendId", .string(id.rawValue))])
        case .file(.chunk(let id, let data, let last, let percent)):
            var members: [(String, JSONValue)] = [("type", file), ("signal", .string("chunk")), ("sendId", .string(id.rawValue))]
            // The original sets `last` before `data` on a middle chunk and after it on the final one.
            if last {
                members += [("data", .string(data)), ("last", .bool(true))]
            } else {
                members += [("last", .bool(false)), ("data", .string(data))]
            }
            if let percent { members.append(("percent", .number(percent))) }
            return .object(members)
        }
    }

    public var jsonText: String { JSONWriter.string(json) }
    public var jsonBytes: [UInt8] { JSONWriter.bytes(json) }
}
