/// A participant's identity in a room: the SkyRTC `socketId` the signaling server assigned
/// (the local participant's comes from `_peers.you`). RoomModel keeps its own id type so that
/// it depends on no other module; the call converts at the boundary.
public struct ParticipantID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// A short form for labels: the first 8 characters of a UUID-like id, cleaned like a name (`SafeText`): the
    /// id comes from the server and is shown when a peer gave no name, so it must not steer the terminal either.
    public var short: String {
        let cleaned = SafeText.clean(rawValue, maxCharacters: 8)
        return cleaned.isEmpty ? "peer" : cleaned
    }
    public var description: String { rawValue }
    public static func < (a: ParticipantID, b: ParticipantID) -> Bool { a.rawValue < b.rawValue }
}
