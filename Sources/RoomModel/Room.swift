/// The room as a value: participants keyed by socketId, the local one first, then remote peers
/// in join order. `apply(_:)` is the whole reducer; it never throws and never reads a clock.
public struct Room: Sendable, Equatable {
    public private(set) var local: Participant
    public private(set) var remotes: [ParticipantID: Participant] = [:]
    public private(set) var roomName: String
    /// Whether `_peers` has arrived (the local id is the server's, not a placeholder).
    public private(set) var isJoined = false
    public private(set) var hasLeft = false
    private var nextJoinIndex = 1

    /// Speaking hysteresis (why: a level that flickers around one threshold would make the tile
    /// highlight blink): start at `speakOn`, stop only after `speakHold` seconds below `speakOff`.
    public static let speakOn = 0.08
    public static let speakOff = 0.04
    public static let speakHold = 0.6
    private var lastLoudAt: [ParticipantID: Double] = [:]
    /// The chat, bounded (`ChatLog`); it outlives leaving, so what was said stays readable.
    public private(set) var chat = ChatLog()

    public init(roomName: String, localName: String? = nil, sourceName: String? = nil) {
        self.roomName = roomName
        let cleaned = localName.map(Room.sanitize)
        var me = Participant(id: ParticipantID("local"), isLocal: true, connection: .connecting, joinIndex: 0,
                             name: cleaned?.isEmpty == false ? cleaned : nil)
        me.sourceName = sourceName
        local = me
    }

    /// Local participant first, then remotes in join order.
    public var participants: [Participant] {
        [local] + remotes.values.sorted { $0.joinIndex < $1.joinIndex }
    }

    /// The grid order: each participant's main tile in `participants` order, each followed by a tile per further
    /// stream (its shared screens) in the call's order.
    public var gridOrder: [Tile] {
        participants.flatMap { p in [Tile(participant: p)] + p.streams.map { Tile(participant: p, stream: $0) } }
    }

    public func participant(_ id: ParticipantID) -> Participant? {
        id == local.id ? local : remotes[id]
    }

    /// The tile `id` names, nil when it is not in the grid (its participant left or its stream ended).
    public func tile(_ id: TileID) -> Tile? {
        guard let p = participant(id.participant) else { return nil }
        guard let streamID = id.stream else { return Tile(participant: p) }
        return p.streams.first { $0.id == streamID }.map { Tile(participant: p, stream: $0) }
    }

