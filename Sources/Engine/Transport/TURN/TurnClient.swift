/// RFC 8656 TURN client for one allocation on one server, sans-IO.
///
/// Feed it `handle(_ input, now:)` with commands, datagrams from the server and timeouts; it returns what to send to
/// the server, events and the next deadline. It never reads a clock or touches a socket, so one instance belongs to
/// one owner (the ICE agent, or a test on a virtual clock).
///
/// What it does: Allocate with long-term credentials (RFC 8489 §9.2: the first request goes unauthenticated, the
/// 401 names REALM and NONCE, the retry carries USERNAME, REALM, NONCE and MESSAGE-INTEGRITY keyed by
/// MD5(username ":" realm ":" password); a 438 brings a new nonce and the request is sent again), Refresh before
/// the allocation expires, CreatePermission for each peer IP and refresh before the 5 minutes run out, Send
/// indications until a channel is bound, ChannelBind and ChannelData after that, Refresh with LIFETIME 0 on close.
///
/// Everything from the server is checked before use: messages are decoded by the strict STUN decoder, responses must
/// match an outstanding transaction and (once we sign) carry a MESSAGE-INTEGRITY that verifies, lifetimes are
/// clamped (`TurnLifetimes.grantedLifetimeBounds`), ChannelData must name a channel we asked for and Data indications
/// a peer we permitted. Bounded: `maxPermissions`, `maxChannels`, `maxQueuedPerPeer`; at most one transaction per
/// permission, channel and the allocation itself.
public final class TurnClient {
    public let config: TurnClientConfig
    public private(set) var state: TurnAllocationState = .idle
    public private(set) var relayedAddress: TransportAddress?
    public private(set) var mappedAddress: TransportAddress?
    /// Why the allocation failed (the same text as the `.failed` event).
    public private(set) var failureReason: String?
    /// Datagrams to peers dropped: no allocation, another address family, a refused permission, or a bound hit.
    public private(set) var droppedSends = 0
    /// Datagrams from the server dropped: undecodable, unmatched, failing integrity, or from an unknown channel/peer.
    public private(set) var droppedReceives = 0

    private var realm: String?
    private var nonce: String?
    private var key: [UInt8]?
    /// When to refresh the allocation (nil while a Refresh is in flight or there is no allocation).
    private var refreshAt: TransportTime?
    private var transactions: [TransactionID: TurnTransaction] = [:]
    private var permissions: [IPAddress: TurnPermission] = [:]
    /// Allocation health (`TurnClientConfig.silenceProbeAfter`): when anything valid last came from the server, when
    /// we last relayed to a peer, when the last probe left.
    private var lastHeardAt: TransportTime?
    private var lastRelayedAt: TransportTime?
    private var lastProbeAt: TransportTime?
    private var channels: [TransportAddress: TurnChannel] = [:]
    private var peerByChannel: [UInt16: TransportAddress] = [:]
    private var nextChannel = TurnChannelData.channelRange.lowerBound
    private var rng: SplitMixRandom
    private var out = TurnOutput()

    /// RFC 8489 §6.2.2: over a reliable transport a request is sent once and given up after Ti = 39.5 s.
    static let reliableTimeout: Duration = .milliseconds(39_500)
    /// 438 retries of one request (each brings a fresh nonce; a server that keeps answering 438 is broken).
    static let maxStaleNonceRetries = 3

    public init(config: TurnClientConfig) {
        self.config = config
        rng = SplitMixRandom(seed: config.seed)
    }

    public var permissionCount: Int { permissions.count }
    public var channelCount: Int { channels.count }
    public var transactionCount: Int { transactions.count }
    /// The channel bound to `peer`, if the server confirmed one.
    public func boundChannel(for peer: TransportAddress) -> UInt16? {
        channels[peer].flatMap { $0.bound ? $0.number : nil }
    }
    public func hasPermission(for ip: IPAddress) -> Bool { permissions[ip]?.state == .installed }

    // MARK: Entry point

