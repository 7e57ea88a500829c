/// A message a client sends to the server (docs/skyrtc-protocol.md §3, client → server).
public enum SkyRTCClientMessage: Equatable, Sendable {
    case join(SkyRTCJoin)
    /// `socketId` is the target peer.
    case offer(SkyRTCDescription)
    case answer(SkyRTCDescription)
    case iceCandidate(SkyRTCCandidate)
    /// Our extension: the sender's microphone and camera state, for the others' tiles.
    case mediaState(SkyRTCMediaState)

    public var eventName: String {
        switch self {
        case .join: return "__join"
        case .offer: return "__offer"
        case .answer: return "__answer"
        case .iceCandidate: return "__ice_candidate"
        case .mediaState: return "__media_state"
        }
    }

    /// The JSON text a client sends, in the browser/iOS clients' key order.
    public var jsonText: String {
        let data: JSONValue
        switch self {
        case .join(let j):
            var members: [(String, JSONValue)] = [("room", .string(j.room))]
            if let name = j.name { members.append(("name", .string(name))) }
            if let resume = j.resume { members.append(("resume", .string(resume))) }
            if let resumable = j.resumable { members.append(("resumable", .bool(resumable))) }
            data = .object(members)
        case .offer(let d), .answer(let d):
            data = .object([("socketId", .string(d.socketId.rawValue)), ("sdp", d.sdp)])
        case .iceCandidate(let c):
            var members: [(String, JSONValue)] = []
            if let id = c.id { members.append(("id", .string(id))) }
            if let label = c.label { members.append(("label", .integer(Int64(label)))) }
            members.append(("candidate", .string(c.candidate)))
            members.append(("socketId", .string(c.socketId.rawValue)))
            data = .object(members)
        case .mediaState(let m):
            data = .object([("audioMuted", .bool(m.audioMuted)), ("videoOn", .bool(m.videoOn))])
        }
        return JSONWriter.string(.object([("eventName", .string(eventName)), ("data", data)]))
    }