    @discardableResult
    public mutating func apply(_ event: RoomEvent) -> RoomChange {
        // After leaving, only a new join or the local keys change anything: late events from the
        // closed call must not bring tiles back.
        if hasLeft {
            switch event {
            case .joined, .local, .chatNotice: break
            default: return .ignored("room left")
            }
        }
        switch event {
        case .joined(let you, let peers):
            return join(as: you, peers: peers)
        case .peerJoined(let id):
            if id == local.id { return .ignored("new peer \(id) is ourselves") }
            if remotes[id] != nil { return .ignored("duplicate new peer \(id)") }
            addRemote(id)
            return .changed
        case .peerLeft(let id):
            guard remotes.removeValue(forKey: id) != nil else { return .ignored("unknown peer \(id) left") }
            lastLoudAt[id] = nil
            return .changed
        case .connectionChanged(let id, let state):
            return update(id) { $0.connection = state }
        case .statsUpdated(let id, let stats):
            return update(id) { $0.stats = stats }
        case .frameArrived(let id, let at, let width, let height):
            return update(id) {
                $0.lastFrameAt = at
                if width > 0 && height > 0 { $0.videoAspect = Double(width) / Double(height) }
            }
        case .streamsChanged(let id, let extra):
            if id == local.id { return .ignored("further streams for the local participant") }
            return update(id) { $0.streams = Room.streams(extra, keeping: $0.streams) }
        case .streamFrameArrived(let id, let stream, let at, let width, let height):
            guard participant(id)?.streams.contains(where: { $0.id == stream }) == true else {
                return .ignored("unknown stream of \(id)")
            }
            return update(id) { p in
                guard let i = p.streams.firstIndex(where: { $0.id == stream }) else { return }
                p.streams[i].lastFrameAt = at
                if width > 0 && height > 0 { p.streams[i].videoAspect = Double(width) / Double(height) }
            }
        case .audioLevel(let id, let level, let at):
            let clamped = level.isFinite ? min(max(level, 0), 1) : 0
            if clamped >= Room.speakOff { lastLoudAt[id] = at }
            let lastLoud = lastLoudAt[id]
            return update(id) { p in
                p.audioLevel = clamped
                // Muted is never speaking: packets sent before a remote mute (and their decoded level) still arrive
                // after the mute was announced, and a muted microphone is heard by nobody.
                if p.audioMuted {
                    p.speaking = false
                } else if clamped >= Room.speakOn {
                    p.speaking = true
                } else if let loud = lastLoud, at - loud < Room.speakHold {
                    // inside the hold time: keep whatever it was
                } else {
                    p.speaking = false
                }
            }
        case .nameChanged(let id, let name):
            let cleaned = Room.sanitize(name)
            return update(id) { $0.name = cleaned.isEmpty ? nil : cleaned }
        case .remoteMediaChanged(let id, let muted, let videoOn):
            if id == local.id { return .ignored("remote media change for the local participant") }
            return update(id) {
                if let m = muted {
                    $0.audioMuted = m
                    if m { $0.speaking = false }
                }
                if let v = videoOn { $0.videoOn = v }
            }
        case .chatReceived(let id, let text, let at):
            if id == local.id { return .ignored("own chat message echoed") }
            let name = remotes[id].map(TileLabel.name(of:)) ?? id.short
            return chat.append(sender: id, name: name, isLocal: false, text: text, at: at, kind: .message)
                ? .changed : .ignored("empty chat message")
        case .chatNotice(let text, let at):
            return chat.append(sender: nil, name: "", isLocal: false, text: text, at: at, kind: .notice)
                ? .changed : .ignored("empty notice")
        case .local(let action):
            switch action {
            case .setMuted(let muted):
                guard local.audioMuted != muted else { return .ignored("already \(muted ? "muted" : "unmuted")") }
                local.audioMuted = muted
                if muted { local.speaking = false }
            case .setVideoOn(let on):
                guard local.videoOn != on else { return .ignored("video already \(on ? "on" : "off")") }
                local.videoOn = on
            case .setSource(let name):
                guard local.sourceName != name else { return .ignored("source already \(name)") }
                local.sourceName = name
            case .sentChat(let text, let at):
                guard chat.append(sender: local.id, name: TileLabel.name(of: local), isLocal: true, text: text, at: at,
                                  kind: .message) else { return .ignored("empty chat message") }
            case .setChatVisible(let visible):
                guard chat.setVisible(visible) else { return .ignored("chat pane already \(visible ? "shown" : "hidden")") }
            }
            return .changed
        case .left:
            hasLeft = true
            remotes.removeAll()
            lastLoudAt.removeAll()
            local.connection = .closed
            return .changed
        }
    }

    private mutating func join(as you: ParticipantID, peers: [ParticipantID]) -> RoomChange {
        // A second `_peers` comes after a reconnect: peers not listed any more are gone (no ghosts),
        // peers still listed keep their tiles and state.
        let listed = Set(peers)
        for id in remotes.keys where !listed.contains(id) {
            remotes[id] = nil
            lastLoudAt[id] = nil
        }
        let old = local
        local = Participant(id: you, isLocal: true, connection: .connected, joinIndex: 0, name: old.name)
        local.audioMuted = old.audioMuted
        local.videoOn = old.videoOn
        local.sourceName = old.sourceName
        local.videoAspect = old.videoAspect
        local.lastFrameAt = old.lastFrameAt
        isJoined = true
        hasLeft = false
        for id in peers where id != you && remotes[id] == nil {
            addRemote(id)
        }
        return .changed
    }

    private mutating func addRemote(_ id: ParticipantID) {
        remotes[id] = Participant(id: id, isLocal: false, connection: .new, joinIndex: nextJoinIndex)
        nextJoinIndex += 1
    }

    private mutating func update(_ id: ParticipantID, _ change: (inout Participant) -> Void) -> RoomChange {
        if id == local.id {
            let before = local
            change(&local)
            return local == before ? .ignored("no change") : .changed
        }
        guard var p = remotes[id] else { return .ignored("unknown participant \(id)") }
        let before = p
        change(&p)
        remotes[id] = p
        return p == before ? .ignored("no change") : .changed
    }

    /// The further streams `ids` lists, bounded (see `VideoStream`): ids out of bounds or repeated get no tile, and
    /// streams still listed keep what they had (their shape and last picture time).
    static func streams(_ ids: [String], keeping old: [VideoStream]) -> [VideoStream] {
        var out: [VideoStream] = []
        for id in ids where out.count < VideoStream.maxExtraPerParticipant {
            guard VideoStream.idBytes.contains(id.utf8.count), !out.contains(where: { $0.id == id }) else { continue }
            var s = old.first { $0.id == id } ?? VideoStream(id: id, ordinal: 0)
            s.ordinal = out.count + 2
            out.append(s)
        }
        return out
    }

    /// Display names come from other people's clients: see `SafeText` (at most 32 characters).
    public static func sanitize(_ name: String) -> String { SafeText.clean(name) }
}
