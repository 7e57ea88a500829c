import Engine
import RoomModel
import Signaling

/// Turns what the session and the call report into the Room model's events: signaling events as they come, and the
/// differences between successive call snapshots (connection state, new frames, audio levels, and once a second the
/// stats). Pure apart from its memory of the previous snapshot: the caller passes the snapshots and the time.
struct CallRoomEvents {
    private var lastState: [RemotePeerID: PeerConnectionState] = [:]
    private var lastFrames: [RemotePeerID: Int] = [:]
    private var lastFrameAt: [RemotePeerID: Double] = [:]
    private var statsBase: [RemotePeerID: (at: Double, bytes: UInt64)] = [:]
    private var lastStatsAt = -1.0
    /// The own encoder's counters at the last stats update: what you send is a rate over them.
    private var sendBase: (at: Double, frames: Int, bytes: UInt64)?
    private var localSource: String?
    private var inferredVideoOff: Set<RemotePeerID> = []
    /// A connected peer whose video stops for this long is shown with video off (the sender's `v`, or a camera that
    /// died: either way there is nothing to show). The first frame brings the picture back.
    static let videoGoneAfter = 2.0

    static func participant(_ s: SocketID) -> ParticipantID { ParticipantID(s.rawValue) }
    static func participant(_ p: RemotePeerID) -> ParticipantID { ParticipantID(p.rawValue) }

    mutating func events(from event: SessionEvent) -> [RoomEvent] {
        switch event {
        case .joined(let you, let peers, let names):
            var out: [RoomEvent] = [.joined(you: Self.participant(you), peers: peers.map(Self.participant))]
            for (id, name) in names.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { out.append(.nameChanged(Self.participant(id), name)) }
            return out
        case .peerJoined(let id, let name):
            var out: [RoomEvent] = [.peerJoined(Self.participant(id))]
            if let name { out.append(.nameChanged(Self.participant(id), name)) }
            return out
        case .peerLeft(let id): return [.peerLeft(Self.participant(id))]
        case .signalingLost:
            // Every connection was closed with the signaling: the tiles stay (the rejoin's `_peers` keeps those
            // still there and drops the rest) but show that nothing flows now.
            let ids = lastState.keys.sorted()
            for id in ids { lastState[id] = .disconnected }
            return ids.map { .connectionChanged(Self.participant($0), .disconnected) }
        case .serverError: return []
        }
    }

    mutating func events(from s: CallSnapshot, now: Double) -> [RoomEvent] {
        var out: [RoomEvent] = []
        if localSource != s.local.source {
            localSource = s.local.source
            out.append(.local(.setSource(s.local.source)))
        }
        if let you = s.you { out.append(.audioLevel(Self.participant(you), level: s.local.inputLevel, at: now)) }
        let statsDue = now - lastStatsAt >= 1
        if statsDue { lastStatsAt = now }
        if statsDue, let you = s.you {
            var fps = 0.0, kbps = 0.0
            if let base = sendBase, now > base.at, s.local.videoFramesEncoded >= base.frames, s.local.videoBytesEncoded >= base.bytes {
                fps = Double(s.local.videoFramesEncoded - base.frames) / (now - base.at)
                kbps = Double(s.local.videoBytesEncoded - base.bytes) * 8 / 1000 / (now - base.at)
            }
            sendBase = (now, s.local.videoFramesEncoded, s.local.videoBytesEncoded)
            out.append(.statsUpdated(Self.participant(you), MediaStats(
                fps: fps, kbps: kbps, videoCodec: s.local.videoFramesEncoded > 0 ? "VP8" : nil,
                audioCodec: s.local.audioFramesEncoded > 0 ? "opus" : nil, targetKbps: s.local.videoBitrateKbps)))
        }
        for (id, peer) in s.peers {
            let pid = Self.participant(id)
            let state = peer.transport.state
            // A closed connection belongs to a peer that left (its tile goes with `_remove_peer`) or one being replaced.
            if state != .closed, lastState[id] != state {
                lastState[id] = state
                out.append(.connectionChanged(pid, ConnectionState(rawValue: state.rawValue) ?? .new))
            }
            if peer.video.framesDecoded != lastFrames[id] {
                lastFrames[id] = peer.video.framesDecoded
                lastFrameAt[id] = now
                out.append(.frameArrived(pid, at: now, width: peer.video.width, height: peer.video.height))
                if inferredVideoOff.remove(id) != nil { out.append(.remoteMediaChanged(pid, audioMuted: nil, videoOn: true)) }
            } else if state == .connected, let at = lastFrameAt[id], now - at > Self.videoGoneAfter, !inferredVideoOff.contains(id) {
                inferredVideoOff.insert(id)
                out.append(.remoteMediaChanged(pid, audioMuted: nil, videoOn: false))
            }
            out.append(.audioLevel(pid, level: peer.audio.level, at: now))
            if statsDue {
                let bytes = peer.transport.bytesReceived
                var kbps = 0.0
                if let base = statsBase[id], now > base.at, bytes >= base.bytes {
                    kbps = Double(bytes - base.bytes) * 8 / 1000 / (now - base.at)
                }
                statsBase[id] = (now, bytes)
                out.append(.statsUpdated(pid, MediaStats(
                    fps: peer.video.framesPerSecond, kbps: kbps, rttMs: peer.transport.roundTripTimeMs ?? peer.transport.iceRoundTripTimeMs,
                    lossPercent: peer.transport.receiveLoss * 100, videoCodec: peer.video.framesDecoded > 0 ? "VP8" : nil,
                    audioCodec: peer.audio.framesDecoded > 0 ? "opus" : nil,
                    frameWidth: peer.video.width, frameHeight: peer.video.height)))
            }
        }
        return out
    }

    /// Forgets a peer that left, so a rejoin under the same id (the original server can do that) starts afresh.
    mutating func forget(_ id: SocketID) {
        let p = RemotePeerID(id.rawValue)
        lastState[p] = nil; lastFrames[p] = nil; lastFrameAt[p] = nil; statsBase[p] = nil; inferredVideoOff.remove(p)
    }
}
