/// A message the server sends to a client (docs/skyrtc-protocol.md §3, server → client). Always sent as
/// a WebSocket text frame (the iOS client reads only text).
public enum SkyRTCServerMessage: Equatable, Sendable {
    case peers(SkyRTCPeers)
    /// The newcomer's id and (display-name extension) its name, if it gave one.
    case newPeer(SocketID, name: String?)
    case removePeer(SocketID)
    /// `socketId` is the sender, rewritten by the server.
    case offer(SkyRTCDescription)
    case answer(SkyRTCDescription)
    case iceCandidate(SkyRTCCandidate)
    case error(SkyRTCErrorReply)
    /// Our extension: a member's microphone and camera state (`socketId` is that member).
    case mediaState(SocketID, SkyRTCMediaState)
    /// An event this client does not know (custom events pass through the original).
    case other(eventName: String, data: JSONValue?)

    public var eventName: String {
        switch self {
        case .peers: return "_peers"
        case .newPeer: return "_new_peer"
        case .removePeer: return "_remove_peer"
        case .offer: return "_offer"
        case .answer: return "_answer"
        case .iceCandidate: return "_ice_candidate"
        case .error: return "_error"
        case .mediaState: return "_media_state"
        case .other(let name, _): return name
        }
    }

    /// The JSON text, keys in the original's order: `sdp, socketId` for `_offer`/`_answer`;
    /// `[id,] label, candidate, socketId` for `_ice_candidate`, then (conftui format only) the
    /// extension keys `sdpMLineIndex` (= label) and `sdpMid` (= id) when known, so an unmodified
    /// browser client's `new RTCIceCandidate(data)` works in modern browsers (protocol notes §8).
    /// The display-name extension (conftui format only, since the original server drops it):
    /// `_peers` gets `names` after `you` (ids with a name, sorted by id so the text is deterministic;
    /// omitted when none), `_new_peer` gets `name` after `socketId` (omitted when nil).
    public func jsonText(format: SkyRTCWireFormat = .conftui) -> String {
        String(decoding: jsonBytes(format: format), as: UTF8.self)
    }

    /// The UTF-8 bytes of `jsonText`: what the server puts in the text frame, built without a `String`.
    public func jsonBytes(format: SkyRTCWireFormat = .conftui) -> [UInt8] {
        func id(_ s: SocketID) -> JSONValue { .string(s.rawValue) }
        let data: JSONValue?
        switch self {
        case .peers(let p):
            var m: [(String, JSONValue)] = [("connections", .array(p.connections.map(id))), ("you", id(p.you))]
            if format == .conftui, !p.names.isEmpty {
                m.append(("names", .object(p.names.sorted { $0.key < $1.key }.map { ($0.key.rawValue, .string($0.value)) })))
            }
            if format == .conftui, !p.media.isEmpty {
                m.append(("media", .object(p.media.sorted { $0.key < $1.key }.map { ($0.key.rawValue, Self.mediaJSON($0.value)) })))
            }
            if format == .conftui, let resume = p.resume { m.append(("resume", .string(resume))) }
            data = .object(m)
        case .newPeer(let s, let name):
            var m: [(String, JSONValue)] = [("socketId", id(s))]
            if format == .conftui, let name { m.append(("name", .string(name))) }
            data = .object(m)
        case .removePeer(let s):
            data = .object([("socketId", id(s))])
        case .offer(let d), .answer(let d):
            data = .object([("sdp", d.sdp), ("socketId", id(d.socketId))])
        case .iceCandidate(let c):
            var m: [(String, JSONValue)] = []
            if format == .conftui, let mid = c.id { m.append(("id", .string(mid))) }
            if let label = c.label { m.append(("label", .integer(Int64(label)))) }
            m.append(("candidate", .string(c.candidate)))
            m.append(("socketId", id(c.socketId)))
            if format == .conftui {
                if let label = c.label { m.append(("sdpMLineIndex", .integer(Int64(label)))) }
                if let mid = c.id { m.append(("sdpMid", .string(mid))) }
            }
            data = .object(m)
        case .error(let e):
            data = .object([("code", .string(e.code.rawValue)), ("message", .string(e.message))])
        case .mediaState(let s, let m):
            data = .object([("socketId", id(s)), ("audioMuted", .bool(m.audioMuted)), ("videoOn", .bool(m.videoOn))])
        case .other(_, let d):
            data = d
        }
        var envelope: [(String, JSONValue)] = [("eventName", .string(eventName))]
        if let data { envelope.append(("data", data)) }
        return JSONWriter.bytes(.object(envelope))
    }

    private static func mediaJSON(_ m: SkyRTCMediaState) -> JSONValue {
        .object([("audioMuted", .bool(m.audioMuted)), ("videoOn", .bool(m.videoOn))])
    }

