import Engine
import Signaling

/// The one place where SkyRTC's JSON messages meet the call's signals (docs/skyrtc-protocol.md §3) and the session's
/// neutral events. Engine knows nothing of SkyRTC and Signaling nothing of calls; `SkyRTCSession`, which `bot`, `join`
/// and the demo's synthetic participants run, goes through here.
enum SkyRTCCallTranslation {
    /// Client → server: `label` is sent as an integer (sdpMLineIndex), `id` as a string (sdpMid), as the original
    /// browser and iOS clients do.
    static func message(for signal: CallSignalOut) -> SkyRTCClientMessage {
        func description(_ type: String, _ sdp: String) -> JSONValue { .object([("type", .string(type)), ("sdp", .string(sdp))]) }
        switch signal {
        case .offer(let to, let sdp): return .offer(SkyRTCDescription(sdp: description("offer", sdp), socketId: SocketID(to.rawValue)))
        case .answer(let to, let sdp): return .answer(SkyRTCDescription(sdp: description("answer", sdp), socketId: SocketID(to.rawValue)))
        case .candidate(let to, let candidate, let mid, let index):
            return .iceCandidate(SkyRTCCandidate(id: mid, label: index, candidate: candidate, socketId: SocketID(to.rawValue)))
        }
    }

    /// Server → client messages the call acts on; nil for the rest (`_error`, custom events).
    static func signal(for message: SkyRTCServerMessage) -> CallSignalIn? {
        func sdpText(_ d: SkyRTCDescription) -> String? { d.sdp["sdp"]?.stringValue ?? d.sdp.stringValue }
        switch message {
        case .peers(let p): return .joined(you: peer(p.you), others: p.connections.map(peer))
        case .newPeer(let s, _): return .newPeer(peer(s))
        case .removePeer(let s): return .removePeer(peer(s))
        case .offer(let d): return sdpText(d).map { .offer(from: peer(d.socketId), sdp: $0) }
        case .answer(let d): return sdpText(d).map { .answer(from: peer(d.socketId), sdp: $0) }
        case .iceCandidate(let c): return .candidate(from: peer(c.socketId), candidate: c.candidate, mid: c.id, mLineIndex: c.label)
        case .error, .mediaState, .other: return nil
        }
    }

    /// Server → session: what the screen and the bot hear of the room; nil for what only the call acts on (offers,
    /// answers, candidates) and for custom events. `_peers` is nil too: it is the join's reply, which the session
    /// reads in `SkyRTCClient.join` and translates with `joined(_:)`.
    static func sessionEvent(for message: SkyRTCServerMessage) -> SessionEvent? {
        switch message {
        case .newPeer(let id, let name): return .peerJoined(peer(id), name: name)
        case .removePeer(let id): return .peerLeft(peer(id))
        case .mediaState(let id, let state): return .peerMedia(peer(id), media(state))
        case .error(let e): return .serverError("\(e.code.rawValue): \(e.message)")
        case .peers, .offer, .answer, .iceCandidate, .other: return nil
        }
    }

    /// `_peers` as the session tells it: who we are, who is there, their names and media.
    static func joined(_ p: SkyRTCPeers) -> SessionEvent {
        // Distinct socket ids are distinct peer ids (the same text), so no key is lost; keeping the first is a
        // formality.
        .joined(you: peer(p.you), peers: p.connections.map(peer),
                names: Dictionary(p.names.map { (peer($0.key), $0.value) }, uniquingKeysWith: { first, _ in first }),
                media: Dictionary(p.media.map { (peer($0.key), media($0.value)) }, uniquingKeysWith: { first, _ in first }))
    }

    /// `__media_state` as announced: SkyRTC always carries both.
    static func media(_ state: SkyRTCMediaState) -> RemoteMediaState {
        RemoteMediaState(audioMuted: state.audioMuted, videoOn: state.videoOn)
    }

    /// Our microphone and camera state for the room (`__media_state`).
    static func announcement(of media: LocalMediaState) -> SkyRTCClientMessage {
        .mediaState(SkyRTCMediaState(audioMuted: media.audioMuted, videoOn: media.videoOn))
    }

    /// Why a server message must be dropped before anything acts on it, nil when it may be used: it names a room member
    /// by an id that `RemoteInputLimits.peerIDRefusal` refuses. The call refuses such ids as well; dropping the
    /// message here keeps them out of the room's tiles too.
    static func refusal(of message: SkyRTCServerMessage) -> String? {
        let ids: [SocketID] = switch message {
        case .peers(let p): [p.you] + p.connections + Array(p.names.keys) + Array(p.media.keys)
        case .newPeer(let s, _), .removePeer(let s), .mediaState(let s, _): [s]
        case .offer(let d), .answer(let d): [d.socketId]
        case .iceCandidate(let c): [c.socketId]
        case .error, .other: []
        }
        return ids.lazy.compactMap { RemoteInputLimits.peerIDRefusal($0.rawValue) }.first
    }

    static func peer(_ s: SocketID) -> RemotePeerID { RemotePeerID(s.rawValue) }
}
