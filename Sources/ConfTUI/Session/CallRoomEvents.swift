import Engine
import RoomModel

/// Turns what the session and the call report into the Room model's events: signaling events and call events one
/// to one as they come (connection states with nothing lost between two screen updates, first picture and size, the
/// further video streams and theirs, the local media as the pipeline applies it), and from the call's snapshots only
/// what is measured rather than happened: audio levels, and once a second the statistics. Pure: the caller passes
/// events, snapshots and the time.
struct CallRoomEvents {
    /// Peers whose connection state the screen was told, so a lost signaling connection can mark them all.
    private var known: Set<RemotePeerID> = []
    private var statsBase: [RemotePeerID: (at: Double, bytes: UInt64)] = [:]
    private var lastStatsAt = -1.0
    /// The own encoder's counters at the last stats update: what you send is a rate over them.
    private var sendBase: (at: Double, frames: Int, bytes: UInt64)?

    static func participant(_ p: RemotePeerID) -> ParticipantID { ParticipantID(p.rawValue) }

    mutating func events(from event: SessionEvent) -> [RoomEvent] {
        switch event {
        case .joined(let you, let peers, let names, let media):
            var out: [RoomEvent] = [.joined(you: Self.participant(you), peers: peers.map(Self.participant))]
            for (id, name) in names.sorted(by: { $0.key < $1.key }) { out.append(.nameChanged(Self.participant(id), name)) }
            for (id, state) in media.sorted(by: { $0.key < $1.key }) where peers.contains(id) {
                out.append(Self.mediaChanged(id, state))
            }
            return out
        case .peerMedia(let id, let state): return [Self.mediaChanged(id, state)]
        case .peerJoined(let id, let name):
            var out: [RoomEvent] = [.peerJoined(Self.participant(id))]
            if let name { out.append(.nameChanged(Self.participant(id), name)) }
            return out
        case .peerLeft(let id): return [.peerLeft(Self.participant(id))]
        case .signalingLost:
            // Every connection was closed with the signaling: the tiles stay (the rejoin's `_peers` keeps those
            // still there and drops the rest) but show that nothing flows now.
            return known.sorted().map { .connectionChanged(Self.participant($0), .disconnected) }
        case .serverError, .signalingInterrupted, .signalingResumed:
            // A resume keeps every connection: nothing to show on the tiles.
            return []
        }
    }

    mutating func events(from event: CallEvent, now: Double) -> [RoomEvent] {
        switch event {
        case .peerState(let id, let state, _):
            // A closed connection belongs to a peer that left (its tile goes with `_remove_peer`) or one being
            // replaced by a fresh connection (whose own states follow).
            guard state != .closed else { return [] }
            known.insert(id)
            return [.connectionChanged(Self.participant(id), ConnectionState(rawValue: state.rawValue) ?? .new)]
        case .videoSize(let id, let width, let height):
            return [.frameArrived(Self.participant(id), at: now, width: width, height: height)]
        case .videoStreams(let id, let mids):
            // The first section is the main video (its pictures come as `videoSize`); the others are the extra tiles.
            return [.streamsChanged(Self.participant(id), extra: Array(mids.dropFirst()))]
        case .streamVideoSize(let id, let mid, let width, let height):
            return [.streamFrameArrived(Self.participant(id), stream: mid, at: now, width: width, height: height)]
        case .localMedia(let media):
            return [.local(.setMuted(media.audioMuted)), .local(.setVideoOn(media.videoOn)), .local(.setSource(media.source))]
        }
    }

    /// A remote participant's own word on its microphone and camera (never guessed from a gap in its frames).
    static func mediaChanged(_ id: RemotePeerID, _ state: RemoteMediaState) -> RoomEvent {
        .remoteMediaChanged(participant(id), audioMuted: state.audioMuted, videoOn: state.videoOn)
    }

    /// Levels and statistics: measurements, so sampling them is right (a missed sample is just an older value).
    mutating func events(from s: CallSnapshot, now: Double) -> [RoomEvent] {
        var out: [RoomEvent] = []
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
        for (id, peer) in s.peers where peer.transport.state != .closed {
            let pid = Self.participant(id)
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
    mutating func forget(_ id: RemotePeerID) {
        known.remove(id)
        statsBase[id] = nil
    }
}
