/// The `data` objects of the SkyRTC messages (docs/skyrtc-protocol.md §3), as Codable structs whose
/// coding keys are declared in the original's wire order. The wire itself goes through
/// `SkyRTCClientMessage`/`SkyRTCServerMessage`, which write these with `JSONWriter` so the order is
/// guaranteed (JSONEncoder does not promise one).
///
/// Only the payloads that a module outside Signaling builds (ConfTUI's translation of a call's signals: description,
/// candidate, media state) spell out a public initializer; the others are built here (by `SkyRTCClient`, the rooms
/// and the decoders) with the synthesized memberwise one.

/// `__join` data.
public struct SkyRTCJoin: Equatable, Sendable, Codable {
    /// The room after the original's rule `room || "__default"` (numbers become their JS text).
    public var room: String
    /// The display name others see (our extension, written after `room` and omitted when nil; the
    /// original server drops it). The server keeps it only after `SkyRTCDisplayName.clean`.
    public var name: String?
    /// The resume token of an earlier `_peers` (our extension, docs/skyrtc-protocol.md §10): conftui's server gives
    /// the new socket the id that token belongs to, so the room sees no leave and join. Written after `name`,
    /// omitted when nil; the original server ignores it (the reconnect is then an ordinary join).
    public var resume: String? = nil
    /// Our extension (§10): the client can resume, so the server keeps its place for a while when its connection
    /// goes silent. Written last as `"resumable":true`, omitted otherwise. Clients that never resume
    /// (browsers, the original's) leave the moment their connection goes, as before.
    public var resumable: Bool? = nil
}

/// `__offer`/`__answer` data (client → server) and `_offer`/`_answer` data (server → client):
/// `socketId` is the target on the way in and the sender on the way out.
public struct SkyRTCDescription: Equatable, Sendable, Codable {
    /// `{type, sdp}` passed through verbatim; the server never reads it.
    public var sdp: JSONValue
    public var socketId: SocketID
    public init(sdp: JSONValue, socketId: SocketID) {
        self.sdp = sdp
        self.socketId = socketId
    }
}

/// `__ice_candidate`/`_ice_candidate` data. The original's names: `label` = sdpMLineIndex,
/// `id` = sdpMid (sent by the iOS client only), `candidate` = the `candidate:…` line without `a=`.
public struct SkyRTCCandidate: Equatable, Sendable, Codable {
    public var id: String?
    public var label: Int?
    public var candidate: String
    public var socketId: SocketID
    public init(id: String?, label: Int?, candidate: String, socketId: SocketID) {
        self.id = id
        self.label = label
        self.candidate = candidate
        self.socketId = socketId
    }
}

/// `__media_state` data (client → server, our extension; docs/skyrtc-protocol.md §9): whether the sender's microphone
/// is muted and its camera sends video, as it applies them. Relayed to the room as `_media_state` with `socketId`.
public struct SkyRTCMediaState: Equatable, Sendable, Codable {
    public var audioMuted: Bool
    public var videoOn: Bool
    public init(audioMuted: Bool, videoOn: Bool) {
        self.audioMuted = audioMuted
        self.videoOn = videoOn
    }
}

/// `_peers` data: the ids already in the room (join order, self excluded) and the joiner's own id,
/// plus (our extension) the display names of those that gave one.
public struct SkyRTCPeers: Equatable, Sendable, Codable {
    public var connections: [SocketID]
    public var you: SocketID
    /// Only ids that have a name; on the wire `"names":{"<id>":"Ada",...}` after `you`, omitted
    /// when empty and never sent in the original wire format.
    public var names: [SocketID: String] = [:]
    /// The media state of members that announced one (`__media_state`); `"media":{"<id>":{...}}` after `names`,
    /// omitted when empty and never sent in the original wire format.
    public var media: [SocketID: SkyRTCMediaState] = [:]
    /// Our extension (docs/skyrtc-protocol.md §10): a secret that lets this member reconnect as `you` (`__join` with
    /// `resume`); `"resume":"..."` last, never sent in the original wire format. nil from servers without it.
    public var resume: String? = nil
}

/// `_error` data (our extension; see `SkyRTCErrorCode`).
public struct SkyRTCErrorReply: Equatable, Sendable, Codable {
    public var code: SkyRTCErrorCode
    public var message: String
}
