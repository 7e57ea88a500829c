import Signaling

/// Who we are in a SkyRTC room and who else is there, kept so that a lost signaling connection can come back as the
/// same member (docs/skyrtc-protocol.md §10): the resume token of the last `_peers`, our id, the members in join
/// order. Pure: the session feeds it the server's messages and asks what a reconnect's `_peers` means.
struct SkyRTCPresence: Equatable {
    private(set) var you: SocketID?
    /// The token to present on reconnect; nil from a server without the extension (the original): rejoin as new.
    private(set) var resumeToken: String?
    private(set) var members: [SocketID] = []

    /// What a reconnect's `_peers` says.
    enum Rejoin: Equatable {
        /// The server kept our place: the same id, nobody was told we left. `left` went and `came` came meanwhile.
        case resumed(left: [SocketID], came: [SocketID])
        /// Another id: the room knows us as a newcomer (the token was unknown, expired, or the server restarted).
        case newcomer
    }

    /// A join as a newcomer (the first, or after the place was lost).
    mutating func joined(_ peers: SkyRTCPeers) {
        you = peers.you
        resumeToken = peers.resume
        members = peers.connections
    }

    /// Follows the room between joins.
    mutating func track(_ message: SkyRTCServerMessage) {
        switch message {
        case .newPeer(let id, _) where id != you && !members.contains(id): members.append(id)
        case .removePeer(let id): members.removeAll { $0 == id }
        default: break
        }
    }

    /// The `_peers` that answered a join presenting `resumeToken`.
    mutating func rejoined(_ peers: SkyRTCPeers) -> Rejoin {
        guard peers.you == you else {
            joined(peers)
            return .newcomer
        }
        let left = members.filter { !peers.connections.contains($0) }
        let came = peers.connections.filter { !members.contains($0) }
        members = peers.connections
        if let token = peers.resume { resumeToken = token }
        return .resumed(left: left, came: came)
    }
}
