/// The SkyRTC server logic as a pure state machine: connection events in, actions out. No sockets,
/// no clock, no randomness, no threads: the time comes in as input values (`.lost`, `.tick`) and the
/// resume tokens with `.opened`; the event loop (`SignalingServer`) is a thin driver that performs the
/// actions in order. Every rule of docs/skyrtc-protocol.md §4 (and of our extensions, §8-§10) is here
/// and unit-tested.
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
///   original format does it silently, as it does all bad input. A member held for a resume counts.
/// - **Resume** (our extension, conftui format only; docs/skyrtc-protocol.md §10): each connection
///   gets a secret token (`.opened`), sent to it alone in `_peers.resume`. A new connection whose
///   first `__join` presents the token of a member of that same room *becomes* that member: same
///   socketId, place, name, media state and token; the old connection is closed quietly (`.resume`)
///   and the others hear nothing, so their peer connections stay and only restart ICE. A member
///   that joined `resumable` and went silent (`.lost`: no answer to pings) keeps its place for `resumeGrace`
///   seconds, its messages held (`SkyRTCHeldMessages`, and `heldBytesBudget` for all) for the
///   connection that resumes it; after that it leaves as on a close. The original format never sends nor honours a token, and a
///   drop is a leave at once, as on the original.
public struct SkyRTCRooms: Sendable {
    public enum Input: Equatable, Sendable {
        /// A WebSocket connection completed its opening handshake and was given `id`. `resumeToken`
        /// (conftui format) is the secret that lets a later connection become `id`: the driver draws
        /// it at random; the core only compares it. Ignored in the original format.
        case opened(SocketID, resumeToken: String? = nil)
        /// A complete data message arrived (text or binary; both carry UTF-8 JSON).
        case message(SocketID, [UInt8], isBinary: Bool)
        /// The connection is gone after a close frame from the client, one the server sent (a refusal, a
        /// protocol error, a shutdown), or an end of stream or reset (the client's process is gone): the socket
        /// leaves at once.
        case closed(SocketID)
        /// The client went silent (no answer to the server's pings) at `now`: a member that joined `resumable`
        /// (conftui format) is held for a resume until `now + resumeGrace`; otherwise the same as `.closed`.
        case lost(SocketID, now: MonotonicInstant)
        /// The driver dropped a message from this socket for exceeding its rate (tell it, once per burst).
        case throttled(SocketID)
        /// The time is `now`: members held past their grace leave. Due at `nextDeadline`.
        case tick(MonotonicInstant)
    }

    /// What the driver must do, in order.
    public enum Action: Equatable, Sendable {
        /// Send this JSON text (UTF-8) to the socket as one text frame.
        case send(SocketID, [UInt8])
        /// Close the socket with this status code (§7.4.1).
        case close(SocketID, WebSocketCloseCode, String)
        /// `.resume(connection, as: member)`: the connection registered as `connection` resumed `member`.
        /// Close the connection registered as `member`, if any, quietly (1000) and without telling the
        /// core (which has moved on: a `.closed(member)` now would make the member leave); then register
        /// `connection`'s connection under `member`, so that its messages arrive as `member` and sends to
        /// `member` reach it. The core has forgotten `connection`. The sends that follow are for it.
        case resume(SocketID, as: SocketID)
        /// Something worth one log line.
        case log(SkyRTCRoomEvent)
    }

    public static let defaultRoom = "__default"
    public static let maxErrorsPerSocket = 32
    /// Seconds a member whose connection dropped keeps its place: enough for a client to notice the
    /// loss and reconnect over its new network, short enough that a member really gone is not shown long.
    public static let defaultResumeGrace = 10.0
    /// 64 held members' worth at their full 256 KiB, a quarter of what the server buffers for all its
    /// connections together (`SignalingServerConfiguration.maxBufferedBytes`).
    public static let defaultHeldBytesBudget = 16 << 20

    public let format: SkyRTCWireFormat
    public let limits: SkyRTCRoomLimits
    /// Seconds a member whose connection dropped is held for a resume (0 or less: never held).
    public let resumeGrace: Double
    /// Bytes held for all held members together (`SkyRTCHeldMessages` bounds each one): past it, the
    /// member holding the most leaves at once, so members dropped on purpose cannot make the server
    /// hold their share of every room's traffic.
    public let heldBytesBudget: Int

