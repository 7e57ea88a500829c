import EngineRTP
import EngineTransport

/// A whole call as one sans-IO core: the room policy (injected), a connection per remote peer, fan-out of the
/// encoded media to who should get which encoding, keyframe gating, STUN and TURN routing, trickle holding and the
/// media-state announcement. Signals, datagrams (with the socket they arrived on), encoded media and `now` in;
/// transmits per socket, effects (signals, events, decoder work, socket requests) and the next deadline out. No
/// threads, sockets, sleeps, locks or clock reads: `Call` is its driver, and tests run whole rooms of cores on the
/// virtual clock (docs/architecture.md).
public final class CallCore {
    public let configuration: Configuration
    private var policy: any RoomPolicy
    private var connections: [ConnectionID: CallConnection] = [:]
    private var byPeer: [RemotePeerID: ConnectionID] = [:]
    private var byLocal: [TransportAddress: ConnectionID] = [:]
    private var nextConnection: UInt64 = 1
    /// The connection whose sockets the driver is binding; the policy's actions after its creation wait for them,
    /// and so do other inputs (the driver answers at once, so only a harness that does not could make any wait).
    private var awaitingSockets: ConnectionID?
    private var heldActions: [RoomAction] = []
    /// The data-channel rate cap (`Input.setDataRate`), applied to connections made later too.
    private var dataRate: Int?
    private var heldInputs: [Input] = []
    /// The video encodings last planned (nil before any peer connected), when, and the plan last logged.
    private var encodingPlan: EncodingPlan?
    private var planAt: TransportTime?
    private var loggedPlan: EncodingPlan?
    private var localMedia: LocalMediaState?
    /// Mute and video as last announced to the room (nil: not since the last join).
    private var announcedMedia: (audioMuted: Bool, videoOn: Bool)?
    private var random = SystemRandomNumberGenerator()
    /// The traffic of connections already closed (`traffic(now:)`).
    private var closedTraffic = CallTraffic()
    private var out = Output()

    /// How often the encoders' rates follow the peers' estimates: about every frame at 30 frames a second (every
    /// 200 ms, a decrease reached the encoder up to three 15 fps frames late, into the queue it was answering).
    public static let encodingPlanInterval: Duration = .milliseconds(33)

    public init(configuration: Configuration = Configuration(), policy: some RoomPolicy = Mesh()) {
        self.configuration = configuration
        self.policy = policy
    }

    /// Our id in the room while joined.
    public var you: RemotePeerID? { policy.you }
    public var openConnections: Int { connections.count }

    /// What the core knows of each open connection, for snapshots and reports.
    public func summaries(now: TransportTime) -> [RemotePeerID: PeerSnapshot] {
        var result: [RemotePeerID: PeerSnapshot] = [:]
        for c in connections.values {
            let summary = c.summary(now: now)
            for p in c.participantIDs { result[p] = summary }
        }
        return result
    }

    /// What every connection of the call sent and received, the closed ones included.
    public func traffic(now: TransportTime) -> CallTraffic {
        var total = closedTraffic
        for c in connections.values { if let stats = c.connection?.stats(now: now) { total.add(stats) } }
        return total
    }

    /// A participant's connection, for tests and diagnostics.
    public func connection(of peer: RemotePeerID) -> PeerConnection? { byPeer[peer].flatMap { connections[$0]?.connection } }

    public func handle(_ input: Input, now: TransportTime) -> Output {
        out = Output()
        defer { out = Output() }
        if let waiting = awaitingSockets {
            guard case .socketsOpened(let id, _) = input, id == waiting else {
                heldInputs.append(input)
                out.deadline = deadline
                return out
            }
        }
        take(input, now: now)
        // Inputs that came while sockets were being bound, now in order (each may wait for sockets again).
        while awaitingSockets == nil, !heldInputs.isEmpty { take(heldInputs.removeFirst(), now: now) }
        out.deadline = deadline
        return out
    }

