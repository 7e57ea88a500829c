/// The SkyRTC server logic as a pure state machine: connection events in, actions out. No sockets,
/// no clock, no threads; the event loop (`SignalingServer`) is a thin driver that performs the
/// actions in order. Every rule of docs/skyrtc-protocol.md §4 is here and unit-tested.
///
/// Deliberate departures from the original (v0.0.2), all in both wire formats unless noted:
/// - **Rejoin** (a second `__join` on one socket): joining *another* room first leaves the old one
///   (its members get `_remove_peer`, the room is deleted when empty) — no ghost entries. Joining the
///   room the socket is already in is idempotent: nobody gets a duplicate `_new_peer`, and the socket
///   gets a fresh `_peers` (so a client that lost its state can resynchronise).
/// - **Display names** (our extension): each socket's cleaned `__join` name is remembered (a rejoin
///   replaces it) and sent in `_peers.names` and `_new_peer.name` (conftui format only; the original
///   format writes neither, as the original server drops them). A same-room rejoin with a new name
///   updates what later joiners see but sends no `_new_peer` to the members already there (the
///   original clients would replace their connection on a duplicate `_new_peer`).
/// - **Forwarding** (conftui format): the sender must have joined (`not_joined`) and the target must
///   be another member of the sender's room (`unknown_target`). The original format keeps the
///   original rule (any connected socket, unknown targets dropped silently).
/// - **Bad input** gets an `_error` reply (conftui format) and never disturbs anyone else; after
///   `maxErrorsPerSocket` refused messages in a row the socket is closed with 1008 (policy
///   violation), so a misbehaving client cannot keep the server busy forever.
/// - **Caps** (`SkyRTCRoomLimits`): a `__join` past the room count or a room's member count is
///   refused (`too_many_rooms`, `room_full`) and does not happen. A message the driver dropped for
///   exceeding its rate (`.throttled`) is answered with `rate_limited`. Both formats refuse; the
///   original format does it silently, as it does all bad input.
public struct SkyRTCRooms: Sendable {
    public enum Input: Equatable, Sendable {
        /// A WebSocket connection completed its opening handshake and was given `id`.
        case opened(SocketID)
        /// A complete data message arrived (text or binary; both carry UTF-8 JSON).
        case message(SocketID, [UInt8], isBinary: Bool)
        /// The connection is gone (close handshake, error, timeout or drop).
        case closed(SocketID)
        /// The driver dropped a message from this socket for exceeding its rate (tell it, once per burst).
        case throttled(SocketID)
    }

    /// What the driver must do, in order.
    public enum Action: Equatable, Sendable {
        /// Send this JSON text (UTF-8) to the socket as one text frame.
        case send(SocketID, [UInt8])
        /// Close the socket with this status code (§7.4.1).
        case close(SocketID, WebSocketCloseCode, String)
        /// Something worth one log line.
        case log(SkyRTCRoomEvent)
    }

    public static let defaultRoom = "__default"
    public static let maxErrorsPerSocket = 32

    public let format: SkyRTCWireFormat
    public let limits: SkyRTCRoomLimits

    private struct SocketState {
        var room: String?
        /// The display name from the last `__join`, already cleaned.
        var name: String?
        /// The last `__media_state` (conftui format), kept across rejoins: it describes the socket's media, not a room.
        var media: SkyRTCMediaState?
        var errors = 0
    }

    private var sockets: [SocketID: SocketState] = [:]
    /// Room name → members in join order.
    private var rooms: [String: [SocketID]] = [:]

    public init(format: SkyRTCWireFormat = .conftui, limits: SkyRTCRoomLimits = .unlimited) {
        self.format = format
        self.limits = limits
    }

    /// Open connections (joined or not).
    public var socketCount: Int { sockets.count }
    /// Rooms with at least one member.
    public var roomCount: Int { rooms.count }
    /// Sockets that are members of a room.
    public private(set) var joinedCount = 0
    public func members(of room: String) -> [SocketID] { rooms[room] ?? [] }
    public func room(of socket: SocketID) -> String? { sockets[socket]?.room }
    /// The display name `socket` gave in its last `__join`, cleaned.
    public func name(of socket: SocketID) -> String? { sockets[socket]?.name }