    private struct SocketState {
        var room: String?
        /// The display name from the last `__join`, already cleaned.
        var name: String?
        /// The last `__media_state` (conftui format), kept across rejoins: it describes the socket's media, not a room.
        var media: SkyRTCMediaState?
        var errors = 0
        /// The resume token of this identity (conftui format); a resumed member keeps its own.
        var token: String?
        /// Its last `__join` said it would resume (`resumable`): only then is its place kept when it drops.
        var resumable = false
    }

    /// A member without a connection, waiting for a resume until `deadline`.
    private struct Held {
        var deadline: MonotonicInstant
        var messages = SkyRTCHeldMessages()
    }

    /// Every identity: connected sockets, and held members (which are in `held` too).
    private var sockets: [SocketID: SocketState] = [:]
    /// Room name → members in join order.
    private var rooms: [String: [SocketID]] = [:]
    /// Resume token → the socket it belongs to.
    private var tokens: [String: SocketID] = [:]
    private var held: [SocketID: Held] = [:]
    /// The sum of `held`'s `messages.bytes`.
    public private(set) var heldBytes = 0

    /// Why a held member leaves without a resume, for its log line.
    private enum HeldEnd {
        case graceOver
        case overBudget
    }

    public init(format: SkyRTCWireFormat = .conftui, limits: SkyRTCRoomLimits = .unlimited,
                resumeGrace: Double = SkyRTCRooms.defaultResumeGrace, heldBytesBudget: Int = SkyRTCRooms.defaultHeldBytesBudget) {
        self.format = format
        self.limits = limits
        self.resumeGrace = resumeGrace
        self.heldBytesBudget = max(0, heldBytesBudget)
    }

    /// Open connections (joined or not); a held member has none.
    public var socketCount: Int { sockets.count - held.count }
    /// Rooms with at least one member.
    public var roomCount: Int { rooms.count }
    /// Sockets that are members of a room, held ones included (they keep their place).
    public private(set) var joinedCount = 0
    /// Members whose connection dropped, waiting for a resume.
    public var heldCount: Int { held.count }
    public func members(of room: String) -> [SocketID] { rooms[room] ?? [] }
    public func room(of socket: SocketID) -> String? { sockets[socket]?.room }
    /// The display name `socket` gave in its last `__join`, cleaned.
    public func name(of socket: SocketID) -> String? { sockets[socket]?.name }
    public func isHeld(_ socket: SocketID) -> Bool { held[socket] != nil }
    /// When the next held member's grace ends: the driver sends `.tick` then (or later).
    public var nextDeadline: MonotonicInstant? { held.values.lazy.map(\.deadline).min() }

    /// A socket with a connection: known, and not held (a held member has no connection to hear from).
    private func isConnected(_ id: SocketID) -> Bool { sockets[id] != nil && (held.isEmpty || held[id] == nil) }

    public mutating func handle(_ input: Input) -> [Action] {
        var actions: [Action] = []
        switch input {
        case .opened(let id, let token):
            // Ids are fresh UUIDs; one still in use (a held member's, say) is never taken over this way.
            guard sockets[id] == nil else { break }
            var state = SocketState()
            // A token already in use (never, with 128 random bits) is not given out twice.
            if format == .conftui, let token, tokens[token] == nil {
                tokens[token] = id
                state.token = token
            }
            sockets[id] = state
        case .closed(let id):
            guard isConnected(id) else { break }
            forget(id, &actions)
        case .lost(let id, let now):
            guard isConnected(id) else { break }
            guard format == .conftui, resumeGrace > 0, sockets[id]?.resumable == true, let room = sockets[id]?.room else {
                forget(id, &actions)
                break
            }
            held[id] = Held(deadline: now + resumeGrace)
            actions.append(.log(.held(id, room: room, seconds: resumeGrace)))
        case .tick(let now):
            let due = held.filter { $0.value.deadline <= now }.sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            for (id, _) in due { endHold(id, .graceOver, &actions) }
        case .message(let id, let bytes, let isBinary):
            guard isConnected(id) else { break }
            do {
                try dispatch(id, try SkyRTCInbound.decode(bytes, isBinary: isBinary), &actions)
                sockets[id]?.errors = 0
            } catch {
                refuse(id, error, &actions)
            }
        case .throttled(let id):
            guard isConnected(id) else { break }
            let message = "too many messages per second: messages are being dropped"
            actions.append(.log(.refused(id, .rateLimited, message)))
            if format == .conftui {
                send(.error(SkyRTCErrorReply(code: .rateLimited, message: message)), to: id, &actions)
            }
        }
        // Here, once the input is done, not where a message is held: a member leaving in the middle
        // of a join or a leave would change the room under it.
        while heldBytes > heldBytesBudget, let (id, _) = held.max(by: { ($0.value.messages.bytes, $1.key) < ($1.value.messages.bytes, $0.key) }) {
            endHold(id, .overBudget, &actions)
        }
        return actions
    }