    private func take(_ input: Input, now: TransportTime) {
        switch input {
        case .signal(let signal): receive(signal, now: now)
        case .signalingLost: apply(.signalingLost, now: now)
        case .socketsOpened(let id, let addresses): opened(id, addresses, now: now)
        case .hostAddressesChanged:
            for c in connections.values.sorted(by: { $0.id < $1.id }) where c.connection != nil {
                out.effects.append(.rebindSockets(c.id))
            }
        case .socketsRebound(let id, let addresses): rehome(id, on: addresses, now: now)
        case .datagram(let local, let from, let bytes, let arrivedAt): receive(bytes, on: local, from: from, arrivedAt: arrivedAt, now: now)
        case .streamData(let id, let bytes):
            guard let c = connections[id], let relay = c.relay else { return }
            take(relay.streamData(bytes, now: now), for: c, now: now)
        case .streamClosed(let id, let reason):
            guard let c = connections[id], let relay = c.relay else { return }
            take(relay.streamClosed(reason: reason), for: c, now: now)
        case .media(let item): send(item, now: now)
        case .localMedia(let state):
            localMedia = state
            announceIfChanged()
        case .sendData(let peer, let channel, let message):
            guard let c = connection(for: peer) else { return log("\(short(peer)): data for a peer with no connection dropped") }
            feed(c, .command(.sendData(channel: channel, message)), now: now)
        case .setDataRate(let rate):
            dataRate = rate
            for c in connections.values where c.connection != nil { feed(c, .command(.setDataRate(bytesPerSecond: rate)), now: now) }
        case .decodeFailed(let peer, let mid):
            let shared = connections.values.first { $0.participants == .bySection && $0.owners[mid] == peer }
            guard let c = shared ?? byPeer[peer].flatMap({ connections[$0] }) else { return }
            feed(c, .command(.decodeFailed(mid: mid)), now: now)
        case .timeout: serviceTimers(now: now)
        case .leave: apply(.leave, now: now)
        }
    }

    /// Computed after every input (once per datagram), so a plain loop.
    private var deadline: TransportTime? {
        var nearest = policy.nextDeadline
        var anyConnected = false
        for c in connections.values {
            anyConnected = anyConnected || c.isConnected
            nearest = earliest(nearest, c.deadline, c.gatherer?.deadline, c.relay?.deadline)
        }
        return anyConnected ? earliest(nearest, planAt.map { $0 + Self.encodingPlanInterval } ?? .zero) : nearest
    }

    private func earliest(_ times: TransportTime?...) -> TransportTime? {
        var result: TransportTime?
        for case let t? in times where result.map({ t < $0 }) ?? true { result = t }
        return result
    }

    private func serviceTimers(now: TransportTime) {
        for c in Array(connections.values) where connections[c.id] === c {
            if c.deadline.map({ $0 <= now }) ?? false { feed(c, .timeout, now: now) }
            if let relay = c.relay, relay.deadline.map({ $0 <= now }) ?? false { take(relay.handle(.timeout, now: now), for: c, now: now) }
            if c.gatherer?.deadline.map({ $0 <= now }) ?? false { out.transmits += c.gatherer!.poll(now: now) }
        }
        if let due = policy.nextDeadline, due <= now { apply(.timer, now: now) }
        if planAt.map({ now - $0 >= Self.encodingPlanInterval }) ?? true { planEncodings(now: now) }
    }

    // MARK: signaling