    public mutating func handle(_ input: Input) -> [Action] {
        var actions: [Action] = []
        switch input {
        case .opened(let id):
            sockets[id] = SocketState()
        case .closed(let id):
            guard sockets[id] != nil else { break }
            leave(id, &actions)
            sockets[id] = nil
        case .message(let id, let bytes, let isBinary):
            guard sockets[id] != nil else { break }
            do {
                try dispatch(id, try SkyRTCInbound.decode(bytes, isBinary: isBinary), &actions)
                sockets[id]?.errors = 0
            } catch {
                refuse(id, error, &actions)
            }
        case .throttled(let id):
            guard sockets[id] != nil else { break }
            let message = "too many messages per second: messages are being dropped"
            actions.append(.log(.refused(id, .rateLimited, message)))
            if format == .conftui {
                send(.error(SkyRTCErrorReply(code: .rateLimited, message: message)), to: id, &actions)
            }
        }
        return actions
    }

    private mutating func dispatch(_ id: SocketID, _ inbound: SkyRTCInbound, _ actions: inout [Action]) throws(SignalingError) {
        let message: SkyRTCClientMessage
        switch inbound {
        case .message(let m):
            message = m
        case .description(let eventName, let target, let sdpJSON):
            // `_offer`/`_answer`: the SDP text as it came (or as JSON.stringify would write it), the
            // sender as `socketId`. One parse of the message, one write per recipient.
            if let to = try self.target(of: id, target, eventName) {
                let out = String(eventName.dropFirst())  // "__offer" -> "_offer"
                actions.append(.send(to, SkyRTCServerMessage.descriptionBytes(eventName: out, sdpJSON: sdpJSON, socketId: id)))
            }
            return
        }
        switch message {
        case .join(let join):
            try self.join(id, room: join.room, name: join.name, &actions)
        case .offer(let d):
            let to = try target(of: id, d.socketId, "__offer")
            forward(.offer(SkyRTCDescription(sdp: d.sdp, socketId: id)), to: to, &actions)
        case .answer(let d):
            let to = try target(of: id, d.socketId, "__answer")
            forward(.answer(SkyRTCDescription(sdp: d.sdp, socketId: id)), to: to, &actions)
        case .iceCandidate(let c):
            let to = try target(of: id, c.socketId, "__ice_candidate")
            forward(.iceCandidate(SkyRTCCandidate(id: c.id, label: c.label, candidate: c.candidate, socketId: id)), to: to, &actions)
        case .mediaState(let state):
            try announce(id, state, &actions)
        }
    }

    /// docs/skyrtc-protocol.md §4 "Join algorithm": `_new_peer` to each member in join order, then append,
    /// then `_peers` to the joiner — so every member knows the newcomer before its first `_offer`.
    private mutating func join(_ id: SocketID, room: String, name: String?, _ actions: inout [Action]) throws(SignalingError) {
        try checkLimits(id, joining: room)
        sockets[id]?.name = name
        if let current = sockets[id]?.room {
            if current == room {
                let others = (rooms[room] ?? []).filter { $0 != id }
                send(.peers(peers(others, you: id)), to: id, &actions)
                return
            }
            leave(id, &actions)
        }
        let existing = rooms[room] ?? []
        let media = sockets[id]?.media
        for member in existing {
            send(.newPeer(id, name: name), to: member, &actions)
            // A socket that announced its media before this join (a room change) is described to its new room too.
            if let media, format == .conftui { send(.mediaState(id, media), to: member, &actions) }
        }
        rooms[room] = existing + [id]
        joinedCount += 1
        sockets[id]?.room = room
        send(.peers(peers(existing, you: id)), to: id, &actions)
        actions.append(.log(.joined(id, room: room, members: existing.count + 1)))
    }

    /// Refuses a join past `limits` before anything changes. A same-room rejoin adds nobody; leaving
    /// a room one is alone in frees a room slot for the new one.
    private func checkLimits(_ id: SocketID, joining room: String) throws(SignalingError) {
        let current = sockets[id]?.room
        guard current != room else { return }
        let members = rooms[room]?.count ?? 0
        guard members < limits.maxMembersPerRoom else {
            throw .badMessage(.roomFull, "__join: the room is full (\(limits.maxMembersPerRoom) members)")
        }
        guard rooms[room] == nil else { return }
        var count = rooms.count
        if let current, rooms[current]?.count == 1 { count -= 1 }
        guard count < limits.maxRooms else {
            throw .badMessage(.tooManyRooms, "__join: the server has its most rooms (\(limits.maxRooms))")
        }
    }

