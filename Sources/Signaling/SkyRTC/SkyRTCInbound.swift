/// A client message as the server reads it: like `SkyRTCClientMessage`, except that the SDP of an
/// `__offer`/`__answer` stays JSON text. The server never looks inside it, so it is validated in
/// one pass and forwarded as the client's own bytes whenever they are already what JSON.stringify
/// would write (always, for a browser); otherwise it is parsed and written the exact way. Either
/// way the bytes on the wire are those of the original server, `JSON.stringify(JSON.parse(x))`.
enum SkyRTCInbound: Equatable, Sendable {
    case message(SkyRTCClientMessage)
    /// `__offer`/`__answer` (`eventName`) to `target`, the SDP object as canonical JSON text.
    case description(eventName: String, target: SocketID, sdpJSON: ArraySlice<UInt8>)

    /// Everything `SkyRTCClientMessage.decode(eventName:data:)` reads, and the SDP as text.
    static let selection = JSONParser.Selection(
        topLevel: ["eventName", "data"], outer: "data",
        outerMembers: ["socketId", "room", "name", "resume", "resumable", "candidate", "label", "sdpMLineIndex", "id", "sdpMid", "audioMuted", "videoOn"],
        inner: "sdp")

    /// Same checks and error codes as `SkyRTCClientMessage.decode`, in the same order.
    /// `isBinary`: a binary frame was not checked for UTF-8 by the frame parser (RFC 6455 §8.1 is
    /// about text frames), so it is checked here.
    static func decode(_ bytes: [UInt8], isBinary: Bool) throws(SignalingError) -> SkyRTCInbound {
        // The scanner skips string bytes without decoding them, so they must be UTF-8 already.
        guard !isBinary || UTF8Validation.isValid(bytes) else { throw .badMessage(.badJSON, "not JSON: not valid UTF-8") }
        let parsed: (value: JSONValue, raw: JSONParser.RawValue?)
        do {
            parsed = try JSONParser.parse(bytes, selecting: selection)
        } catch {
            throw SkyRTCClientMessage.badJSON(error)
        }
        let (eventName, data) = try SkyRTCClientMessage.envelope(parsed.value)
        guard eventName == "__offer" || eventName == "__answer" else {
            return .message(try SkyRTCClientMessage.decode(eventName: eventName, data: data))
        }
        let target = try SkyRTCClientMessage.targetID(data, eventName)
        // `data` is an object here (envelope), so `raw` is its last `sdp` member, if any.
        guard let raw = parsed.raw, !bytes[raw.range].elementsEqual("null".utf8) else {
            throw .badMessage(.badField, "\(eventName): missing sdp")
        }
        let text = bytes[raw.range]
        if raw.isCanonical {
            return .description(eventName: eventName, target: target, sdpJSON: text)
        }
        // Not as JSON.stringify writes it (whitespace, `\/`, `\u00e9`, `1e3`, duplicate keys…):
        // parse and write it back, which gives exactly JSON.stringify's text.
        do {
            let value = try JSONParser.parse(Array(text))
            return .description(eventName: eventName, target: target, sdpJSON: JSONWriter.bytes(value)[...])
        } catch {
            throw SkyRTCClientMessage.badJSON(error)
        }
    }
}
