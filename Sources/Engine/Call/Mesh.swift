import EngineTransport

/// SkyRTC's room policy as a sans-IO core: a full mesh, one connection per remote socketId. Driven by `RoomInput`s and
/// a virtual or real `now`; owns no sockets, threads or clock (see `RoomPolicy`).
///
/// Rules (docs/skyrtc-protocol.md §5, "the newcomer offers to everyone already in the room"):
/// - `_peers`: we are the newcomer and offer to each id in it; `_new_peer`: prepare a connection, wait for its offer.
/// - Glare (two offers crossing): the larger socketId keeps its offer, the smaller rolls back and answers.
/// - A later offer with the same ICE username fragment renegotiates the running connection; a new one replaces it.
/// - A failed connection whose peer is still in the room is retried by the side that offered, on a fresh connection,
///   after 1, 2 and 4 s; then it stays failed until the peer leaves or rejoins.
/// - At most `CallLimits.maxPeers` open connections.
public struct Mesh: RoomPolicy, Sendable {
    /// Delays before offering again after the 1st, 2nd and 3rd failure of a connection we offered.
    public static let retryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4)]

    struct Peer: Sendable {
        /// nil until we offered or an offer arrived (a `_new_peer` connection waits for its offer).
        var role: SignalingRole?
        var remoteDescriptionApplied = false
        var state: PeerConnectionState = .new
        /// The ICE username fragment and the DTLS fingerprint of the peer's last description: an offer that keeps
        /// the ufrag renegotiates the connection that runs; one that keeps only the fingerprint restarts its ICE
        /// (RFC 8445 §9: the same DTLS association on a new path); one with a new fingerprint is a new session.
        var remoteUfrag: String?
        var remoteFingerprint: DtlsFingerprint?
    }

    public private(set) var you: RemotePeerID?
    private(set) var peers: [RemotePeerID: Peer] = [:]
    /// Attempts made for a failed connection we offered, and when to offer again (nil while an attempt is running).
    private(set) var retries: [RemotePeerID: (attempt: Int, at: TransportTime?)] = [:]
    let maxPeers: Int

    public init(maxPeers: Int = CallLimits.maxPeers) { self.maxPeers = maxPeers }

    public var openConnections: Int { peers.count }
    public func role(of peer: RemotePeerID) -> SignalingRole? { peers[peer]?.role }
    public func hasConnection(_ peer: RemotePeerID) -> Bool { peers[peer] != nil }
    /// When a retry of `peer` is due, if one is pending.
    public func retryDeadline(of peer: RemotePeerID) -> TransportTime? { retries[peer]?.at }

    public var nextDeadline: TransportTime? { retries.values.compactMap(\.at).min() }

    public mutating func handle(_ input: RoomInput, now: TransportTime) -> [RoomAction] {
        var out: [RoomAction] = []
        switch input {
        case .signal(let signal): handle(signal, into: &out)
        case .connectionState(let id, let state): changed(id, state, now: now, into: &out)
        case .localSignal(let signal):
            // A connection closed meanwhile has nobody to talk to.
            if peers[signal.peer] != nil { out.append(.send(signal)) }
        case .timer:
            for (id, retry) in retries where retry.at.map({ $0 <= now }) ?? false { retryFailed(id, attempt: retry.attempt, into: &out) }
        case .signalingLost:
            // Our socketId is gone from the room, so every peer has been told we left: close now rather than wait
            // for consent to expire (RFC 7675 would take 30 s), and the rejoin starts clean.
            for id in peers.keys.sorted() { close(id, cause: "signaling lost", into: &out) }
            retries = [:]
            you = nil
        case .leave:
            for id in peers.keys.sorted() { close(id, cause: "left the room", into: &out) }
            retries = [:]
        }
        return out
    }

    mutating func handle(_ signal: RoomSignal, into out: inout [RoomAction]) {
        switch signal {
        case .resumed(let me, let others):
            // The signaling connection came back and the server kept our place (docs/skyrtc-protocol.md §10), so
            // nobody was told we left. The connections stay; whoever left meanwhile goes, and whoever came meanwhile is
            // offered to: its own offer went to the lost connection, or was held for us and arrives after `_peers`,
            // in which case the two offers cross and the glare rule above keeps one.
            you = me
            let gone = peers.keys.filter { !others.contains($0) }.sorted()
            let new = others.filter { $0 != me && peers[$0] == nil }
            out.append(.log("resumed as \(me): keeping \(peers.count - gone.count) connection(s), \(gone.count) gone, \(new.count) new"))
            for id in gone { close(id, cause: "left while signaling was down", into: &out) }
            for id in new { create(id, role: .offerer, into: &out) }
        case .joined(let me, let others):
            you = me
            out.append(.log("joined as \(me); offering to \(others.count) peer(s)"))
            for id in others where id != me { create(id, role: .offerer, into: &out) }
        case .newPeer(let id):
            guard id != you, peers[id] == nil else { return }
            retries[id] = nil   // a rejoin starts the retry count over
            out.append(.log("\(short(id)): new peer, waiting for its offer"))
            create(id, role: nil, into: &out)
        case .removePeer(let id):
            close(id, cause: "peer left the room", into: &out)
        case .offer(let from, let offer):
            if let existing = peers[from], existing.role == .offerer, !existing.remoteDescriptionApplied,
               let you, you > from {
                // Glare: the larger socketId keeps its offer and ignores the other; the smaller one rolls back and
                // answers (RFC 8829 §4.1.8.2 rollback, with the "perfect negotiation" tie-break by id).
                out.append(.log("\(short(from)): glare, keeping our offer (our id is the larger)"))
                return
            }
            if let existing = peers[from], existing.remoteDescriptionApplied, existing.state != .failed,
               let ufrag = existing.remoteUfrag, ufrag == Self.ufrag(of: offer) {
                // The same ICE session: the peer renegotiates (adds or removes a section, as a browser does when it
                // starts or stops sharing its screen), answered on the connection that runs (RFC 8829 §5.3.2).
                out.append(.log("\(short(from)): new offer on the running connection, renegotiating"))
                out.append(.applyRemoteOffer(from, offer))
                return
            }
            if let existing = peers[from], existing.remoteDescriptionApplied, existing.state != .failed,
               let fingerprint = existing.remoteFingerprint, fingerprint == Self.fingerprint(of: offer) {
                // The same DTLS association with new ICE credentials: the peer restarts ICE (its relay or its
                // address changed); answered on the connection that runs, which restarts ours too.
                out.append(.log("\(short(from)): new ICE credentials on the running connection, restarting ICE"))
                peers[from]!.remoteUfrag = Self.ufrag(of: offer)
                out.append(.applyRemoteOffer(from, offer))
                return
            }
            if let existing = peers[from], existing.role != nil || existing.state == .failed {
                // A second offer of a new session (the peer rejoined, retried, or won glare), or an offer for a
                // connection that failed (even one the driver could not create): start over with a fresh connection.
                close(from, cause: "replaced by a new offer", into: &out)
            }
            if peers[from] == nil { create(from, role: nil, into: &out) }
            guard peers[from] != nil else { return }
            peers[from]!.role = .answerer
            peers[from]!.remoteDescriptionApplied = true
            peers[from]!.remoteUfrag = Self.ufrag(of: offer)
            peers[from]!.remoteFingerprint = Self.fingerprint(of: offer)
            out.append(.log("\(short(from)): offer received, answering"))
            out.append(.applyRemoteOffer(from, offer))
        case .answer(let from, let answer):
            guard peers[from] != nil else { return }   // an answer to nothing we offered
            peers[from]!.remoteDescriptionApplied = true
            peers[from]!.remoteUfrag = Self.ufrag(of: answer)
            peers[from]!.remoteFingerprint = Self.fingerprint(of: answer)
            out.append(.log("\(short(from)): answer received"))
            out.append(.applyRemoteAnswer(from, answer))
        case .candidate(let from, let candidate):
            // One BUNDLE transport: every candidate belongs to it, whatever section sdpMid/sdpMLineIndex name.
            // A candidate may overtake the offer it belongs to: the connection is made and buffers it (as today).
            if peers[from] == nil { create(from, role: nil, into: &out) }
            guard peers[from] != nil else { return }
            out.append(.addRemoteCandidate(from, candidate))
        case .sections:
            break   // a mesh connection is its peer's, whole
        }
    }

    mutating func changed(_ id: RemotePeerID, _ state: PeerConnectionState, now: TransportTime, into out: inout [RoomAction]) {
        guard peers[id] != nil else { return }
        let was = peers[id]!.state
        peers[id]!.state = state
        if state == .connected { retries[id] = nil }
        if state == .disconnected, was == .connected {
            // Consent lapsed (RFC 7675: no answer to our checks for 8 s): the path may be gone for good (a NAT
            // dropped its mapping, an address or a relay changed). A new ICE generation looks for another while
            // the old pair keeps its chance; either end may ask (a simultaneous re-offer is glare, which the
            // original answerer yields). Failing that, the retry below replaces the connection.
            out.append(.log("\(short(id)): consent lost, restarting ICE"))
            out.append(.restartIce(id))
        }
        guard state == .failed, peers[id]!.role == .offerer else { return }
        // The side that offered retries (docs/skyrtc-protocol.md §5: the newcomer offers); the answerer waits for the offer.
        let attempt = (retries[id]?.attempt ?? 0) + 1
        if attempt <= Self.retryDelays.count {
            let delay = Self.retryDelays[attempt - 1]
            retries[id] = (attempt, now + delay)
            out.append(.log("\(short(id)): will offer again in \(delay.components.seconds) s (attempt \(attempt))"))
        } else {
            retries[id] = nil
            out.append(.log("\(short(id)): giving up after \(attempt - 1) new offers; stays failed"))
        }
    }

    /// Offers again to a peer whose connection failed (a fresh connection: new ports, new ICE credentials).
    mutating func retryFailed(_ id: RemotePeerID, attempt: Int, into out: inout [RoomAction]) {
        guard peers[id]?.state == .failed else {
            retries[id] = nil   // replaced meanwhile (the peer offered anew, or left)
            return
        }
        close(id, cause: "failed; offering again", keepRetry: true, into: &out)
        // Kept (with no time) until this attempt connects or fails: it counts the attempts.
        retries[id] = (attempt, nil)
        create(id, role: .offerer, into: &out)
    }

    mutating func create(_ id: RemotePeerID, role: SignalingRole?, into out: inout [RoomAction]) {
        guard peers[id] != nil || peers.count < maxPeers else {
            out.append(.log("\(short(id)): not connecting: \(maxPeers) peers already (CallLimits.maxPeers)"))
            return
        }
        peers[id] = Peer(role: role)
        out.append(.createConnection(id, role: role))
        // SkyRTC: the offerer creates the one chat and file channel; the answerer takes it from DCEP.
        if role == .offerer { out.append(.openDataChannel(id, label: Self.channelLabel)) }
    }

    mutating func close(_ id: RemotePeerID, cause: String, keepRetry: Bool = false, into out: inout [RoomAction]) {
        if !keepRetry { retries[id] = nil }
        guard peers.removeValue(forKey: id) != nil else { return }
        out.append(.closeConnection(id, cause: cause))
    }

    func short(_ id: RemotePeerID) -> String { String(id.rawValue.prefix(8)) }

    static func ufrag(of description: SessionDescription) -> String? {
        description.media.firstIndex { !$0.isRejected }.flatMap { description.iceCredentials(mediaIndex: $0)?.ufrag }
    }

    static func fingerprint(of description: SessionDescription) -> DtlsFingerprint? {
        description.media.firstIndex { !$0.isRejected }.flatMap { description.fingerprint(mediaIndex: $0) }
    }
}

extension Mesh {
    /// The label SkyRTC's browser client gives its channel: it calls `createDataChannel(label)` with `label`
    /// undefined, which WebIDL turns into the string "undefined". Any label is accepted from the peer.
    public static let channelLabel = "undefined"
}