    /// `_peers` for `you`, with the names and media states of those members that gave one.
    private func peers(_ members: [SocketID], you: SocketID) -> SkyRTCPeers {
        var names: [SocketID: String] = [:]
        var media: [SocketID: SkyRTCMediaState] = [:]
        for member in members {
            if let name = sockets[member]?.name { names[member] = name }
            if let state = sockets[member]?.media { media[member] = state }
        }
        return SkyRTCPeers(connections: members, you: you, names: names, media: media)
    }

    /// `__media_state` (our extension, docs/skyrtc-protocol.md §9): remembered for later joiners' `_peers.media` and
    /// relayed as `_media_state` to the other members, in join order. The original format does not know the event
    /// (refused like any unknown one: silently).
    private mutating func announce(_ id: SocketID, _ state: SkyRTCMediaState, _ actions: inout [Action]) throws(SignalingError) {
        guard format == .conftui else { throw .badMessage(.unknownEvent, "unknown eventName '__media_state'") }
        guard let room = sockets[id]?.room else { throw .badMessage(.notJoined, "__media_state before __join") }
        sockets[id]?.media = state
        for member in rooms[room] ?? [] where member != id {
            send(.mediaState(id, state), to: member, &actions)
        }
    }

    /// Removes `id` from its room; the others get `_remove_peer` in reverse join order, like the
    /// original's backwards loop on close.
    private mutating func leave(_ id: SocketID, _ actions: inout [Action]) {
        guard let room = sockets[id]?.room, var members = rooms[room] else { return }
        members.removeAll { $0 == id }
        for member in members.reversed() {
            send(.removePeer(id), to: member, &actions)
        }
        rooms[room] = members.isEmpty ? nil : members
        joinedCount -= 1
        sockets[id]?.room = nil
        actions.append(.log(.left(id, room: room, members: members.count)))
    }

    private func target(of sender: SocketID, _ target: SocketID, _ event: String) throws(SignalingError) -> SocketID? {
        switch format {
        case .original:
            // The original looks the target up among all connected sockets and drops unknown ones silently.
            return sockets[target] != nil ? target : nil
        case .conftui:
            guard let room = sockets[sender]?.room else {
                throw .badMessage(.notJoined, "\(event) before __join")
            }
            guard target != sender, rooms[room]?.contains(target) == true else {
                throw .badMessage(.unknownTarget, "\(event): \(target.rawValue.prefix(64)) is not another member of your room")
            }
            return target
        }
    }

    private func forward(_ message: SkyRTCServerMessage, to target: SocketID?, _ actions: inout [Action]) {
        guard let target else { return }
        send(message, to: target, &actions)
    }

    private func send(_ message: SkyRTCServerMessage, to id: SocketID, _ actions: inout [Action]) {
        actions.append(.send(id, message.jsonBytes(format: format)))
    }

    private mutating func refuse(_ id: SocketID, _ error: SignalingError, _ actions: inout [Action]) {
        guard case .badMessage(let code, let message) = error else { return }
        actions.append(.log(.refused(id, code, message)))
        if format == .conftui {
            send(.error(SkyRTCErrorReply(code: code, message: message)), to: id, &actions)
        }
        sockets[id]?.errors += 1
        if let errors = sockets[id]?.errors, errors >= Self.maxErrorsPerSocket {
            actions.append(.close(id, .policyViolation, "too many bad messages"))
        }
    }
}

/// Log-worthy happenings of `SkyRTCRooms`, one line each.
public enum SkyRTCRoomEvent: Equatable, Sendable, CustomStringConvertible {
    case joined(SocketID, room: String, members: Int)
    case left(SocketID, room: String, members: Int)
    case refused(SocketID, SkyRTCErrorCode, String)

    public var description: String {
        switch self {
        case .joined(let id, let room, let n): return "join \(id) room=\(JSONWriter.string(.string(room))) members=\(n)"
        case .left(let id, let room, let n): return "leave \(id) room=\(JSONWriter.string(.string(room))) members=\(n)"
        case .refused(let id, let code, let message): return "refused \(id) \(code.rawValue): \(message)"
        }
    }
}
