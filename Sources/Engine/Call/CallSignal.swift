/// What a call exchanges with its signaling channel. Engine does not know SkyRTC's JSON: `conftui bot` maps these
/// to and from `SkyRTCClient` messages (docs/skyrtc-protocol.md §3), so the call stays testable without a server.

/// A remote participant's id in the room (SkyRTC: the server-assigned socketId).
public struct RemotePeerID: RawRepresentable, Hashable, Sendable, Codable, CodingKeyRepresentable, CustomStringConvertible, Comparable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ value: String) { rawValue = value }
    public var description: String { rawValue }
    public static func < (a: RemotePeerID, b: RemotePeerID) -> Bool { a.rawValue < b.rawValue }
}

/// Signaling → call.
public enum CallSignalIn: Sendable, Equatable {
    /// `_peers`: our own id and the ids already in the room; the newcomer offers to each (docs/skyrtc-protocol.md §5).
    case joined(you: RemotePeerID, others: [RemotePeerID])
    /// A `_peers` after a reconnect that kept our id (docs/skyrtc-protocol.md §10): nobody was told we left, so the
    /// connections stay; `others` is who is there now.
    case resumed(you: RemotePeerID, others: [RemotePeerID])
    /// `_new_peer`: prepare a connection and wait for its offer.
    case newPeer(RemotePeerID)
    case removePeer(RemotePeerID)
    case offer(from: RemotePeerID, sdp: String)
    case answer(from: RemotePeerID, sdp: String)
    /// `_ice_candidate`: `label` is sdpMLineIndex, `id` is sdpMid; either may be missing.
    case candidate(from: RemotePeerID, candidate: String, mid: String?, mLineIndex: Int?)
    /// A forwarding server says whose media each section (by mid) of connection `of` carries (Janus: the `streams`
    /// of its subscription offer); sent before the offer it belongs to.
    case sections(of: RemotePeerID, owners: [String: RemotePeerID])
}

/// Call → signaling.
public enum CallSignalOut: Sendable, Equatable {
    case offer(to: RemotePeerID, sdp: String)
    case answer(to: RemotePeerID, sdp: String)
    /// Trickle: `candidate` is the `candidate:...` text; send `label` = mLineIndex (integer) and `id` = mid.
    case candidate(to: RemotePeerID, candidate: String, mid: String, mLineIndex: Int)
}
