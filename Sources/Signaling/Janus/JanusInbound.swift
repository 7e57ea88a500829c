/// One text frame from Janus with its envelope checked: the Janus API's own messages (mainpage.dox: `success`,
/// `ack`, `error`, `event`, and the handle events `webrtcup`, `media`, `slowlink`, `hangup`, `detached`,
/// `timeout`). The plugin's `data` is left as JSON for `JanusVideoRoomEvent`.
enum JanusInbound: Equatable {
    /// An SDP Janus sent (`jsep`), type and text checked.
    struct JSEP: Equatable {
        var isOffer: Bool
        var sdp: String
    }

    case success(transaction: String, id: UInt64?, sender: UInt64?, data: JSONValue?)
    case ack(transaction: String)
    case error(transaction: String?, code: Int, reason: String)
    /// A plugin event: `data` is `plugindata.data` of the VideoRoom plugin.
    case event(transaction: String?, sender: UInt64, data: JSONValue, jsep: JSEP?)
    case webrtcUp(sender: UInt64)
    case media(sender: UInt64, kind: String, receiving: Bool)
    case slowLink(sender: UInt64, uplink: Bool, lost: Int?)
    case hangup(sender: UInt64, reason: String)
    case detached(sender: UInt64)
    case timeout(session: UInt64)
    /// Anything else Janus may send (`keepalive`, `trickle`, `server_info`...): logged, not acted on.
    case other(String)

    static let plugin = "janus.plugin.videoroom"

    /// The message and the session it names (nil when it names none).
    static func parse(_ bytes: [UInt8], limits: JanusLimits) throws(JanusDropped) -> (JanusInbound, session: UInt64?) {
        guard bytes.count <= limits.maxMessageBytes else {
            throw JanusDropped("\(bytes.count) bytes, over the \(limits.maxMessageBytes)-byte limit")
        }
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, maxDepth: limits.maxJSONDepth)
        } catch {
            throw JanusDropped("not JSON (\(error.reason) at byte \(error.offset))")
        }
        guard case .object = root else { throw JanusDropped("not a JSON object") }
        let kind = try JanusChecked.text(root["janus"], "janus", maxBytes: 32)
        let session = try JanusChecked.optionalID(root["session_id"], "session_id")
        let transaction = try optionalTransaction(root["transaction"], limits: limits)
        func sender() throws(JanusDropped) -> UInt64 { try JanusChecked.id(root["sender"], "sender") }
        func required() throws(JanusDropped) -> String {
            guard let transaction else { throw JanusDropped("'\(kind)' without a transaction") }
            return transaction
        }
        switch kind {
        case "success":
            let id = try JanusChecked.optionalID(root["data"]?["id"], "data.id")
            let data = try root["plugindata"].map { (p: JSONValue) throws(JanusDropped) -> JSONValue in try pluginData(p) }
            return (.success(transaction: try required(), id: id, sender: try JanusChecked.optionalID(root["sender"], "sender"),
                             data: data), session)
        case "ack":
            return (.ack(transaction: try required()), session)
        case "error":
            let code = try JanusChecked.code(root["error"]?["code"], "error.code")
            let reason = (try? JanusChecked.text(root["error"]?["reason"], "error.reason", maxBytes: limits.maxMessageBytes)) ?? ""
            return (.error(transaction: transaction, code: code, reason: reason), session)
        case "event":
            guard let plugindata = root["plugindata"] else { throw JanusDropped("an event without plugindata") }
            let jsep = try root["jsep"].map { (j: JSONValue) throws(JanusDropped) -> JSEP in try parseJSEP(j) }
            return (.event(transaction: transaction, sender: try sender(), data: try pluginData(plugindata), jsep: jsep), session)
        case "webrtcup":
            return (.webrtcUp(sender: try sender()), session)
        case "media":
            let type = try JanusChecked.text(root["type"], "type", maxBytes: 16)
            guard let receiving = JanusChecked.bool(root["receiving"]) else { throw JanusDropped("media without 'receiving'") }
            return (.media(sender: try sender(), kind: type, receiving: receiving), session)
        case "slowlink":
            var lost: Int?
            if case .integer(let n)? = root["lost"], n >= 0, n <= 1_000_000_000 { lost = Int(n) }
            return (.slowLink(sender: try sender(), uplink: JanusChecked.bool(root["uplink"]) ?? false, lost: lost), session)
        case "hangup":
            let reason = (try? JanusChecked.text(root["reason"], "reason", maxBytes: limits.maxMessageBytes)) ?? ""
            return (.hangup(sender: try sender(), reason: reason), session)
        case "detached":
            return (.detached(sender: try sender()), session)
        case "timeout":
            guard let session else { throw JanusDropped("timeout without a session_id") }
            return (.timeout(session: session), session)
        default:
            return (.other(kind), session)
        }
    }

    private static func optionalTransaction(_ value: JSONValue?, limits: JanusLimits) throws(JanusDropped) -> String? {
        if value == nil { return nil }
        return try JanusChecked.text(value, "transaction", maxBytes: limits.maxTransactionBytes)
    }

    /// `plugindata` of the VideoRoom: its `data` object.
    private static func pluginData(_ value: JSONValue) throws(JanusDropped) -> JSONValue {
        let name = try JanusChecked.text(value["plugin"], "plugindata.plugin", maxBytes: 64)
        guard name == plugin else { throw JanusDropped("plugindata from another plugin") }
        guard let data = value["data"], case .object = data else { throw JanusDropped("plugindata without a data object") }
        return data
    }

    private static func parseJSEP(_ value: JSONValue) throws(JanusDropped) -> JSEP {
        let type = try JanusChecked.text(value["type"], "jsep.type", maxBytes: 16)
        guard type == "offer" || type == "answer" else { throw JanusDropped("jsep of type other than offer or answer") }
        guard case .string(let sdp)? = value["sdp"], !sdp.isEmpty else { throw JanusDropped("jsep without an sdp") }
        return JSEP(isOffer: type == "offer", sdp: sdp)
    }
}