    /// `_offer`/`_answer` with the SDP object given as JSON text (`SkyRTCInbound`): the bytes
    /// `jsonBytes` writes for `.offer`/`.answer` with that SDP, without a `JSONValue` in between.
    static func descriptionBytes(eventName: String, sdpJSON: ArraySlice<UInt8>, socketId: SocketID) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(sdpJSON.count + eventName.utf8.count + socketId.rawValue.utf8.count + 48)
        JSONWriter.append(#"{"eventName":"#, to: &out)
        JSONWriter.writeString(eventName, into: &out)
        JSONWriter.append(#","data":{"sdp":"#, to: &out)
        out.append(contentsOf: sdpJSON)
        JSONWriter.append(#","socketId":"#, to: &out)
        JSONWriter.writeString(socketId.rawValue, into: &out)
        JSONWriter.append("}}", to: &out)
        return out
    }

    /// Decodes what a server sent (used by the client). Unknown events become `.other`.
    public static func decode(_ bytes: [UInt8]) throws(SignalingError) -> SkyRTCServerMessage {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw .badMessage(.badJSON, "not JSON: \(error.reason)")
        }
        guard let name = json["eventName"]?.stringValue else { throw .badMessage(.badEnvelope, "missing eventName") }
        let data = json["data"]
        func sid(_ key: String) throws(SignalingError) -> SocketID {
            guard let s = data?[key]?.stringValue else { throw .badMessage(.badField, "\(name): \(key) must be a string") }
            return SocketID(s)
        }
        switch name {
        case "_peers":
            guard case .array(let items)? = data?["connections"] else { throw .badMessage(.badField, "_peers: connections") }
            var ids: [SocketID] = []
            for item in items {
                guard let s = item.stringValue else { throw .badMessage(.badField, "_peers: connections must hold strings") }
                ids.append(SocketID(s))
            }
            return .peers(SkyRTCPeers(connections: ids, you: try sid("you"), names: peerNames(data?["names"]),
                                      media: peerMedia(data?["media"]), resume: resumeToken(data?["resume"])))
        case "_new_peer": return .newPeer(try sid("socketId"), name: displayName(data?["name"]))
        case "_remove_peer": return .removePeer(try sid("socketId"))
        case "_offer", "_answer":
            guard let sdp = data?["sdp"] else { throw .badMessage(.badField, "\(name): sdp") }
            let d = SkyRTCDescription(sdp: sdp, socketId: try sid("socketId"))
            return name == "_offer" ? .offer(d) : .answer(d)
        case "_ice_candidate":
            guard let candidate = data?["candidate"]?.stringValue else { throw .badMessage(.badField, "_ice_candidate: candidate") }
            let label = data?["label"]?.integerValue ?? data?["sdpMLineIndex"]?.integerValue
            let mid = data?["sdpMid"]?.stringValue ?? data?["id"]?.stringValue
            return .iceCandidate(SkyRTCCandidate(id: mid, label: label, candidate: candidate, socketId: try sid("socketId")))
        case "_media_state":
            guard let state = mediaState(data) else {
                throw .badMessage(.badField, "_media_state: audioMuted and videoOn must be booleans")
            }
            return .mediaState(try sid("socketId"), state)
        case "_error":
            guard let raw = data?["code"]?.stringValue, let code = SkyRTCErrorCode(rawValue: raw) else {
                throw .badMessage(.badField, "_error: code")
            }
            return .error(SkyRTCErrorReply(code: code, message: data?["message"]?.stringValue ?? ""))
        default:
            return .other(eventName: name, data: data)
        }
    }

    /// `_peers.names`, tolerated missing (the original server and older conftui servers send none).
    /// A client should not trust a server more than the server trusts a client: every name is
    /// cleaned again (it may be shown in a terminal), and entries that are not strings are skipped.
    private static func peerNames(_ value: JSONValue?) -> [SocketID: String] {
        guard case .object(let members)? = value else { return [:] }
        var names: [SocketID: String] = [:]
        for (key, value) in members {
            if let name = displayName(value) { names[SocketID(key)] = name }
        }
        return names
    }

    /// `_peers.media`, tolerated missing; entries that are not `{audioMuted: bool, videoOn: bool}` are skipped.
    private static func peerMedia(_ value: JSONValue?) -> [SocketID: SkyRTCMediaState] {
        guard case .object(let members)? = value else { return [:] }
        var media: [SocketID: SkyRTCMediaState] = [:]
        for (key, value) in members {
            if let state = mediaState(value) { media[SocketID(key)] = state }
        }
        return media
    }

    /// `_peers.resume`, tolerated missing or malformed (then the client cannot resume, and rejoins as a newcomer).
    private static func resumeToken(_ value: JSONValue?) -> String? {
        guard let s = value?.stringValue, !s.isEmpty, s.utf8.count <= SkyRTCClientMessage.maxResumeTokenBytes else { return nil }
        return s
    }

    private static func mediaState(_ value: JSONValue?) -> SkyRTCMediaState? {
        guard case .bool(let muted)? = value?["audioMuted"], case .bool(let videoOn)? = value?["videoOn"] else { return nil }
        return SkyRTCMediaState(audioMuted: muted, videoOn: videoOn)
    }

    private static func displayName(_ value: JSONValue?) -> String? {
        value?.stringValue.flatMap(SkyRTCDisplayName.clean)
    }
}