    public func handle(_ input: TurnInput, now: TransportTime) -> TurnOutput {
        out = TurnOutput()
        defer { out = TurnOutput() }
        switch input {
        case .allocate:
            if state == .idle {
                state = .allocating
                start(.allocate, now: now)
            }
        case .received(let bytes): receive(bytes, now: now)
        case .send(let peer, let bytes): relay(bytes, to: peer, now: now)
        case .permit(let ip): _ = permission(for: ip, now: now)
        case .timeout: break
        case .close: close(now: now)
        }
        tick(now: now)
        out.deadline = deadline()
        return out
    }

    // MARK: Requests

    /// Sends a new request for `purpose` (a new transaction: RFC 8489 §9.2.4 retries after a 401 or 438 are new
    /// transactions with the new credentials or nonce).
    private func start(_ purpose: TurnTransaction.Purpose, staleNonceRetries: Int = 0, probe: Bool = false,
                       now: TransportTime) {
        var attributes: [StunAttribute]
        let method: StunMethod
        switch purpose {
        case .allocate:
            method = .allocate
            // RFC 8656 §7.1: REQUESTED-TRANSPORT is mandatory; LIFETIME optional (the server may shorten it).
            attributes = [.requestedTransport(TurnProtocolNumber.udp), .lifetime(config.requestedLifetime)]
            if let software = config.software { attributes.append(.software(software)) }
        case .refresh(let lifetime):
            method = .refresh
            attributes = [.lifetime(lifetime)]
        case .createPermission(let ip):
            method = .createPermission
            // §9.1: the port of XOR-PEER-ADDRESS is ignored; permissions are per IP address.
            attributes = [.xorPeerAddress(TransportAddress(ip: ip, port: 0))]
        case .channelBind(let channel, let peer):
            method = .channelBind
            attributes = [.channelNumber(channel), .xorPeerAddress(peer)]
        }
        if let realm, let nonce {
            // RFC 8489 §9.2.4: USERNAME, REALM and NONCE from the server's challenge, then MESSAGE-INTEGRITY.
            attributes += [.username(config.credentials.username), .realm(realm), .nonce(nonce)]
        }
        let tid = TransactionID.random(using: &rng)
        let message = StunMessage(type: StunMessageType(method: method, stunClass: .request), transactionID: tid,
                                  attributes: attributes)
        // A username over 512 bytes (RFC 8489 §14.3) or a server's REALM/NONCE the encoder refuses: the request
        // cannot be written at all, which fails it like a request nobody answers.
        guard let bytes = try? message.encode(integrityKey: key, fingerprint: true) else {
            requestFailed(purpose, reason: "\(method.turnName) request cannot be encoded (username too long?)", now: now)
            return
        }
        let wait = config.reliableTransport ? Self.reliableTimeout : config.initialRTO
        transactions[tid] = TurnTransaction(purpose: purpose, bytes: bytes, key: key, staleNonceRetries: staleNonceRetries,
                                            transmissions: 1, rto: config.initialRTO, nextAt: now + wait,
                                            giveUpAt: probe ? now + config.probeTimeout : nil)
        switch purpose {
        case .createPermission(let ip): permissions[ip]?.transaction = tid
        case .channelBind(_, let peer): channels[peer]?.transaction = tid
        case .allocate, .refresh: break
        }
        out.transmits.append(bytes)
    }

    // MARK: Receiving

    private func receive(_ bytes: [UInt8], now: TransportTime) {
        let dropped = droppedReceives
        defer { if droppedReceives == dropped { lastHeardAt = now } }
        if TurnChannelData.looksLikeChannelData(bytes) {
            receiveChannelData(bytes)
            return
        }
        guard StunMessage.looksLikeStun(bytes), let message = try? StunMessage(decoding: bytes) else {
            droppedReceives += 1
            return
        }
        switch message.type.stunClass {
        case .indication:
            receiveDataIndication(message)
        case .successResponse, .errorResponse:
            receiveResponse(message, now: now)
        case .request:
            droppedReceives += 1   // A TURN server sends no requests to its clients.
        }
    }

    private func receiveChannelData(_ bytes: [UInt8]) {
        // Only channels we asked for are believed (a binding in flight counts: the server may use the channel as
        // soon as it has processed the ChannelBind, before its answer reaches us).
        guard state == .allocated, let message = try? TurnChannelData(decodingDatagram: bytes),
              let peer = peerByChannel[message.channel] else {
            droppedReceives += 1
            return
        }
        out.events.append(.data(from: peer, bytes: message.payload))
    }