    /// Decodes and validates one frame's payload. Throws `SignalingError.badMessage` with the code
    /// the server replies with.
    public static func decode(_ bytes: [UInt8]) throws(SignalingError) -> SkyRTCClientMessage {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw badJSON(error)
        }
        let (eventName, data) = try envelope(json)
        return try decode(eventName: eventName, data: data)
    }

    static func badJSON(_ failure: JSONParser.Failure) -> SignalingError {
        .badMessage(.badJSON, "not JSON: \(failure.reason) at byte \(failure.offset)")
    }

    /// The checks every message passes: an object with a known string `eventName` and an object `data`.
    static func envelope(_ json: JSONValue) throws(SignalingError) -> (eventName: String, data: JSONValue) {
        guard case .object = json else { throw .badMessage(.badEnvelope, "a message must be a JSON object") }
        guard let eventName = json["eventName"]?.stringValue else {
            throw .badMessage(.badEnvelope, "missing string field eventName")
        }
        let known = ["__join", "__offer", "__answer", "__ice_candidate", "__media_state"]
        guard known.contains(eventName) else {
            throw .badMessage(.unknownEvent, "unknown eventName '\(eventName.prefix(64))'")
        }
        guard let data = json["data"], case .object = data else {
            throw .badMessage(.badField, "\(eventName): data must be an object")
        }
        return (eventName, data)
    }

    /// One message's fields, after `envelope`.
    static func decode(eventName: String, data: JSONValue) throws(SignalingError) -> SkyRTCClientMessage {
        switch eventName {
        case "__join":
            // `resumable` is a hint: anything but `true` means no.
            let resumable: Bool? = if case .bool(true)? = data["resumable"] { true } else { nil }
            return .join(SkyRTCJoin(room: try room(data["room"]), name: try name(data["name"]), resume: resumeToken(data["resume"]),
                                    resumable: resumable))
        case "__media_state":
            guard case .bool(let muted)? = data["audioMuted"], case .bool(let videoOn)? = data["videoOn"] else {
                throw .badMessage(.badField, "__media_state: audioMuted and videoOn must be booleans")
            }
            return .mediaState(SkyRTCMediaState(audioMuted: muted, videoOn: videoOn))
        case "__offer", "__answer":
            let target = try targetID(data, eventName)
            guard let sdp = data["sdp"], sdp != .null else { throw .badMessage(.badField, "\(eventName): missing sdp") }
            let d = SkyRTCDescription(sdp: sdp, socketId: target)
            return eventName == "__offer" ? .offer(d) : .answer(d)
        default:
            let target = try targetID(data, eventName)
            guard let candidate = data["candidate"]?.stringValue else {
                throw .badMessage(.badField, "__ice_candidate: candidate must be a string")
            }
            // `label` (SkyRTC) or `sdpMLineIndex` (W3C name); `id` (iOS) or `sdpMid`.
            let labelValue = nonNull(data["label"]) ?? nonNull(data["sdpMLineIndex"])
            var label: Int?
            if let v = labelValue {
                guard let n = v.integerValue, (0...65535).contains(n) else {
                    throw .badMessage(.badField, "__ice_candidate: label must be a small non-negative integer")
                }
                label = n
            }
            var mid: String?
            if let v = nonNull(data["id"]) ?? nonNull(data["sdpMid"]) {
                guard let s = v.stringValue else { throw .badMessage(.badField, "__ice_candidate: id must be a string") }
                mid = s
            }
            guard label != nil || mid != nil else {
                throw .badMessage(.badField, "__ice_candidate: needs label (sdpMLineIndex) or id (sdpMid)")
            }
            return .iceCandidate(SkyRTCCandidate(id: mid, label: label, candidate: candidate, socketId: target))
        }
    }

    private static func nonNull(_ v: JSONValue?) -> JSONValue? {
        if let v, v != .null { return v }
        return nil
    }

    static func targetID(_ data: JSONValue, _ eventName: String) throws(SignalingError) -> SocketID {
        guard let s = data["socketId"]?.stringValue, !s.isEmpty, s.utf8.count <= 128 else {
            throw .badMessage(.badField, "\(eventName): socketId must be a non-empty string")
        }
        return SocketID(s)
    }

    /// The display-name extension: absent or null means none; a string is cleaned
    /// (`SkyRTCDisplayName.clean`, which may leave none); anything else is refused.
    private static func name(_ value: JSONValue?) throws(SignalingError) -> String? {
        guard let value = nonNull(value) else { return nil }
        guard let s = value.stringValue else { throw .badMessage(.badField, "__join: name must be a string") }
        return SkyRTCDisplayName.clean(s)
    }

    /// The resume extension: a string of 1 to `maxResumeTokenBytes` bytes; anything else is no token (an ordinary
    /// join), as on the original server, which never reads the field, so a client's odd value never costs its join.
    private static func resumeToken(_ value: JSONValue?) -> String? {
        guard let s = value?.stringValue, !s.isEmpty, s.utf8.count <= maxResumeTokenBytes else { return nil }
        return s
    }

    /// Resume tokens are 32 hex digits; anything much longer is not one.
    public static let maxResumeTokenBytes = 128

    /// The original's `data.room || "__default"`, with the room used as a JS object key: numbers
    /// and `true` become their text. Objects and arrays (which JS would turn into "[object Object]")
    /// are refused.
    private static func room(_ value: JSONValue?) throws(SignalingError) -> String {
        guard let value, value.isTruthy else { return "__default" }
        switch value {
        case .string(let s):
            guard s.utf8.count <= 256 else { throw .badMessage(.badField, "__join: room longer than 256 bytes") }
            return s
        case .integer, .number: return JSONWriter.string(value)
        case .bool: return "true"
        default: throw .badMessage(.badField, "__join: room must be a string")
        }
    }
}
