/// The frames this client sends (mainpage.dox: the Janus API over WebSocket carries `session_id` and
/// `handle_id` in the body of each request), written with the package's JSONWriter.
enum JanusRequest {
    static func createSession(transaction: String) -> [UInt8] {
        JSONWriter.bytes(.object([("janus", .string("create")), ("transaction", .string(transaction))]))
    }

    static func attach(session: UInt64, transaction: String) -> [UInt8] {
        JSONWriter.bytes(.object([("janus", .string("attach")), ("plugin", .string(JanusInbound.plugin)),
                                  ("session_id", id(session)), ("transaction", .string(transaction))]))
    }

    static func keepalive(session: UInt64, transaction: String) -> [UInt8] {
        JSONWriter.bytes(.object([("janus", .string("keepalive")), ("session_id", id(session)), ("transaction", .string(transaction))]))
    }

    static func destroy(session: UInt64, transaction: String) -> [UInt8] {
        JSONWriter.bytes(.object([("janus", .string("destroy")), ("session_id", id(session)), ("transaction", .string(transaction))]))
    }

    /// A plugin message: `body` is the VideoRoom request, `jsep` our SDP if any.
    static func message(session: UInt64, handle: UInt64, transaction: String, body: [(String, JSONValue)],
                        jsep: (type: String, sdp: String)? = nil) -> [UInt8] {
        var members: [(String, JSONValue)] = [("janus", .string("message")), ("session_id", id(session)),
                                               ("handle_id", id(handle)), ("transaction", .string(transaction)),
                                               ("body", .object(body))]
        if let jsep { members.append(("jsep", .object([("type", .string(jsep.type)), ("sdp", .string(jsep.sdp))]))) }
        return JSONWriter.bytes(.object(members))
    }

    /// Ids were checked to be in 1...2^53 (or are our configuration's, checked at `.connected`).
    static func id(_ value: UInt64) -> JSONValue { .integer(Int64(clamping: value)) }

    /// `streams: [{feed}]`: every stream of each publisher.
    static func feeds(_ feeds: [UInt64]) -> JSONValue { .array(feeds.map { .object([("feed", id($0))]) }) }
}