    private func receiveDataIndication(_ message: StunMessage) {
        // RFC 8656 §10.4: a Data indication needs XOR-PEER-ADDRESS and DATA; the client "SHOULD also check that the
        // XOR-PEER-ADDRESS attribute value contains an IP address with which the client believes there is an active
        // permission, and discard the Data indication otherwise".
        guard state == .allocated, message.type.method == .data, let peer = message.xorPeerAddress, let data = message.data,
              let permission = permissions[peer.ip], permission.state == .installed || permission.state == .requesting else {
            droppedReceives += 1
            return
        }
        out.events.append(.data(from: peer, bytes: data))
    }

    private func receiveResponse(_ response: StunMessage, now: TransportTime) {
        guard let transaction = transactions[response.transactionID] else {
            droppedReceives += 1
            return
        }
        // RFC 8489 §9.2.5: a response to a signed request is believed only with a MESSAGE-INTEGRITY that verifies
        // (a mismatch is discarded "as if it was never received", so the retransmissions go on). 401 and 438
        // answers come unsigned by design: they carry the new challenge. Other unsigned error responses are
        // accepted too (coturn signs them; a forger would need the 96-bit transaction id).
        if let key = transaction.key {
            if response.hasIntegrity {
                guard response.verifyIntegrity(key: key) else { droppedReceives += 1; return }
            } else if response.type.stunClass == .successResponse {
                droppedReceives += 1
                return
            }
        }
        transactions[response.transactionID] = nil
        if response.type.stunClass == .successResponse {
            succeeded(transaction.purpose, response, now: now)
        } else {
            errorAnswered(transaction, response, now: now)
        }
    }

    private func errorAnswered(_ transaction: TurnTransaction, _ response: StunMessage, now: TransportTime) {
        let code = response.errorCode?.code
        let method = response.type.method.turnName
        if code == 401, transaction.key == nil {
            // RFC 8489 §9.2.3/§9.2.4: the challenge; retry with credentials for its realm and nonce.
            guard let realm = response.realm, let nonce = response.nonce else {
                requestFailed(transaction.purpose, reason: "\(method): 401 without REALM and NONCE", now: now)
                return
            }
            learn(realm: realm, nonce: nonce)
            start(transaction.purpose, now: now)
            return
        }
        if code == 438, let nonce = response.nonce, transaction.staleNonceRetries < Self.maxStaleNonceRetries {
            // RFC 8489 §9.2.5: "the client SHOULD retry the request, using the new NONCE attribute supplied in the
            // 438 (Stale Nonce) response". The realm may change with it.
            learn(realm: response.realm ?? realm ?? "", nonce: nonce)
            start(transaction.purpose, staleNonceRetries: transaction.staleNonceRetries + 1,
                  probe: transaction.giveUpAt != nil, now: now)
            return
        }
        if code == 437 || code == 438, state == .allocated {
            // RFC 8656 §7.2/§7.4: 437 (Allocation Mismatch) to a request of an allocation means the server has no
            // allocation for this 5-tuple any more (it restarted, or deleted it); a nonce called stale again after
            // retrying with the new one means the same. Whatever the request was for, the allocation is gone.
            let reason = response.errorCode.map { "\($0.code) \(RemoteInputLimits.quote($0.reason))" } ?? "\(code!)"
            fail("the allocation is gone (\(method) answered \(reason))")
            return
        }
        let reason = response.errorCode.map { "\($0.code) \(RemoteInputLimits.quote($0.reason))" } ?? "no ERROR-CODE"
        let hint = code == 401 ? " (wrong username or password)" : ""
        requestFailed(transaction.purpose, reason: "\(method) refused: \(reason)\(hint)", now: now)
    }

    private func learn(realm: String, nonce: String) {
        if realm != self.realm || key == nil {
            key = StunIntegrity.longTermKey(username: config.credentials.username, realm: realm,
                                            password: config.credentials.password)
        }
        self.realm = realm
        self.nonce = nonce
    }

