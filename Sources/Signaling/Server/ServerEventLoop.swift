import Synchronization
import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// The event-loop driver: one thread, `epoll(7)` over non-blocking sockets, feeding bytes into the
/// sans-IO cores (HTTP parser, `WebSocketSession`, `SkyRTCRooms`) and performing what they return.
/// Not Sendable: it is created on, and never leaves, the event-loop thread.
final class ServerEventLoop {
    private let config: SignalingServerConfiguration
    private let listenFD: Int32
    private let wakeFD: Int32
    private let tls: TLSServerContext?
    private let origins: OriginPolicy
    private let log: SignalingLog
    private let publish: (SignalingServerStats) -> Void

    private var connections: [Int32: ServerConnection] = [:]
    private var bySocket: [SocketID: ServerConnection] = [:]
    /// The connection slot (`limits`) of each member the room holds for a resume, by the address it
    /// came from: a held member is a connection that is away, so one address cannot take more places
    /// in rooms than its cap by dropping its connections on purpose. Given back on its resume or leave.
    private var heldSlots: [SocketID: UInt32] = [:]
    private var rooms: SkyRTCRooms
    private var limits: ConnectionLimits
    /// Sum of every live connection's `accountedBytes`, capped by `maxBufferedBytes`.
    private var bufferedTotal = 0
    /// Refused connections and accept failures: one line a second. Room events (joins, leaves,
    /// refused messages) and refused upgrades: 100 lines a second, bursts of 1000.
    private var refusalLog = LogThrottle(perSecond: 1, burst: 1)
    private var acceptFailureLog = LogThrottle(perSecond: 1, burst: 1)
    private var eventLog = LogThrottle(perSecond: 100, burst: 1000)
    private var doomed: [ServerConnection] = []
    private var stats = SignalingServerStats()
    private var now: Double
    /// `now` as the instant `WebSocketSession` takes.
    private var instant: MonotonicInstant { MonotonicInstant(seconds: now) }
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)
    /// Connections with forwarded messages queued this turn: each is flushed once at the end of the
    /// turn, so several messages for one recipient leave in one send(2).
    private var toFlush: [ServerConnection] = []

    init(config: SignalingServerConfiguration, listenFD: Int32, wakeFD: Int32, tls: TLSServerContext?, origins: OriginPolicy, log: SignalingLog,
         shouldStop: @escaping () -> Bool, publish: @escaping (SignalingServerStats) -> Void) {
        self.config = config
        self.listenFD = listenFD
        self.wakeFD = wakeFD
        self.tls = tls
        self.origins = origins
        self.log = log
        self.shouldStop = shouldStop
        self.publish = publish
        self.rooms = SkyRTCRooms(format: config.format, limits: SkyRTCRoomLimits(maxRooms: config.maxRooms,
                                                                                 maxMembersPerRoom: config.maxMembersPerRoom),
                                 resumeGrace: config.resumeGrace)
        self.limits = ConnectionLimits(total: min(config.maxConnections, SocketOptions.connectionCeiling()),
                                       perIP: config.maxConnectionsPerIP)
        self.now = MonotonicClock.now()
    }

    private let shouldStop: () -> Bool

    /// The poll timeout: fine enough for the shortest configured timer, at most 250 ms.
    private var tick: Double {
        max(0.005, min(0.25, config.handshakeTimeout / 4, config.pingInterval / 4, config.closeTimeout / 4))
    }

    /// The epoll(7) instance: readiness costs O(ready sockets) per turn, not O(connections) as
    /// with poll(2) — what keeps one thread cheap with thousands of mostly idle signaling sockets.
    private var epollFD: Int32 = -1
    private var readyFDs = [Int32](repeating: 0, count: 1024)
    private var readyEvents = [UInt32](repeating: 0, count: 1024)

    func run() {
        epollFD = cepoll_create()
        guard epollFD >= 0 else {
            log.write("epoll_create1 failed: \(String(cString: strerror(errno)))")
            return
        }
        defer { Glibc.close(epollFD) }
        _ = cepoll_ctl(epollFD, 0, wakeFD, UInt32(EPOLLIN.rawValue))
        _ = cepoll_ctl(epollFD, 0, listenFD, UInt32(EPOLLIN.rawValue))
        var lastSweep = MonotonicClock.now()
        while !shouldStop() {
            let count = cepoll_wait(epollFD, &readyFDs, &readyEvents, Int32(readyFDs.count), Int32(tick * 1000))
            now = MonotonicClock.now()
            var listenReady = false
            for i in 0..<max(0, Int(count)) {
                let fd = readyFDs[i]
                if fd == wakeFD {
                    drainWakePipe()
                } else if fd == listenFD {
                    listenReady = true
                } else if let conn = connections[fd], !conn.doomed {
                    // EPOLLIN/OUT/ERR/HUP have the values of POLLIN/OUT/ERR/HUP (asm-generic/poll.h).
                    service(conn, Int16(truncatingIfNeeded: readyEvents[i]))
                }
            }
            // Accepting after the batch: a descriptor number in this batch always means the
            // connection that was registered when epoll reported it (none is closed before reap()).
            if listenReady { acceptAll() }
            if now - lastSweep >= tick {
                sweepTimers()
                lastSweep = now
            }
            // Reaping tells rooms (more messages to flush); flushing may doom a connection (more to reap).
            repeat {
                flushScheduledOutput()
                reap()
            } while !toFlush.isEmpty
            publishStats()
        }
        shutdownAll()
    }

    /// Asks for writability only while there is something to write (or TLS needs it): level-
    /// triggered EPOLLOUT on an idle socket would wake the loop for nothing.
    private func updateInterest(_ conn: ServerConnection) {
        guard !conn.doomed else { return }
        var events = UInt32(EPOLLIN.rawValue)
        if conn.pendingOutput > 0 || conn.readNeedsWrite { events |= UInt32(EPOLLOUT.rawValue) }
        if events != conn.interest {
            conn.interest = events
            _ = cepoll_ctl(epollFD, 1, conn.fd, events)
        }
    }

    // MARK: accepting

    private func drainWakePipe() {
        var buf = [UInt8](repeating: 0, count: 64)
        while Glibc.read(wakeFD, &buf, buf.count) > 0 {}
    }

    private func acceptAll() {
        while true {
            // accept4 is a GNU extension Glibc's module does not export; accept + fcntl does the same.
            var peer = sockaddr_in()
            var peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listenFD, $0, &peerLength) }
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK, let more = acceptFailureLog.admit(now: now) {
                    log.write("accept failed: \(String(cString: strerror(errno)))\(more)")
                }
                return
            }
            stats.accepted += 1
            SocketOptions.setNonBlocking(fd)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let address = peer.sin_addr.s_addr
            let remote = SocketOptions.text(peer.sin_addr)
            switch limits.admit(address) {
            case .accept:
                break
            case .refuseTotal:
                refuse(fd, remote, "\(limits.total) connections open (the server's cap)")
                continue
            case .refusePerIP:
                refuse(fd, remote, "\(limits.perIP) connections open from this address (the per-address cap)")
                continue
            }
            SocketOptions.setNoDelay(fd)
            let stream: ByteStream
            if let tls {
                guard let s = tls.makeStream(fd: fd) else {
                    limits.release(address)
                    Glibc.close(fd)
                    continue
                }
                stream = s
            } else {
                stream = PlainStream(fd: fd)
            }
            let conn = ServerConnection(fd: fd, stream: stream, now: now)
            conn.remoteAddress = address
            conn.remoteText = remote
            connections[fd] = conn
            conn.interest = UInt32(EPOLLIN.rawValue)
            _ = cepoll_ctl(epollFD, 0, fd, conn.interest)
        }
    }

    private func refuse(_ fd: Int32, _ remote: String, _ reason: String) {
        stats.refusedConnections += 1
        if let more = refusalLog.admit(now: now) { log.write("connection from \(remote) refused: \(reason)\(more)") }
        ConnectionRefusal.refuse(fd, plainHTTP: tls == nil, reason: "server busy: \(reason)")
    }

    // MARK: one connection's readiness

    private func service(_ conn: ServerConnection, _ revents: Int16) {
        if revents & Int16(POLLNVAL) != 0 { return doom(conn) }
        let readable = revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
        let writable = revents & Int16(POLLOUT) != 0
        if readable || (writable && conn.readNeedsWrite) {
            conn.readNeedsWrite = false
            readAvailable(conn)
        }
        if !conn.doomed && conn.pendingOutput > 0 { flush(conn) }
        updateInterest(conn)
        account(conn)
    }

    private func readAvailable(_ conn: ServerConnection) {
        // A budget per turn, so one fast sender cannot starve the others. TLS may hold decrypted
        // bytes beyond the budget, so a TLS connection that hits it is revisited next turn.
        var budget = 1 << 20
        while budget > 0 && !conn.doomed {
            let result = scratch.withUnsafeMutableBytes { conn.stream.read(into: $0) }
            switch result {
            case .bytes(let n):
                budget -= n
                // `n` comes from the stream, which never reports more than the buffer it was given;
                // checked anyway, since a slice past the end would trap.
                guard n > 0 && n <= scratch.count else { return doom(conn) }
                scratch.withUnsafeBufferPointer { handle(conn, UnsafeBufferPointer(rebasing: $0[0..<n])) }
                // A plain socket that filled less than the buffer has been drained: skip the read that
                // would only say EAGAIN (epoll is level-triggered, so anything that arrives later
                // wakes the loop again). TLS may hold decrypted bytes epoll cannot see, so it reads on.
                if tls == nil && n < scratch.count { return }
            case .wouldBlock:
                return
            case .wantsWrite:
                conn.readNeedsWrite = true
                return
            case .endOfStream:
                return doom(conn)
            case .failed(let why):
                if !conn.isClosing { log.write("connection \(conn.socketID?.rawValue ?? "fd \(conn.fd)") failed: \(why)") }
                return doom(conn)
            }
        }
        if budget <= 0 && tls != nil { conn.readNeedsWrite = true }
    }

    private func handle(_ conn: ServerConnection, _ bytes: UnsafeBufferPointer<UInt8>) {
        switch conn.phase {
        case .http:
            conn.httpBuffer.append(contentsOf: bytes)
            handleHTTP(conn)
        case .webSocket:
            conn.session?.receive(bytes)
            drainEvents(conn)
        case .responded:
            // Waiting for the peer's EOF after our response; what it sends is moot.
            break
        }
    }

    private func handleHTTP(_ conn: ServerConnection) {
        switch HTTPRequestParser.parse(conn.httpBuffer, maxHeadBytes: config.maxRequestHeadBytes) {
        case .incomplete:
            return
        case .tooLarge:
            respond(conn, .text(431, "Request Header Fields Too Large", "request head too large\n"), headOnly: false)
        case .invalid(let why):
            respond(conn, .text(400, "Bad Request", "\(why)\n"), headOnly: false)
        case .complete(let head, let consumed):
            switch HTTPRouter.route(head, page: config.page) {
            case .respond(let response, let headOnly):
                respond(conn, response, headOnly: headOnly)
            case .upgrade(let response):
                // §4.2.2 /origin/: "If the server does not wish to accept this connection, it MUST return an
                // appropriate HTTP error code (e.g., 403 Forbidden) and abort the WebSocket handshake"; §10.2
                // "SHOULD verify the |Origin| field is an origin they expect". What we expect: `OriginPolicy`.
                if case .refuse(let why) = origins.check(origin: head.header("origin"), host: head.header("host")) {
                    stats.refusedOrigins += 1
                    if let more = eventLog.admit(now: now) {
                        log.write("upgrade from \(conn.remoteText) refused (403): \(why): Origin \(head.header("origin") ?? "") Host \(head.header("host") ?? "")\(more)")
                    }
                    return respond(conn, .text(403, "Forbidden", "this origin may not open a WebSocket here\n"), headOnly: false)
                }
                let rate = MessageRateLimit(perSecond: config.messagesPerSecond, burst: config.messageBurst,
                                            refusalsBeforeClose: config.rateRefusalsBeforeClose, now: now)
                conn.session = WebSocketSession(role: .server, maxMessageSize: config.maxMessageSize,
                                                timers: .init(pingInterval: config.pingInterval, closeTimeout: config.closeTimeout),
                                                rateLimit: rate, now: instant)
                let leftover = Array(conn.httpBuffer[consumed...])
                conn.httpBuffer = []
                conn.phase = .webSocket
                let id = SocketID.random()
                conn.socketID = id
                bySocket[id] = conn
                enqueue(conn, response.serialized())
                // The original format never sends nor honours a token: none is drawn.
                perform(rooms.handle(.opened(id, resumeToken: config.format == .conftui ? ResumeToken.random() : nil)))
                // A client may pipeline its first frames right behind the request (§4.1 lets it send
                // once it has the 101, but bytes can arrive together).
                if !leftover.isEmpty && !conn.doomed {
                    conn.session?.receive(leftover)
                    drainEvents(conn)
                }
            }
        }
    }

    private func respond(_ conn: ServerConnection, _ response: HTTPResponse, headOnly: Bool) {
        conn.httpBuffer = []
        conn.phase = .responded
        conn.respondedAt = now
        enqueue(conn, response.serialized(headOnly: headOnly))
    }

    /// Performs what the session made of the bytes received: messages go to the room; pongs and
    /// close answers it queued itself are flushed at the end of the turn.
    private func drainEvents(_ conn: ServerConnection) {
        var wrote = false
        while !conn.doomed {
            let before = conn.pendingOutput
            guard let event = conn.session?.nextEvent(now: instant, into: &conn.output.bytes) else { break }
            wrote = wrote || conn.pendingOutput != before
            switch event {
            case .message(let bytes, let isText):
                // Text and binary both carry UTF-8 JSON; the bytes go to the room as they are.
                if let id = conn.socketID { perform(rooms.handle(.message(id, bytes, isBinary: !isText))) }
            case .pong:
                break  // the session's idle timer was refreshed by the frame
            case .throttled(let warn):
                stats.rateLimited += 1
                if warn, let id = conn.socketID { perform(rooms.handle(.throttled(id))) }
            case .closed:
                forgetSocket(conn)
            case .protocolError(let error):
                if error.code == .policyViolation {
                    // The session's only 1008: still over the rate after `rate_limited` (`MessageRateLimit`).
                    stats.rateLimited += 1
                    log.write("closing \(conn.socketID?.rawValue ?? "?") from \(conn.remoteText): still over \(config.messagesPerSecond) messages/s after rate_limited")
                } else if conn.socketID != nil {
                    log.write("failing \(conn.socketID?.rawValue ?? "?") with \(error.code.rawValue): \(error.reason)")
                }
                forgetSocket(conn)
            case .dropped:
                doom(conn)
            }
        }
        if wrote { scheduleFlush(conn) }
    }

    /// Keeps `bufferedTotal` in step with `conn` and, past `maxBufferedBytes`, drops the connections
    /// holding the most until the total fits: one hoarding client loses its connection, the server
    /// and everyone else keep going.
    private func account(_ conn: ServerConnection) {
        let held = conn.doomed ? 0 : conn.bufferedBytes
        bufferedTotal += held - conn.accountedBytes
        conn.accountedBytes = held
        while bufferedTotal > config.maxBufferedBytes {
            guard let biggest = connections.values.filter({ !$0.doomed }).max(by: { $0.accountedBytes < $1.accountedBytes }),
                  biggest.accountedBytes > 0 else { return }
            stats.droppedOverBudget += 1
            log.write("dropping \(biggest.socketID?.rawValue ?? "fd \(biggest.fd)") from \(biggest.remoteText): holds \(biggest.accountedBytes) bytes, "
                      + "the most while the server holds \(bufferedTotal) (cap \(config.maxBufferedBytes))")
            doom(biggest)
        }
    }

    // MARK: writing and closing

    /// Bytes outside the session (the HTTP response): queued and written at once.
    private func enqueue(_ conn: ServerConnection, _ bytes: [UInt8]) {
        guard !conn.doomed else { return }
        conn.output.bytes.append(contentsOf: bytes)
        guard !overflowed(conn) else { return }
        flush(conn)
        account(conn)
    }

    /// Frames the session appended: written once at the end of the turn, with whatever else the
    /// turn queues for the same connection.
    private func scheduleFlush(_ conn: ServerConnection) {
        guard !conn.doomed, !overflowed(conn), !conn.flushScheduled else { return }
        conn.flushScheduled = true
        toFlush.append(conn)
    }

    /// Dooms a connection whose unread output passed the cap; true if it did.
    private func overflowed(_ conn: ServerConnection) -> Bool {
        guard conn.pendingOutput > config.maxOutgoingBytes else { return false }
        stats.droppedSlowConsumers += 1
        log.write("dropping \(conn.socketID?.rawValue ?? "fd \(conn.fd)"): \(conn.pendingOutput) bytes unread (cap \(config.maxOutgoingBytes))")
        doom(conn)
        return true
    }

    private func flushScheduledOutput() {
        // flush() never schedules more (it only writes, or dooms), so the list is stable while walked.
        for conn in toFlush {
            conn.flushScheduled = false
            if !conn.doomed { flush(conn) }
            account(conn)
        }
        toFlush.removeAll(keepingCapacity: true)
    }

    private func flush(_ conn: ServerConnection) {
        defer { updateInterest(conn) }
        guard conn.output.write(to: conn.stream) != nil else { return doom(conn) }
        if conn.isClosing && conn.pendingOutput == 0 && !conn.halfClosed {
            conn.halfClosed = true
            conn.stream.shutdownWrite()
        }
    }

    /// Starts the close handshake (once); the frame leaves at the end of the turn.
    private func closeWebSocket(_ conn: ServerConnection, _ code: WebSocketCloseCode, _ reason: String) {
        guard conn.session?.close(code, reason: reason, now: instant, into: &conn.output.bytes) == true else { return }
        forgetSocket(conn)
        scheduleFlush(conn)
    }

    /// The room forgets the socket: nothing more may be sent to it after a close frame, nor to a
    /// connection that is gone. One that ended abruptly is `.lost` (its member may be held for a resume).
    private func forgetSocket(_ conn: ServerConnection) {
        guard let id = conn.socketID else { return }
        conn.socketID = nil
        bySocket[id] = nil
        perform(rooms.handle(conn.endedAbruptly ? .lost(id, now: instant) : .closed(id)))
    }

    /// `.resume(from, as: id)`: the connection registered as `from` is `id` from now on. The
    /// connection that was `id` (its member reconnected before the server noticed the old one was
    /// gone) is unhooked first, so nothing it still delivers reaches the room and its end is never
    /// reported as `id`'s; then it is closed with 1000. The new connection keeps its own session
    /// (rate limit, timers) and output: only its key changes.
    private func resume(_ from: SocketID, as id: SocketID) {
        stats.resumed += 1
        if let address = heldSlots.removeValue(forKey: id) { limits.release(address) }
        if let old = bySocket.removeValue(forKey: id) {
            old.socketID = nil
            if old.session?.close(.normal, reason: "resumed on a new connection", now: instant, into: &old.output.bytes) == true {
                scheduleFlush(old)
            }
        }
        guard let conn = bySocket.removeValue(forKey: from) else {
            // Not reached: the resuming `__join` came from that connection in this same turn, and a
            // connection is unregistered only together with the room being told. Should it happen,
            // the member has no connection, so it leaves.
            perform(rooms.handle(.closed(id)))
            return
        }
        conn.socketID = id
        bySocket[id] = conn
    }

    private func perform(_ actions: [SkyRTCRooms.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let json):
                // Framed straight into the connection's output buffer: one copy of the payload.
                if let conn = bySocket[id], !conn.doomed,
                   conn.session?.send(.text, payload: json, into: &conn.output.bytes) == true {
                    scheduleFlush(conn)
                }
            case .close(let id, let code, let reason):
                if let conn = bySocket[id] { closeWebSocket(conn, code, reason) }
            case .resume(let from, let id):
                resume(from, as: id)
            case .log(let event):
                if let more = eventLog.admit(now: now) { log.write(event.description + more) }
            }
        }
    }

    /// `abrupt`: the client went silent (see `ServerConnection.endedAbruptly`); drops
    /// the server decides on (over a cap, a timeout after its own close) are not.
    private func doom(_ conn: ServerConnection, abrupt: Bool = false) {
        guard !conn.doomed else { return }
        conn.doomed = true
        conn.endedAbruptly = abrupt
        bufferedTotal -= conn.accountedBytes
        conn.accountedBytes = 0
        doomed.append(conn)
    }

    /// Tears doomed connections down. Telling the room may doom others (a `_remove_peer` that
    /// overflows a slow reader), hence the loop.
    private func reap() {
        while let conn = doomed.popLast() {
            connections[conn.fd] = nil
            _ = cepoll_ctl(epollFD, 2, conn.fd, 0)
            conn.stream.close()
            let id = conn.socketID
            forgetSocket(conn)
            if let id, rooms.isHeld(id) {
                heldSlots[id] = conn.remoteAddress
            } else {
                limits.release(conn.remoteAddress)
            }
        }
    }

    // MARK: timers

    private func sweepTimers() {
        for conn in connections.values where !conn.doomed {
            switch conn.phase {
            case .http:
                if now - conn.openedAt > config.handshakeTimeout {
                    log.write("closing fd \(conn.fd): no opening handshake within \(config.handshakeTimeout) s")
                    doom(conn)
                }
            case .webSocket:
                let before = conn.pendingOutput
                switch conn.session?.expire(now: instant, into: &conn.output.bytes) {
                case .dropped(.idle(let silent)):
                    log.write("dropping \(conn.socketID?.rawValue ?? "?") from \(conn.remoteText): no complete message for \(Int(silent)) s")
                    doom(conn, abrupt: true)
                case .dropped(.closeTimeout):
                    doom(conn)
                default:
                    // A keepalive ping, if one was due.
                    if conn.pendingOutput != before { scheduleFlush(conn) }
                }
            case .responded:
                if now - conn.respondedAt > config.closeTimeout { doom(conn) }
            }
        }
        // Members held for a resume whose grace is over leave (`_remove_peer` to the others).
        if let due = rooms.nextDeadline, due <= instant { perform(rooms.handle(.tick(instant))) }
        releaseHeldSlots()
    }

    /// Gives back the slots of members no longer held (their grace ended, or the held members' byte
    /// budget made them leave). A resume gives its slot back itself.
    private func releaseHeldSlots() {
        for (id, address) in heldSlots where !rooms.isHeld(id) {
            heldSlots[id] = nil
            limits.release(address)
        }
    }

    private func publishStats() {
        stats.connections = connections.count
        stats.webSockets = rooms.socketCount
        stats.rooms = rooms.roomCount
        stats.joined = rooms.joinedCount
        stats.held = rooms.heldCount
        publish(stats)
    }

    /// On stop: §7.4.1 1001 "going away" to every WebSocket, one last flush, then close everything.
    private func shutdownAll() {
        for conn in connections.values where conn.phase == .webSocket && !conn.doomed {
            closeWebSocket(conn, .goingAway, "server shutting down")
        }
        flushScheduledOutput()
        for conn in connections.values where !conn.doomed { doom(conn) }
        reap()
        publishStats()
    }
}