    private func receive(_ signal: CallSignalIn, now: TransportTime) {
        if let refusal = Self.refusal(of: signal) { return log("refusing a signaling message: \(refusal)") }
        let parsed: RoomSignal
        switch signal {
        case .joined(let you, let others): parsed = .joined(you: you, others: others)
        case .resumed(let you, let others): parsed = .resumed(you: you, others: others)
        case .newPeer(let id): parsed = .newPeer(id)
        case .removePeer(let id): parsed = .removePeer(id)
        case .offer(let from, let sdp), .answer(let from, let sdp):
            let description: SessionDescription
            do { description = try SessionDescription(parsing: sdp) } catch {
                return log("\(short(from)): unparsable SDP: \(error)")
            }
            if case .offer = signal { parsed = .offer(from: from, description) } else { parsed = .answer(from: from, description) }
        case .candidate(let from, let text, _, _):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return }   // end-of-candidates
            let candidate: IceCandidate
            do { candidate = try IceCandidate(parsing: trimmed) } catch {
                return log("\(short(from)): ignoring candidate \(RemoteInputLimits.quote(trimmed)): \(error)")
            }
            if candidate.address.ip == nil { log("\(short(from)): ignoring mDNS candidate \(candidate.address)") }
            parsed = .candidate(from: from, candidate)
        case .sections(let of, let owners): parsed = .sections(of: of, owners: owners)
        }
        apply(.signal(parsed), now: now)
        if case .joined = parsed {
            announcedMedia = nil   // a (re)join is a new socket: the room knows nothing of it yet
            announceIfChanged()
        }
    }

    /// Room members' ids become dictionary keys and log prefixes: one that `RemoteInputLimits.peerIDRefusal` refuses
    /// refuses the whole message.
    static func refusal(of signal: CallSignalIn) -> String? {
        let ids: [RemotePeerID] = switch signal {
        case .joined(let you, let others), .resumed(let you, let others): [you] + others
        case .newPeer(let id), .removePeer(let id): [id]
        case .offer(let id, _), .answer(let id, _), .candidate(let id, _, _, _): [id]
        case .sections(let id, let owners): [id] + owners.values
        }
        if case .sections(_, let owners) = signal {
            guard owners.count <= CallLimits.maxSectionOwners else { return "\(owners.count) sections assigned, over \(CallLimits.maxSectionOwners)" }
            // RFC 8843 §15: a MID is at most 16 characters.
            if let mid = owners.keys.first(where: { $0.isEmpty || $0.utf8.count > 16 }) { return "section mid \(RemoteInputLimits.quote(mid)) out of bounds" }
        }
        return ids.lazy.compactMap { RemoteInputLimits.peerIDRefusal($0.rawValue) }.first
    }

    /// Said once after each join and whenever mute or video changes; nothing before the first join.
    private func announceIfChanged() {
        guard policy.you != nil, let media = localMedia else { return }
        if let last = announcedMedia, last == (media.audioMuted, media.videoOn) { return }
        announcedMedia = (media.audioMuted, media.videoOn)
        out.effects.append(.announce(media))
    }

    /// Feeds the policy one input and carries out what it decides, in order.
    private func apply(_ input: RoomInput, now: TransportTime) {
        run(policy.handle(input, now: now), now: now)
    }

    private func run(_ actions: [RoomAction], now: TransportTime) {
        for (i, action) in actions.enumerated() {
            guard awaitingSockets == nil else {
                heldActions += actions[i...]
                return
            }
            carryOut(action, now: now)
        }
    }

    private func carryOut(_ action: RoomAction, now: TransportTime) {
        switch action {
        case .createConnection(let peer, let role, let media, let participants):
            let id = ConnectionID(nextConnection)
            nextConnection += 1
            connections[id] = CallConnection(id: id, peer: peer, role: role, media: media, participants: participants,
                                             createdAt: now.seconds)
            byPeer[peer] = id
            awaitingSockets = id
            out.effects.append(.openSockets(id))
        case .closeConnection(let peer, let cause):
            close(peer, cause: cause, now: now)
        case .applyRemoteOffer(let peer, let offer):
            guard let c = connection(for: peer) else { return }
            permitRelay(to: offer.allCandidates, of: c, now: now)
            feed(c, .command(.applyRemoteOffer(offer)), now: now)
        case .applyRemoteAnswer(let peer, let answer):
            guard let c = connection(for: peer) else { return }
            permitRelay(to: answer.allCandidates, of: c, now: now)
            feed(c, .command(.applyRemoteAnswer(answer)), now: now)
        case .addRemoteCandidate(let peer, let candidate):
            guard let c = connection(for: peer) else { return }
            permitRelay(to: [candidate], of: c, now: now)
            feed(c, .command(.addRemoteCandidate(candidate)), now: now)
        case .addTransceiver(let peer, let kind, let direction):
            guard let c = connection(for: peer) else { return }
            feed(c, .command(.addTransceiver(kind, direction)), now: now)
        case .stopTransceiver(let peer, let mid):
            guard let c = connection(for: peer) else { return }
            feed(c, .command(.stopTransceiver(mid: mid)), now: now)
        case .createOffer(let peer):
            guard let c = connection(for: peer) else { return }
            feed(c, .command(.createOffer), now: now)
        case .restartIce(let peer):
            guard let c = connection(for: peer) else { return }
            feed(c, .command(.restartIce(relayed: nil, mapped: nil)), now: now)
        case .openDataChannel(let peer, let label):
            guard let c = connection(for: peer) else { return }
            feed(c, .command(.openDataChannel(label: label)), now: now)
        case .assignSections(let peer, let owners):
            guard let c = byPeer[peer].flatMap({ connections[$0] }), c.participants == .bySection else { return }
            reassign(c, owners, now: now)
        case .send(let signal): out.effects.append(.signal(signal))
        case .log(let text): log(text)
        }
    }

    /// A forwarding server's connection changed whose each section is: participants no longer named close (their
    /// decoders and pictures go), new ones open and are told the connection's state and their sections.
    private func reassign(_ c: CallConnection, _ owners: [String: RemotePeerID], now: TransportTime) {
        let before = Set(c.participantIDs)
        c.owners = owners
        guard c.connection != nil else { return }   // `start` opens whoever is named by then
        let after = Set(c.participantIDs)
        for p in before.subtracting(after).sorted() { closeParticipant(p, of: c, now: now) }
        for p in after.subtracting(before).sorted() {
            out.effects.append(.participantOpened(p))
            if c.state != .new { out.effects.append(.event(.peerState(p, c.state, cause: "forwarded by \(short(c.peer))"))) }
        }
        tellVideoStreams(c)
        for (owner, events) in c.claimChannels() {
            log("\(short(c.peer)): the data channel labelled \(owner.rawValue) is \(short(owner))'s now (\(events.count - 1) messages held)")
            for event in events { out.effects.append(.dataChannel(owner, event)) }
        }
    }

    private func closeParticipant(_ p: RemotePeerID, of c: CallConnection, now: TransportTime) {
        if c.videoStreams.removeValue(forKey: p)?.isEmpty == false { out.effects.append(.event(.videoStreams(p, mids: []))) }
        var summary = c.summary(now: now)
        summary.leftAt = now.seconds
        out.effects.append(.participantClosed(p, summary))
    }

    /// Tells each participant of `c` its receiving video sections when they changed.
    private func tellVideoStreams(_ c: CallConnection) {
        for (p, mids) in c.receivingVideo().sorted(by: { $0.key < $1.key }) where c.videoStreams[p, default: []] != mids {
            c.videoStreams[p] = mids
            out.effects.append(.event(.videoStreams(p, mids: mids)))
        }
    }

    private func connection(for peer: RemotePeerID) -> CallConnection? {
        guard let c = byPeer[peer].flatMap({ connections[$0] }), c.connection != nil else { return nil }
        return c
    }

    // MARK: connections

    /// The driver bound the sockets of connection `id`: the connection is made (or fails), then what waited goes on.
    private func opened(_ id: ConnectionID, _ addresses: [TransportAddress], now: TransportTime) {
        guard awaitingSockets == id, let c = connections[id] else { return }
        awaitingSockets = nil
        if let failure = start(c, on: addresses, now: now) {
            log("\(short(c.peer)): \(failure)")
            forget(c)
            out.effects.append(.closeSockets(id))
            // Told back as a failure: an offer we owe is retried later, an awaited offer replaces it.
            apply(.connectionState(c.peer, .failed), now: now)
        } else {
            if let rate = dataRate { feed(c, .command(.setDataRate(bytesPerSecond: rate)), now: now) }
            if c.requestedRole == .offerer { feed(c, .command(.createOffer), now: now) }
        }
        let held = heldActions
        heldActions = []
        run(held, now: now)
    }

    /// Makes the connection on its bound addresses; returns why it could not be made.
    private func start(_ c: CallConnection, on addresses: [TransportAddress], now: TransportTime) -> String? {
        guard !addresses.isEmpty else { return "no socket could be bound: no connection" }
        var settings = PeerConnection.Configuration.random(localHosts: addresses)
        settings.candidatesInDescription = !configuration.trickleOnly
        // No microphone at all: say so in the SDP (audio recvonly, RFC 3264 §5.1) rather than offer a stream that
        // never starts; the peers' audio is still received. Video stays sendrecv: `v` turns it off and on mid-call.
        settings.sendAudio = configuration.sendAudio && c.media.sends
        settings.sendVideo = c.media.sends
        settings.receive = c.media.receives
        // A forwarding server's publishing connection offers the low encoding beside the full one, so the server can
        // forward the small picture to whoever shows it small (a terminal's tile) and the full one to the rest.
        settings.simulcast = c.media == .sendOnly && c.participants == .bySection
        let loopbackOnly = configuration.loopbackOnly
        settings.acceptRemoteAddress = { Self.acceptsRemote($0, loopbackOnly: loopbackOnly) }
        do {
            c.connection = try PeerConnection(configuration: settings)
        } catch {
            return "cannot create a peer connection: \(error)"
        }
        c.localAddresses = addresses
        for address in addresses { byLocal[address] = c.id }
        for p in c.participantIDs { out.effects.append(.participantOpened(p)) }
        log("\(short(c.peer)): connection created on \(addresses.map(\.description).joined(separator: ", "))")
        if let server = configuration.stunServer { c.gatherer = ServerReflexiveGatherer(server: server, bases: addresses) }
        if let server = configuration.turnServer { startRelay(server, for: c, now: now) }
        return nil
    }

    /// The host addresses of a running connection changed (RFC 8445 §9: "a change in the local addresses" is a
    /// reason to restart ICE): a new generation on the new host candidates, a new server-reflexive one, and a new
    /// relay when the allocation's own socket went away. The selected pair keeps its chance meanwhile (an added
    /// interface leaves it working).
    private func rehome(_ id: ConnectionID, on addresses: [TransportAddress], now: TransportTime) {
        guard let c = connections[id], c.connection != nil, Set(addresses) != Set(c.localAddresses) else { return }
        for address in c.localAddresses where !addresses.contains(address) { byLocal[address] = nil }
        c.localAddresses = addresses
        for address in addresses { byLocal[address] = c.id }
        let listed = addresses.isEmpty ? "none" : addresses.map(\.description).joined(separator: ", ")
        log("\(short(c.peer)): host addresses changed (now \(listed)); restarting ICE")
        c.reflexiveCandidates.removeAll { candidate in !addresses.contains { $0.ip == candidate.relatedAddress?.ip && $0.port == candidate.relatedPort } }
        c.heldCandidates = []
        if let server = configuration.stunServer { c.gatherer = ServerReflexiveGatherer(server: server, bases: addresses) }
        var relayed: TransportAddress?
        if let relay = c.relay {
            if case .udp(let base) = relay.path, addresses.contains(base) {
                relayed = relay.relayedAddress
            } else {
                // The allocation belongs to a 5-tuple that no longer exists (RFC 8656 §2.2): the server would answer
                // the new address 437. A new one; its candidate is trickled into the generation started below.
                log("\(short(c.peer)): the TURN allocation's socket went with the old address; allocating a new one")
                c.relay = nil
                c.relayJoinsRestart = true
                allocateAgain(relay.server, for: c, now: now)
            }
        }
        feed(c, .command(.restartIce(relayed: relayed, mapped: nil, hosts: addresses)), now: now)
    }

    private func forget(_ c: CallConnection) {
        connections[c.id] = nil
        if byPeer[c.peer] == c.id { byPeer[c.peer] = nil }
        for address in c.localAddresses { byLocal[address] = nil }
    }

    private func close(_ peer: RemotePeerID, cause: String, now: TransportTime) {
        guard let id = byPeer[peer], let c = connections[id] else { return }
        forget(c)
        guard let connection = c.connection else { return out.effects.append(.closeSockets(id)) }
        log("\(short(peer)): closing (\(cause))")
        closedTraffic.add(connection.stats(now: now))
        feed(c, .command(.close), now: now)
        // RFC 8656 §8: a Refresh with LIFETIME 0 frees the relay at once rather than after its lifetime. Its answer is
        // not awaited: the sockets close right after it.
        if let relay = c.relay { route(relay.handle(.close, now: now), for: c) }
        c.relay = nil
        // Its participants' pictures go with it (a new connection tells its own sections when they are negotiated).
        for p in c.participantIDs { closeParticipant(p, of: c, now: now) }
        out.effects.append(.closeSockets(id))
    }

    // MARK: datagrams

    private func receive(_ bytes: [UInt8], on local: TransportAddress, from: TransportAddress, arrivedAt: TransportTime?,
                         now: TransportTime) {
        guard let id = byLocal[local], let c = connections[id] else { return }
        if c.gatherer?.isResponse(from: from, bytes: bytes) ?? false {
            if let candidate = c.gatherer!.handle(bytes: bytes) {
                if c.reflexiveCandidates.count < 8 { c.reflexiveCandidates.append(candidate) }
                reflexive(candidate, of: c)
            }
            return
        }
        if let relay = c.relay, relay.isFromServer(local: local, from: from) {
            return take(relay.handle(.received(bytes), now: now), for: c, now: now)
        }
        feed(c, .datagram(from: from, to: local, bytes: bytes, arrivedAt: arrivedAt), now: now)
    }

    /// Feeds a connection and takes what it produced: datagrams for the relayed address go through the relay.
    private func feed(_ c: CallConnection, _ input: PeerConnection.Input, now: TransportTime) {
        guard let connection = c.connection else { return }
        let result = connection.handle(input, now: now)
        for transmit in result.transmits {
            if let relay = c.relay, transmit.from == relay.relayedAddress {
                take(relay.handle(.send(to: transmit.to, bytes: transmit.bytes), now: now), for: c, now: now)
            } else {
                out.transmits.append(transmit)
            }
        }
        c.deadline = result.deadline
        for event in result.events { take(event, from: c, now: now) }
    }

    private func take(_ event: PeerConnection.Event, from c: CallConnection, now: TransportTime) {
        let peer = c.peer
        switch event {
        case .localDescription(let sd, let type):
            let text = sd.sdpText
            apply(.localSignal(type == .offer ? .offer(to: peer, sdp: text) : .answer(to: peer, sdp: text)), now: now)
            c.described = true
            let ufrag = sd.media.firstIndex { !$0.isRejected }.flatMap { sd.iceCredentials(mediaIndex: $0)?.ufrag }
            if let before = c.describedUfrag, before != ufrag {
                // A new ICE generation (ours or the peer's restart, RFC 8445 §9): the peer forgot every candidate of
                // the old one, and the server-reflexive ones are in no description, so they are told again.
                for candidate in c.reflexiveCandidates where !c.heldCandidates.contains(candidate) { reflexive(candidate, of: c) }
            }
            c.describedUfrag = ufrag
            for candidate in c.heldCandidates { reflexive(candidate, of: c) }
            c.heldCandidates = []
        case .localCandidate(let candidate):
            c.signalledCandidates.append(candidate.sdpLine)
            apply(.localSignal(.candidate(to: peer, candidate: candidate.sdpLine, mid: candidate.mid, mLineIndex: candidate.mLineIndex)), now: now)
        case .stateChanged(let state, let cause):
            c.timeline.appendBounded(StateChange(at: now.seconds, state: state, cause: cause))
            if state == .connected, c.timeToConnected == nil { c.timeToConnected = now.seconds - c.createdAt }
            log("\(short(peer)): \(state.rawValue) (\(cause))")
            c.state = state
            for p in c.participantIDs { out.effects.append(.event(.peerState(p, state, cause: cause))) }
            apply(.connectionState(peer, state), now: now)
        case .selectedPair(let pair):
            log("\(short(peer)): selected pair \(pair.localBase) -> \(pair.remoteAddress)")
        case .dtlsConnected(let profile):
            log("\(short(peer)): DTLS connected as \(c.connection?.dtlsRole == .client ? "client" : "server"), SRTP \(profile)")
        case .videoFrame(let mid, let frame):
            if let p = c.owner(of: mid) { out.effects.append(.decodeVideo(p, mid: mid, frame)) }
        case .audio(let mid, let pull):
            if let p = c.owner(of: mid) { out.effects.append(.decodeAudio(p, mid: mid, pull)) }
        case .sectionsChanged(let sections):
            c.sections = sections
            tellVideoStreams(c)
            log("\(short(peer)): sections " + sections.map { "\($0.mid) \($0.kind) \($0.sends ? "send" : "")\($0.receives ? "recv" : "")" }
                .joined(separator: ", "))
        case .keyframeRequested: out.effects.append(.requestKeyframe(c.layer))
        case .lowKeyframeRequested: out.effects.append(.requestKeyframe(.low))
        case .dataChannel(let event):
            switch c.dataRoute(of: event) {
            case .connection: out.effects.append(.dataChannel(peer, event))
            case .participant(let owner): out.effects.append(.dataChannel(owner, event))
            case .nobody(let label): log("\(short(peer)): a data channel labelled \(RemoteInputLimits.quote(label)) names no participant yet: held")
            case .dropped: break
            }
        case .warning(let text): log("\(short(peer)): \(text)")
        }
    }

    // MARK: STUN and TURN

    /// Opens the connection's TURN allocation (its relayed candidate follows with `.allocated`).
    private func startRelay(_ server: TurnServer, for c: CallConnection, now: TransportTime) {
        guard let relay = RelayLink(server: server, bases: c.localAddresses, seed: random.next()) else {
            return log("\(short(c.peer)): no host address of the TURN server's family: no relayed candidate")
        }
        c.relay = relay
        log("\(short(c.peer)): allocating a relay at \(server.address) over \(server.transport.rawValue)")
        if relay.path == .tcp { out.effects.append(.openStream(c.id, to: server.address, records: server.transport == .tls)) }
        take(relay.handle(.allocate, now: now), for: c, now: now)
    }

    /// RFC 8656 §9: the relay lets in only peers with a permission. Each remote candidate's IP gets one up front, so
    /// the peer's checks to our relayed address get through even before ours have gone out (the client bounds them).
    private func permitRelay(to candidates: [IceCandidate], of c: CallConnection, now: TransportTime) {
        guard let relay = c.relay else { return }
        // Never an address no unicast peer has: coturn deletes the allocation when such a send fails (the connection
        // refuses and logs those candidates itself, IPAddress.notUnicastReason).
        let peers = Set(candidates.compactMap(\.transportAddress).filter { $0.notUnicastPeerReason == nil }.map(\.ip))
        for ip in peers where Self.acceptsRemote(ip, loopbackOnly: configuration.loopbackOnly) && (!ip.isLoopback || relay.server.address.ip.isLoopback) {
            if c.remoteRelayPeers.count < CallLimits.maxRemoteCandidates { c.remoteRelayPeers.insert(ip) }
            take(relay.handle(.permit(ip), now: now), for: c, now: now)
        }
    }

    /// The allocation was lost mid-call (the server restarted or deleted it, or stopped answering): a new one, whose
    /// relayed candidate restarts ICE (`take(_ events:)`). An allocation that never stood (a wrong password, no
    /// server) is not asked for again.
    private func relayLost(_ relay: RelayLink, of c: CallConnection, reason: String, now: TransportTime) {
        guard relay.client.relayedAddress != nil, c.connection != nil else {
            return log("\(short(c.peer)): TURN relay failed: \(reason)")
        }
        guard c.relayReallocations < CallLimits.maxRelayReallocations else {
            return log("\(short(c.peer)): TURN relay lost: \(reason); lost \(c.relayReallocations) times already, not allocated again")
        }
        c.relayReallocations += 1
        log("\(short(c.peer)): TURN relay lost: \(reason); allocating a new one")
        allocateAgain(relay.server, for: c, now: now)
    }

    /// A new allocation in place of a lost one, with a permission at once for every peer address the old one had.
    private func allocateAgain(_ server: TurnServer, for c: CallConnection, now: TransportTime) {
        startRelay(server, for: c, now: now)
        for ip in c.remoteRelayPeers { take(c.relay?.handle(.permit(ip), now: now) ?? .init(), for: c, now: now) }
    }

    /// The remote addresses a connection may use (what `start` tells each PeerConnection): loopback only with
    /// `loopbackOnly`, otherwise anything but IPv6 link-local (unusable without a scope id, which SDP does not carry).
    private static func acceptsRemote(_ ip: IPAddress, loopbackOnly: Bool) -> Bool {
        loopbackOnly ? ip.isLoopback : !ip.isLinkLocal
    }

    private func route(_ relayed: RelayLink.Output, for c: CallConnection) {
        out.transmits += relayed.datagrams
        out.effects += relayed.streamWrites.map { .streamWrite(c.id, $0) }
    }

    private func take(_ relayed: RelayLink.Output, for c: CallConnection, now: TransportTime) {
        route(relayed, for: c)
        take(relayed.events, for: c, now: now)
    }

    /// What the connection's TURN client reports: the allocation becomes a relay candidate; relayed datagrams enter
    /// the connection as if received on the relayed address.
    private func take(_ events: [TurnEvent], for c: CallConnection, now: TransportTime) {
        for event in events {
            guard connections[c.id] === c, let relay = c.relay else { return }
            switch event {
            case .allocated(let relayed, let mapped, let lifetime):
                log("\(short(c.peer)): relayed candidate \(relayed) (server saw us at \(mapped.map(\.description) ?? "?"), \(lifetime) s)")
                if c.relayJoinsRestart {
                    c.relayJoinsRestart = false
                    feed(c, .command(.addLocalRelayed(relayed: relayed, mapped: mapped)), now: now)
                } else if c.relayReallocations > 0 {
                    // RFC 8445 §9: the relayed candidate changed under a running session; a new generation of ICE
                    // finds the path again (the peer learns it from our re-offer).
                    log("\(short(c.peer)): restarting ICE on the new relayed candidate")
                    feed(c, .command(.restartIce(relayed: relayed, mapped: mapped)), now: now)
                } else {
                    feed(c, .command(.addLocalRelayed(relayed: relayed, mapped: mapped)), now: now)
                }
            case .data(let from, let bytes):
                guard let relayed = relay.relayedAddress else { continue }
                feed(c, .datagram(from: from, to: relayed, bytes: bytes), now: now)
            case .failed(let reason):
                relayLost(relay, of: c, reason: reason, now: now)
            case .permissionFailed(let ip, let reason):
                log("\(short(c.peer)): TURN permission for \(ip) refused: \(reason)")
            case .permissionCreated, .channelBound, .closed:
                break
            }
        }
    }

    /// Trickles a server-reflexive candidate in the first bundled section, once our description is out.
    private func reflexive(_ candidate: IceCandidate, of c: CallConnection) {
        guard c.described, let description = c.connection?.localDescription else { return c.heldCandidates.append(candidate) }
        let (mid, index) = description.trickleSection
        let trickle = TrickleCandidate(candidate: candidate, mid: mid, mLineIndex: index)
        log("\(short(c.peer)): server-reflexive candidate \(candidate.sdpValue)")
        c.signalledCandidates.append(trickle.sdpLine)
        out.effects.append(.signal(.candidate(to: c.peer, candidate: trickle.sdpLine, mid: trickle.mid, mLineIndex: trickle.mLineIndex)))
    }

    // MARK: media

    private func send(_ item: EncodedMedia, now: TransportTime) {
        for c in connections.values where c.isConnected {
            switch item {
            case .video(let frame, let layer) where c.connection?.sendsSimulcast == true:
                // Both encodings, each on its own stream and each from a keyframe.
                let waiting = layer == .full ? c.awaitingKeyframe : c.awaitingLowKeyframe
                if waiting && !frame.isKeyframe {
                    out.effects.append(.requestKeyframe(layer))
                    continue
                }
                if layer == .full { c.awaitingKeyframe = false } else { c.awaitingLowKeyframe = false }
                feed(c, .command(layer == .full ? .sendVideo(frame) : .sendLowVideo(frame)), now: now)
            case .video(let frame, let layer):
                guard c.layer == layer, c.connection?.sendsVideo == true else { continue }
                if c.awaitingKeyframe && !frame.isKeyframe {
                    // The keyframe asked for at DTLS time may have come before the peer counted as connected (and
                    // was not sent to it); keyframes come only on request, so ask again.
                    out.effects.append(.requestKeyframe(layer))
                    continue
                }
                c.awaitingKeyframe = false
                feed(c, .command(.sendVideo(frame)), now: now)
            case .audio(let packet, let isDTX):
                feed(c, .command(.sendAudio(packet: packet, isDTX: isDTX)), now: now)
            }
        }
    }

    /// The simulcast low encoding's rate out of `total` kbit/s: a sixth, at most 80, at least what an encoder is ever
    /// set to. It has a quarter of the full picture's pixels, and small pictures cost more per pixel, so a sixth
    /// keeps both looking alike (50 of 300 kbit/s: 160x120 at 15 fps with the test card still read back).
    static func simulcastLowKbps(ofTotal total: Int) -> Int { max(EncodingPlan.minimumKbps, min(total / 6, 80)) }

    /// Re-plans the encodings from the connected peers' video targets and moves peers whose encoding changed.
    private func planEncodings(now: TransportTime) {
        planAt = now
        var targets: [RemotePeerID: Int] = [:]
        var simulcastLow: Int?
        for c in connections.values where c.isConnected {
            guard let bps = c.connection?.targetVideoBitrate else { continue }
            var kbps = bps / 1000
            if c.connection?.sendsSimulcast == true {
                // The path's estimate carries both encodings: the low one's share first, the rest for the full one.
                let low = Self.simulcastLowKbps(ofTotal: min(kbps, configuration.videoCeilingKbps))
                simulcastLow = max(simulcastLow ?? 0, low)
                kbps -= low
            }
            targets[c.peer] = kbps
        }
        guard !targets.isEmpty else { return }
        var plan = EncodingPlan.make(targets: targets, ceilingKbps: configuration.videoCeilingKbps, previous: encodingPlan)
        if let low = simulcastLow { plan.lowKbps = max(plan.lowKbps ?? 0, low) }
        // The log says when layers change or a rate moves 10 %: plans move every 33 ms.
        if loggedPlan.map({ !$0.isClose(to: plan) }) ?? true {
            log("video encodings: \(plan.fullKbps) kbit/s" + (plan.lowKbps.map { " and \($0) kbit/s for \(plan.lowPeers.map { short($0) }.sorted())" } ?? ""))
            loggedPlan = plan
        }
        if plan != encodingPlan { out.effects.append(.setVideoBitrates(fullKbps: plan.fullKbps, lowKbps: plan.lowKbps)) }
        encodingPlan = plan
        for c in connections.values where c.layer != plan.layer(of: c.peer) {
            c.layer = plan.layer(of: c.peer)
            c.awaitingKeyframe = true
            out.effects.append(.requestKeyframe(c.layer))
        }
    }

    // MARK: helpers

    private func log(_ text: String) { out.effects.append(.log(text)) }
    private func short(_ id: RemotePeerID) -> String { String(id.rawValue.prefix(8)) }
}