    private func succeeded(_ purpose: TurnTransaction.Purpose, _ response: StunMessage, now: TransportTime) {
        switch purpose {
        case .allocate:
            guard state == .allocating else { return }
            // RFC 8656 §7.3: the success response carries XOR-RELAYED-ADDRESS, LIFETIME and XOR-MAPPED-ADDRESS.
            guard let relayed = response.xorRelayedAddress, relayed.port != 0 else {
                fail("Allocate answered without a usable XOR-RELAYED-ADDRESS")
                return
            }
            let granted = Self.clamp(response.lifetime ?? config.requestedLifetime)
            state = .allocated
            relayedAddress = relayed
            mappedAddress = response.xorMappedAddress
            refreshAt = now + TurnLifetimes.refreshDelay(grantedSeconds: granted)
            out.events.append(.allocated(relayed: relayed, mapped: mappedAddress, lifetime: granted))
            // Permissions asked for while allocating; the ones of the other address family can never be used.
            for (ip, permission) in permissions where permission.state == .wanted {
                if ip.isIPv4 == relayed.ip.isIPv4 {
                    permissions[ip]?.state = .requesting
                    start(.createPermission(ip), now: now)
                } else {
                    droppedSends += permission.queue.count
                    permissions[ip] = nil
                }
            }
        case .refresh(let lifetime):
            if state == .closing || lifetime == 0 {
                finishClosing()
                return
            }
            refreshAt = now + TurnLifetimes.refreshDelay(grantedSeconds: Self.clamp(response.lifetime ?? lifetime))
        case .createPermission(let ip):
            guard var permission = permissions[ip] else { return }
            let wasInstalled = permission.state == .installed
            permission.state = .installed
            permission.transaction = nil
            permission.refreshAt = now + TurnLifetimes.permissionRefresh
            let queued = permission.queue
            permission.queue = []
            permissions[ip] = permission
            if !wasInstalled { out.events.append(.permissionCreated(ip)) }
            for (peer, bytes) in queued { relay(bytes, to: peer, now: now) }
        case .channelBind(let number, let peer):
            guard var channel = channels[peer], channel.number == number else { return }
            let wasBound = channel.bound
            channel.bound = true
            channel.transaction = nil
            channel.refreshAt = now + TurnLifetimes.channelRefresh
            channels[peer] = channel
            if !wasBound { out.events.append(.channelBound(peer: peer, channel: number)) }
        }
    }

    /// A request was refused, could not be sent, or timed out: what that costs depends on what it was for.
    private func requestFailed(_ purpose: TurnTransaction.Purpose, reason: String, now: TransportTime) {
        switch purpose {
        case .allocate, .refresh:
            if state == .closing { finishClosing() } else { fail(reason) }
        case .createPermission(let ip):
            guard var permission = permissions[ip] else { return }
            droppedSends += permission.queue.count
            permission.queue = []
            permission.transaction = nil
            permission.state = .refused
            permission.refreshAt = now + TurnLifetimes.refusedPermissionRetry
            permissions[ip] = permission
            out.events.append(.permissionFailed(ip, reason: reason))
        case .channelBind(_, let peer):
            // Without a channel the peer is still reachable by Send indications (the number stays used: RFC 8656
            // §12 keeps a number and a peer from being rebound to something else for a while).
            channels[peer]?.bound = false
            channels[peer]?.refused = true
            channels[peer]?.transaction = nil
            channels[peer]?.refreshAt = nil
        }
    }

    private func fail(_ reason: String) {
        guard state != .failed && state != .closed else { return }
        state = .failed
        failureReason = reason
        transactions.removeAll()
        refreshAt = nil
        out.events.append(.failed(reason: reason))
    }

    private func finishClosing() {
        state = .closed
        transactions.removeAll()
        refreshAt = nil
        out.events.append(.closed)
    }

    static func clamp(_ seconds: UInt32) -> UInt32 {
        min(max(seconds, TurnLifetimes.grantedLifetimeBounds.lowerBound), TurnLifetimes.grantedLifetimeBounds.upperBound)
    }

    // MARK: Sending to peers