    /// A held member leaves without a resume, as on a close; what was held for it is dropped.
    private mutating func endHold(_ id: SocketID, _ why: HeldEnd, _ actions: inout [Action]) {
        guard let member = unhold(id) else { return }
        leave(id, &actions, held: (why, member.messages.dropped + member.messages.messages.count))
        forget(id, &actions)
    }

    /// Takes `id` out of `held`, keeping `heldBytes` in step.
    private mutating func unhold(_ id: SocketID) -> Held? {
        guard let member = held.removeValue(forKey: id) else { return nil }
        heldBytes -= member.messages.bytes
        return member
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
                deliver(SkyRTCServerMessage.descriptionBytes(eventName: out, sdpJSON: sdpJSON, socketId: id), to: to, &actions)
            }
            return
        }
        switch message {
        case .join(let join):
            if let token = join.resume, format == .conftui, let member = resumable(by: id, token, room: join.room, &actions) {
                resume(member, on: id, name: join.name, &actions)
                sockets[member]?.resumable = join.resumable == true
                return
            }
            try self.join(id, room: join.room, name: join.name, &actions)
            sockets[id]?.resumable = join.resumable == true
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

    /// The member a `__join` with `resume` may become, or nil (logged why) for an ordinary join. A token
    /// names an identity, not a room: the join must ask for the member's own room, so a resume never
    /// moves anyone. Only a connection's first join resumes: one already in a room would have to leave
    /// it, which the others would see.
    private func resumable(by id: SocketID, _ token: String, room: String, _ actions: inout [Action]) -> SocketID? {
        let why: String
        if let member = tokens[token] {
            if member == id {
                why = "the token is this connection's own"
            } else if sockets[id]?.room != nil {
                why = "this connection has joined already"
            } else if let memberRoom = sockets[member]?.room {
                if memberRoom == room { return member }
                why = "its member is in another room"
            } else {
                why = "its connection has not joined"
            }
        } else {
            why = "the token matches no connection"
        }
        actions.append(.log(.notResumed(id, why)))
        return nil
    }

    /// `connection` becomes `member` (docs/skyrtc-protocol.md §10): `member` keeps its place, media state,
    /// token and (unless the join gives a new one) name; `connection` and its own token are forgotten.
    /// The driver moves the connection over (`.resume`), then `member` gets a fresh `_peers` and
    /// whatever was held for it, in order. The other members get nothing.
    private mutating func resume(_ member: SocketID, on connection: SocketID, name: String?, _ actions: inout [Action]) {
        guard let room = sockets[member]?.room else { return }
        if let token = sockets[connection]?.token { tokens[token] = nil }
        sockets[connection] = nil
        if let name { sockets[member]?.name = name }
        sockets[member]?.errors = 0
        let wasHeld = unhold(member)
        actions.append(.resume(connection, as: member))
        let others = (rooms[room] ?? []).filter { $0 != member }
        send(.peers(peers(others, you: member)), to: member, &actions)
        let kept = wasHeld?.messages.messages ?? []
        for message in kept { actions.append(.send(member, message)) }
        actions.append(.log(.resumed(member, room: room, connection: connection, delivered: kept.count,
                                     dropped: wasHeld?.messages.dropped ?? 0)))
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
        return SkyRTCPeers(connections: members, you: you, names: names, media: media, resume: sockets[you]?.token)
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

    /// The socket is gone for good: it leaves its room, and its token stops working.
    private mutating func forget(_ id: SocketID, _ actions: inout [Action]) {
        leave(id, &actions)
        if let token = sockets[id]?.token { tokens[token] = nil }
        sockets[id] = nil
    }

    /// Removes `id` from its room; the others get `_remove_peer` in reverse join order, like the
    /// original's backwards loop on close. `held`: a held member that leaves without a resume, why, and
    /// the number of messages held for it that nobody will read.
    private mutating func leave(_ id: SocketID, _ actions: inout [Action], held: (HeldEnd, dropped: Int)? = nil) {
        guard let room = sockets[id]?.room, var members = rooms[room] else { return }
        members.removeAll { $0 == id }
        for member in members.reversed() {
            send(.removePeer(id), to: member, &actions)
        }
        rooms[room] = members.isEmpty ? nil : members
        joinedCount -= 1
        sockets[id]?.room = nil
        switch held {
        case (.graceOver, let dropped)?:
            actions.append(.log(.expired(id, room: room, members: members.count, dropped: dropped)))
        case (.overBudget, let dropped)?:
            actions.append(.log(.evicted(id, room: room, members: members.count, dropped: dropped, budget: heldBytesBudget)))
        case nil:
            actions.append(.log(.left(id, room: room, members: members.count)))
        }
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

    private mutating func forward(_ message: SkyRTCServerMessage, to target: SocketID?, _ actions: inout [Action]) {
        guard let target else { return }
        send(message, to: target, &actions)
    }

    private mutating func send(_ message: SkyRTCServerMessage, to id: SocketID, _ actions: inout [Action]) {
        deliver(message.jsonBytes(format: format), to: id, &actions)
    }

    /// Every message for a socket goes through here: a held member's is kept for its resume.
    private mutating func deliver(_ bytes: [UInt8], to id: SocketID, _ actions: inout [Action]) {
        if !held.isEmpty, held[id] != nil {
            let before = held[id]?.messages.bytes ?? 0
            held[id]?.messages.append(bytes)
            heldBytes += (held[id]?.messages.bytes ?? 0) - before
            return
        }
        actions.append(.send(id, bytes))
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
    /// A member's connection dropped without a close; it keeps its place for `seconds`.
    case held(SocketID, room: String, seconds: Double)
    /// A held member's grace ended: it left; `dropped` messages held for it were never delivered.
    case expired(SocketID, room: String, members: Int, dropped: Int)
    /// The held members together held more than `budget` bytes, this one the most: it left before its grace ended.
    case evicted(SocketID, room: String, members: Int, dropped: Int, budget: Int)
    /// A new connection became this member; `delivered` held messages went to it, `dropped` were lost.
    case resumed(SocketID, room: String, connection: SocketID, delivered: Int, dropped: Int)
    /// A `__join` with a resume token that was not honoured, and why (the token itself is never logged).
    case notResumed(SocketID, String)

    public var description: String {
        switch self {
        case .joined(let id, let room, let n): return "join \(id) room=\(Self.quoted(room)) members=\(n)"
        case .left(let id, let room, let n): return "leave \(id) room=\(Self.quoted(room)) members=\(n)"
        case .refused(let id, let code, let message): return "refused \(id) \(code.rawValue): \(message)"
        case .held(let id, let room, let seconds):
            return "hold \(id) room=\(Self.quoted(room)): connection lost without a close, \(seconds) s to resume"
        case .expired(let id, let room, let n, let dropped):
            return "leave \(id) room=\(Self.quoted(room)) members=\(n): not resumed in time; held messages: \(dropped) dropped"
        case .evicted(let id, let room, let n, let dropped, let budget):
            return "leave \(id) room=\(Self.quoted(room)) members=\(n): held members over \(budget) bytes, it held the most; held messages: \(dropped) dropped"
        case .resumed(let id, let room, let connection, let delivered, let dropped):
            return "resumed \(id) room=\(Self.quoted(room)) (connection \(connection)); held messages: \(delivered) delivered, \(dropped) dropped"
        case .notResumed(let id, let why): return "no resume for \(id) (joining as itself): \(why)"
        }
    }

    private static func quoted(_ room: String) -> String { JSONWriter.string(.string(room)) }
}