    /// The permission entry for `ip`, created (and requested, once allocated) on first use; nil when the table is
    /// full or the address family cannot be relayed.
    private func permission(for ip: IPAddress, now: TransportTime) -> TurnPermission? {
        if let existing = permissions[ip] { return existing }
        // A send to an address no unicast peer has fails at the server, which then deletes the whole allocation
        // (coturn 4.6): never permitted, never sent to (IPAddress.notUnicastReason).
        guard ip.notUnicastReason == nil else { return nil }
        guard state == .allocating || state == .allocated || state == .idle,
              permissions.count < config.maxPermissions else { return nil }
        // RFC 8656 §9.1: a peer of the other address family gets 443 (Peer Address Family Mismatch); not asked.
        if let relayed = relayedAddress, relayed.ip.isIPv4 != ip.isIPv4 { return nil }
        permissions[ip] = TurnPermission(state: state == .allocated ? .requesting : .wanted)
        if state == .allocated { start(.createPermission(ip), now: now) }
        return permissions[ip]
    }

    private func relay(_ bytes: [UInt8], to peer: TransportAddress, now: TransportTime) {
        guard state == .allocated, peer.port != 0, let permission = permission(for: peer.ip, now: now) else {
            droppedSends += 1
            return
        }
        lastRelayedAt = now
        if let channel = channels[peer], channel.bound {
            // ChannelData over UDP needs no padding (RFC 8656 §12.5); over a stream it must be padded.
            guard let frame = try? TurnChannelData(channel: channel.number, payload: bytes)
                .encode(padded: config.reliableTransport) else { droppedSends += 1; return }
            out.transmits.append(frame)
            return
        }
        switch permission.state {
        case .installed:
            // §10.1: a Send indication carries XOR-PEER-ADDRESS and DATA, and no MESSAGE-INTEGRITY (indications
            // cannot be authenticated with the long-term mechanism).
            let indication = StunMessage(type: StunMessageType(method: .send, stunClass: .indication),
                                         transactionID: .random(using: &rng),
                                         attributes: [.xorPeerAddress(peer), .data(bytes)])
            guard let encoded = try? indication.encode() else { droppedSends += 1; return }
            out.transmits.append(encoded)
            bindChannel(to: peer, now: now)
        case .wanted, .requesting:
            var held = permission
            if held.queue.count >= config.maxQueuedPerPeer {
                held.queue.removeFirst()
                droppedSends += 1
            }
            held.queue.append((peer, bytes))
            permissions[peer.ip] = held
        case .refused:
            droppedSends += 1
        }
    }

    /// RFC 8656 §12.1: bind the next free channel number to a peer we relay to, so later datagrams take the 4-byte
    /// ChannelData header instead of a 36-byte-or-more Send indication.
    private func bindChannel(to peer: TransportAddress, now: TransportTime) {
        guard channels[peer] == nil, channels.count < config.maxChannels,
              TurnChannelData.channelRange.contains(nextChannel) else { return }
        let number = nextChannel
        nextChannel += 1
        channels[peer] = TurnChannel(number: number)
        peerByChannel[number] = peer
        start(.channelBind(channel: number, peer: peer), now: now)
    }

    // MARK: Closing

    private func close(now: TransportTime) {
        switch state {
        case .allocated:
            // RFC 8656 §8: "a Refresh transaction with a zero value in the LIFETIME attribute" deletes the allocation
            // at once rather than leaving the server's port busy until it expires.
            transactions.removeAll()
            for ip in permissions.keys { permissions[ip]?.transaction = nil }
            for peer in channels.keys { channels[peer]?.transaction = nil }
            state = .closing
            refreshAt = nil
            start(.refresh(lifetime: 0), now: now)
        case .idle, .allocating, .failed:
            // An Allocate still in flight may yet create an allocation: it expires on the server by itself.
            transactions.removeAll()
            state = .closed
            out.events.append(.closed)
        case .closing, .closed:
            break
        }
    }

    // MARK: Timers

    /// When the next health probe is due: only while we relay (a datagram in the last `silenceProbeAfter`), with no
    /// request of ours outstanding, once the server has been silent for `silenceProbeAfter`, at most once per
    /// `probeInterval`.
    private var probeDue: TransportTime? {
        guard state == .allocated, transactions.isEmpty, let relayed = lastRelayedAt, let heard = lastHeardAt else { return nil }
        let due = max(heard + config.silenceProbeAfter, lastProbeAt.map { $0 + config.probeInterval } ?? heard)
        return relayed + config.silenceProbeAfter > due ? due : nil
    }

    private func tick(now: TransportTime) {
        retransmit(now: now)
        guard state == .allocated else { return }
        if let due = probeDue, due <= now {
            lastProbeAt = now
            start(.refresh(lifetime: config.requestedLifetime), probe: true, now: now)
        }
        if let due = refreshAt, due <= now {
            refreshAt = nil
            start(.refresh(lifetime: config.requestedLifetime), now: now)
        }
        for (ip, permission) in permissions where permission.transaction == nil {
            guard let due = permission.refreshAt, due <= now else { continue }
            // Installed: refreshed before the 300 s run out (§9). Refused: asked once more after a pause.
            permissions[ip]?.refreshAt = nil
            if permission.state == .refused { permissions[ip]?.state = .requesting }
            start(.createPermission(ip), now: now)
        }
        for (peer, channel) in channels where channel.transaction == nil && channel.bound {
            guard let due = channel.refreshAt, due <= now else { continue }
            // §12: "a ChannelBind request ... to refresh the binding", same number and peer as before.
            channels[peer]?.refreshAt = nil
            start(.channelBind(channel: channel.number, peer: peer), now: now)
        }
    }

    /// RFC 8489 §6.2.1: retransmit after RTO, doubling it each time; after Rc transmissions wait Rm × RTO for the
    /// answer and then give up. Over a stream (§6.2.2) the single transmission is given up after Ti.
    private func retransmit(now: TransportTime) {
        for (tid, transaction) in transactions where transaction.nextAt <= now || (transaction.giveUpAt.map { $0 <= now } ?? false) {
            guard transactions[tid] != nil else { continue }   // failed and removed by an earlier one this pass
            if let giveUp = transaction.giveUpAt, giveUp <= now {
                transactions[tid] = nil
                fail("the allocation is gone (no answer to a Refresh in \(config.probeTimeout) while nothing came from the server)")
                continue
            }
            if config.reliableTransport || transaction.transmissions >= config.maxTransmissions {
                transactions[tid] = nil
                requestFailed(transaction.purpose, reason: "\(transaction.purpose.turnName): no answer from the TURN server",
                              now: now)
                continue
            }
            var updated = transaction
            updated.transmissions += 1
            updated.rto = transaction.rto * 2
            let wait = updated.transmissions >= config.maxTransmissions
                ? config.initialRTO * config.lastWaitMultiplier : transaction.rto * 2
            updated.nextAt = now + wait
            transactions[tid] = updated
            out.transmits.append(transaction.bytes)
        }
    }

    private func deadline() -> TransportTime? {
        var earliest: TransportTime?
        func consider(_ t: TransportTime?) {
            guard let t else { return }
            earliest = min(earliest ?? t, t)
        }
        for transaction in transactions.values { consider(transaction.nextAt); consider(transaction.giveUpAt) }
        guard state == .allocated else { return earliest }
        consider(refreshAt)
        consider(probeDue)
        for permission in permissions.values where permission.transaction == nil { consider(permission.refreshAt) }
        for channel in channels.values where channel.transaction == nil && channel.bound { consider(channel.refreshAt) }
        return earliest
    }
}

extension StunMethod {
    /// The method's name for failure reasons and logs.
    var turnName: String {
        switch self {
        case .allocate: "Allocate"
        case .refresh: "Refresh"
        case .createPermission: "CreatePermission"
        case .channelBind: "ChannelBind"
        case .send: "Send"
        case .data: "Data"
        case .binding: "Binding"
        default: "method 0x\(String(rawValue, radix: 16))"
        }
    }
}

extension TurnTransaction.Purpose {
    var turnName: String {
        switch self {
        case .allocate: "Allocate"
        case .refresh: "Refresh"
        case .createPermission(let ip): "CreatePermission for \(ip)"
        case .channelBind(let channel, let peer): "ChannelBind of 0x\(String(channel, radix: 16)) to \(peer)"
        }
    }
}
