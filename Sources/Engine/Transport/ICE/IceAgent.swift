/// RFC 8445 full ICE agent for one component (rtcp-mux + BUNDLE), sans-IO.
///
/// Feed it `handle(_ input, now:)` with received datagrams, timeouts and commands; it returns datagrams to send,
/// events and the next deadline. It never reads a clock, opens a socket or starts a thread, so one instance
/// belongs to one owner (the driver's event thread, or a test).
///
/// Documented limits: UDP only; remote `.local` (mDNS) candidates are ignored rather than resolved — the peer's
/// checks still reach us and become peer-reflexive candidates (RFC 8445 §7.3.1.3), which is how libdatachannel#1285
/// reports Chrome connecting; gathering from STUN and TURN servers is
/// the driver's (`addLocalRelayed` takes the relayed address of an allocation it made).
///
/// Bounded (`TransportLimits`): at most `maxRemoteCandidates` signalled remote candidates (+ a few peer-reflexive
/// ones), `maxCandidatePairs` pairs (RFC 8445 §6.1.2.5) and `maxTransactions` outstanding checks; duplicates are
/// found by hash lookups, so every step costs at most a pass over the bounded checklist, however many candidates
/// the peer trickles.
public final class IceAgent {
    public private(set) var config: IceAgentConfig
    public private(set) var state: IceConnectionState = .new
    public private(set) var role: IceRole
    public private(set) var remoteCredentials: IceCredentials?
    public private(set) var selected: SelectedPair?
    /// Round-trip time of the latest check answered on the selected pair (consent checks keep it fresh).
    /// Karn's rule: only transactions answered before any retransmission are measured.
    public private(set) var roundTripTime: Duration?

    struct LocalCandidate {
        var candidate: IceCandidate
        var base: TransportAddress
    }

    private(set) var locals: [LocalCandidate] = []
    private(set) var remotes: [IceCandidate] = []
    private(set) var pairs: [CandidatePair] = []
    /// Index of each remote candidate by address, and of each pair by (local, remote) index: O(1) duplicate checks.
    private var remoteByAddress: [TransportAddress: Int] = [:]
    private var pairByEnds: [Int: Int] = [:]
    private var signalledRemotes = 0
    private var reflexiveRemotes = 0
    private var transactions: [TransactionID: PendingCheck] = [:]
    /// No transaction retransmits before this (a lower bound: answered ones may have left; nil: none pending), so a
    /// step that has nothing to retransmit does not scan them all.
    private var earliestRetransmit: TransportTime?
    /// §6.1.4.1 triggered-check queue (pair indexes), served before ordinary checks.
    private var triggered: [Int] = []
    private var nextPacedCheck: TransportTime?
    private var checkingStartedAt: TransportTime?
    private var firstValidAt: TransportTime?
    private var nominating: Int?
    private var selectedPair: Int?
    private var lastConsentResponse: TransportTime?
    private var nextConsentCheck: TransportTime?
    /// Controlling, after a selection: when `seekBetterPair` next checks a pair outranking the selected one, and the
    /// pair index it checked last (they take turns).
    private var nextBetterPairCheck: TransportTime?
    private var lastBetterPairChecked = -1
    /// Whether some pair outranks the selected one, cached for `deadline` (which runs per packet): nil after the pairs,
    /// their priorities or the selection changed, computed again on the next ask.
    private var selectionOutrankedCache: Bool?
    /// Trickle ICE (RFC 8838): until the peer says it is done, a fully failed checklist may still be rescued.
    private var remoteGatheringComplete = false
    private var rng: IceRandom
    private var out = IceOutput()
    /// Remote `.local` candidates dropped, for diagnostics.
    public private(set) var ignoredMdnsCandidates = 0
    /// Remote candidates ignored because `TransportLimits.maxRemoteCandidates` were already known.
    public private(set) var droppedRemoteCandidates = 0
    /// Pairs not formed because the checklist was full of better ones (`TransportLimits.maxCandidatePairs`).
    public private(set) var droppedPairs = 0
    /// Checks not sent because `TransportLimits.maxTransactions` were outstanding.
    public private(set) var deferredChecks = 0
    /// ICE restarts so far (§9).
    public private(set) var restarts = 0
    /// Sizes of the bounded tables (tests and diagnostics).
    public var remoteCandidateCount: Int { remotes.count }
    public var pairCount: Int { pairs.count }
    public var transactionCount: Int { transactions.count }

    public init(config: IceAgentConfig) {
        self.config = config
        role = config.role
        rng = IceRandom(seed: config.seed)
    }

    public var localCredentials: IceCredentials { config.local }
    public var localCandidates: [IceCandidate] { locals.map(\.candidate) }
    public var remoteCandidates: [IceCandidate] { remotes }

    // MARK: Entry point

    public func handle(_ input: IceInput, now: TransportTime) -> IceOutput {
        out = IceOutput()
        // `failed` is terminal (W3C: only an ICE restart leaves it; RFC 7675 §5.1: stop sending), like `closed`.
        if state != .closed && state != .failed {
            switch input {
            case .command(let command): apply(command, now: now)
            case .datagram(let from, let to, let bytes): receive(bytes, from: from, to: to, now: now)
            case .timeout: break
            }
            if state != .closed && state != .failed { tick(now: now) }
        }
        out.deadline = state == .closed || state == .failed ? nil : deadline(now: now)
        defer { out = IceOutput() }
        return out
    }

    /// Whether (`local` base, `remote` address) is a valid pair: one of our own connectivity checks on it succeeded
    /// (RFC 8445 §7.2.5.3.2: the pair of a successful check "is called a valid pair"). Only such a 5-tuple has shown
    /// that the peer holding the ICE password answers there, so only its DTLS and SRTP are believed.
    public func isValidPair(local: TransportAddress, remote: TransportAddress) -> Bool {
        pairs.contains { $0.state == .succeeded && locals[$0.local].base == local && remotes[$0.remote].transportAddress == remote }
    }

    /// Whether `address` is a remote candidate we know (signalled, or peer-reflexive from an authenticated check).
    public func isRemoteCandidate(_ address: TransportAddress) -> Bool {
        remotes.contains { $0.transportAddress == address }
    }

    // MARK: Commands

    private func apply(_ command: IceCommand, now: TransportTime) {
        switch command {
        case .addLocalHost(let address):
            // Our own interfaces, not remote input; fewer than 256 keeps `pairKey` unique (and local preferences > 0).
            guard !locals.contains(where: { $0.base == address }), locals.count < 255 else { return }
            // §5.1.2.1: local preference distinguishes interfaces; earlier-added (preferred) ones rank higher,
            // and IPv6 above IPv4 as RFC 8421 suggests.
            let localPreference = UInt32(max(0, 65535 - 256 * locals.count - (address.ip.isIPv4 ? 128 : 0)))
            let candidate = IceCandidate(
                foundation: CandidatePriority.foundation(kind: .host, baseIP: address.ip),
                priority: CandidatePriority.candidate(kind: .host, localPreference: localPreference),
                address: .ip(address.ip), port: address.port, kind: .host)
            locals.append(LocalCandidate(candidate: candidate, base: address))
            out.events.append(.candidateGathered(candidate))
            for r in remotes.indices { addPair(local: locals.count - 1, remote: r) }
        case .addLocalRelayed(let relayed, let mapped):
            guard !locals.contains(where: { $0.base == relayed }), locals.count < 255 else { return }
            // §5.1.2.1: relayed candidates get type preference 0, so every direct pair outranks them; one relay per
            // agent, so the local preference only has to be valid.
            let related = mapped ?? relayed
            let candidate = IceCandidate(
                foundation: CandidatePriority.foundation(kind: .relay, baseIP: relayed.ip),
                priority: CandidatePriority.candidate(kind: .relay, localPreference: 65535),
                address: .ip(relayed.ip), port: relayed.port, kind: .relay,
                relatedAddress: .ip(related.ip), relatedPort: related.port)
            locals.append(LocalCandidate(candidate: candidate, base: relayed))
            out.events.append(.candidateGathered(candidate))
            for r in remotes.indices { addPair(local: locals.count - 1, remote: r) }
        case .setRemoteCredentials(let credentials):
            remoteCredentials = credentials
        case .addRemoteCandidate(let candidate):
            addRemote(candidate)
        case .endOfRemoteCandidates:
            remoteGatheringComplete = true
        case .restart(let local, let relayed, let mapped, let hosts):
            restart(local: local, now: now)
            if let hosts {
                // The pairs are gone already, so no index into `locals` survives this.
                locals.removeAll { $0.candidate.kind == .host && !hosts.contains($0.base) }
                for host in hosts { apply(.addLocalHost(host), now: now) }
            }
            if let relayed { apply(.addLocalRelayed(relayed: relayed, mapped: mapped), now: now) }
        case .close:
            setState(.closed)
        }
    }

    /// §9: a new generation of the session. `selected` (the pair media leaves on) stays until a new pair is
    /// selected; every other piece of state about the peer goes.
    private func restart(local: IceCredentials, now: TransportTime) {
        guard state != .closed else { return }
        config.local = local
        remoteCredentials = nil
        locals.removeAll { $0.candidate.kind == .relay }
        remotes = []
        remoteByAddress = [:]
        pairs = []
        pairByEnds = [:]
        signalledRemotes = 0
        reflexiveRemotes = 0
        transactions = [:]
        earliestRetransmit = nil
        triggered = []
        nextPacedCheck = nil
        checkingStartedAt = nil
        firstValidAt = nil
        nominating = nil
        selectedPair = nil
        lastConsentResponse = nil
        nextConsentCheck = nil
        nextBetterPairCheck = nil
        lastBetterPairChecked = -1
        selectionOutrankedCache = nil
        remoteGatheringComplete = false
        restarts += 1
        if selected != nil, state == .connected || state == .completed || state == .disconnected {
            // Media goes on over the selected pair while the new generation checks: the connection stays what it
            // was (a restart that is only a precaution costs the call nothing), unless checking times out.
            restarting = true
            checkingStartedAt = now
        } else {
            restarting = false
            setState(.new)
        }
    }

    /// An ICE restart is checking while the previous selection still carries media (`state` unchanged).
    private var restarting = false
    /// Looking for a pair: a first generation, or a restarted one.
    private var seeking: Bool { state == .checking || restarting }

    @discardableResult
    private func addRemote(_ candidate: IceCandidate) -> Int? {
        // Only UDP component 1 (rtcp-mux, BUNDLE: docs/webrtc-interop.md §5).
        guard candidate.transport == "udp", candidate.component == 1 else { return nil }
        guard let address = candidate.transportAddress else {
            // `<uuid>.local`: resolving mDNS would mean sockets inside the agent; ignored (see type comment).
            ignoredMdnsCandidates += 1
            return nil
        }
        // Refused here too (the call refuses and logs them before they arrive): a check is never sent to an address
        // no unicast peer has, which through a relay would cost the allocation (IPAddress.notUnicastReason).
        guard address.notUnicastPeerReason == nil else { droppedRemoteCandidates += 1; return nil }
        if let existing = remoteByAddress[address] {
            // §7.3.1.3: a signalled candidate replaces the peer-reflexive one learned for the same address.
            if remotes[existing].kind == .prflx && candidate.kind != .prflx {
                remotes[existing] = candidate
                for i in pairs.indices where pairs[i].remote == existing {
                    pairs[i].priority = pairPriority(local: pairs[i].local, remote: existing)
                    selectionOutrankedCache = nil
                }
            }
            return existing
        }
        if candidate.kind == .prflx {
            guard reflexiveRemotes < TransportLimits.maxPeerReflexiveCandidates else { droppedRemoteCandidates += 1; return nil }
            reflexiveRemotes += 1
        } else {
            guard signalledRemotes < TransportLimits.maxRemoteCandidates else { droppedRemoteCandidates += 1; return nil }
            signalledRemotes += 1
        }
        remotes.append(candidate)
        remoteByAddress[address] = remotes.count - 1
        for l in locals.indices { addPair(local: l, remote: remotes.count - 1) }
        return remotes.count - 1
    }

    @discardableResult
    private func addPair(local l: Int, remote r: Int) -> Int? {
        guard let remoteAddress = remotes[r].transportAddress,
              remoteAddress.ip.isIPv4 == locals[l].base.ip.isIPv4 else { return nil }   // §6.1.2.2: same family
        // A signalled non-loopback address is not worth checking from a loopback socket (or vice versa): such pairs
        // normally just fail, slowly. A peer-reflexive one is different: its check already arrived on that socket
        // (Linux delivers 192.0.2.2 → 127.0.0.1), and Chromium may nominate exactly that pair.
        guard remoteAddress.ip.isLoopback == locals[l].base.ip.isLoopback || remotes[r].kind == .prflx else { return nil }
        let key = Self.pairKey(local: l, remote: r)
        if let existing = pairByEnds[key] { return existing }
        selectionOutrankedCache = nil
        var pair = CandidatePair(local: l, remote: r,
                                 foundation: locals[l].candidate.foundation + ":" + remotes[r].foundation,
                                 priority: pairPriority(local: l, remote: r))
        // §6.1.2.6: the first pair of each foundation starts Waiting, the rest Frozen.
        if !pairs.contains(where: { $0.foundation == pair.foundation && $0.state != .frozen }) { pair.state = .waiting }
        guard pairs.count >= TransportLimits.maxCandidatePairs else {
            pairs.append(pair)
            pairByEnds[key] = pairs.count - 1
            return pairs.count - 1
        }
        // §6.1.2.5: the checklist is full; keep the highest-priority pairs. The lowest-priority pair that is neither
        // being checked, valid, nominated nor in use gives its slot (indexes stay stable for the other tables).
        var victim: Int?
        for i in pairs.indices where pairs[i].transaction == nil && !pairs[i].nominated && !pairs[i].nominateOnSuccess
            && pairs[i].state != .succeeded
            && pairs[i].state != .inProgress && i != selectedPair && i != nominating {
            if victim.map({ pairs[i].priority < pairs[$0].priority }) ?? true { victim = i }
        }
        guard let v = victim, pairs[v].priority < pair.priority else {
            droppedPairs += 1
            return nil
        }
        droppedPairs += 1
        pairByEnds[Self.pairKey(local: pairs[v].local, remote: pairs[v].remote)] = nil
        pairs[v] = pair
        pairByEnds[key] = v
        return v
    }

    /// Local candidates are few (one per host address): `remote * 256 + local` is unique for fewer than 256 of them.
    private static func pairKey(local l: Int, remote r: Int) -> Int { r &* 256 &+ l }

    private func pairPriority(local l: Int, remote r: Int) -> UInt64 {
        let lp = locals[l].candidate.priority, rp = remotes[r].priority
        return role == .controlling ? CandidatePriority.pair(controlling: lp, controlled: rp)
                                    : CandidatePriority.pair(controlling: rp, controlled: lp)
    }

    private func switchRole(to newRole: IceRole) {
        guard newRole != role else { return }
        role = newRole
        // §7.3.1.1: "the agent MUST ... recompute the pair priorities".
        for i in pairs.indices { pairs[i].priority = pairPriority(local: pairs[i].local, remote: pairs[i].remote) }
        selectionOutrankedCache = nil
        out.events.append(.roleChanged(newRole))
    }

    // MARK: Receiving

    private func receive(_ bytes: [UInt8], from: TransportAddress, to: TransportAddress, now: TransportTime) {
        guard StunMessage.looksLikeStun(bytes), let message = try? StunMessage(decoding: bytes),
              message.type.method == .binding else { return }
        switch message.type.stunClass {
        case .request: handleRequest(message, from: from, to: to, now: now)
        case .successResponse, .errorResponse: handleResponse(message, from: from, to: to, now: now)
        case .indication: break   // RFC 8445 §11: keepalive indications need no answer.
        }
    }

    private func respond(to request: StunMessage, from local: TransportAddress, to remote: TransportAddress,
                         error: StunErrorCode?, extra: [StunAttribute] = [], sign: Bool = true) {
        var response = StunMessage(type: error == nil ? .bindingSuccess : .bindingError, transactionID: request.transactionID)
        if let error { response.attributes = [.errorCode(error)] + extra } else { response.attributes = [.xorMappedAddress(remote)] }
        let key = sign ? StunIntegrity.shortTermKey(password: config.local.pwd) : nil
        // Only our own values go into a response (an address, an error, the attribute types the peer sent, which a
        // decoded message bounds), so the encoder has nothing to refuse; if it ever did, no answer is the answer.
        guard let bytes = try? response.encode(integrityKey: key, fingerprint: true) else { return }
        out.transmits.append(Transmit(from: local, to: remote, bytes: bytes))
    }

    /// RFC 8445 §7.3: answering a connectivity check.
    private func handleRequest(_ request: StunMessage, from: TransportAddress, to: TransportAddress, now: TransportTime) {
        guard let l = locals.firstIndex(where: { $0.base == to }) else { return }
        // §7.2.2 checks carry FINGERPRINT; without it this is not an ICE check (RFC 8445 §7.3, RFC 7983).
        guard request.hasFingerprint else { return }
        // RFC 5389 §10.1.2: missing USERNAME or MESSAGE-INTEGRITY → 400; wrong ones → 401.
        guard let username = request.username, request.hasIntegrity else {
            respond(to: request, from: to, to: from, error: .badRequest, sign: false)
            return
        }
        guard username.hasPrefix(config.local.ufrag + ":"),
              request.verifyIntegrity(key: StunIntegrity.shortTermKey(password: config.local.pwd)) else {
            respond(to: request, from: to, to: from, error: .unauthorized, sign: false)
            return
        }
        let unknown = request.unknownComprehensionRequired
        guard unknown.isEmpty else {
            respond(to: request, from: to, to: from, error: .unknownAttribute, extra: [.unknownAttributes(unknown)])
            return
        }
        guard let peerPriority = request.priority else {
            respond(to: request, from: to, to: from, error: .badRequest)
            return
        }
        // §7.3.1.1 role conflict.
        if role == .controlling, let theirs = request.iceControlling {
            if config.tieBreaker >= theirs {
                respond(to: request, from: to, to: from, error: .roleConflict)
                return
            }
            switchRole(to: .controlled)
        } else if role == .controlled, let theirs = request.iceControlled {
            if config.tieBreaker >= theirs {
                switchRole(to: .controlling)
            } else {
                respond(to: request, from: to, to: from, error: .roleConflict)
                return
            }
        }
        respond(to: request, from: to, to: from, error: nil)

        // §7.3.1.3: an unknown source address is a peer-reflexive candidate with the PRIORITY from the request.
        let r: Int
        if let known = remoteByAddress[from] {
            r = known
        } else {
            let prflx = IceCandidate(foundation: "prflx\(rng.next() % 1_000_000_000)", priority: peerPriority,
                                     address: .ip(from.ip), port: from.port, kind: .prflx)
            guard let added = addRemote(prflx) else { return }
            r = added
        }
        guard let p = addPair(local: l, remote: r) else { return }
        startChecking(now: now)

        // §7.3.1.5: the controlled agent learns the nomination from USE-CANDIDATE.
        if role == .controlled && request.useCandidate {
            if pairs[p].state == .succeeded {
                nominate(p, now: now)
            } else {
                pairs[p].nominateOnSuccess = true
            }
        }
        // §7.3.1.4 triggered check, unless the pair is already valid or being checked.
        switch pairs[p].state {
        case .succeeded, .inProgress: break
        case .frozen, .waiting, .failed:
            pairs[p].state = .waiting
            if !triggered.contains(p) { triggered.append(p) }
        }
    }

    /// RFC 8445 §7.2.5: processing the response to one of our checks.
    private func handleResponse(_ response: StunMessage, from: TransportAddress, to: TransportAddress, now: TransportTime) {
        guard let check = transactions[response.transactionID], let remotePwd = remoteCredentials?.pwd else { return }
        // §7.2.5.1: responses are authenticated with the remote password; anything else is discarded as forged.
        guard response.verifyIntegrity(key: StunIntegrity.shortTermKey(password: remotePwd)) else { return }
        transactions[response.transactionID] = nil
        let p = check.pair
        if pairs[p].transaction == response.transactionID { pairs[p].transaction = nil }
        let remoteAddress = remotes[pairs[p].remote].transportAddress
        let sourceMatches = from == remoteAddress && to == locals[pairs[p].local].base
        if sourceMatches, response.type.stunClass == .successResponse, check.transmissions == 1,
           selectedPair == nil || selectedPair == p {
            roundTripTime = now - check.firstSentAt
        }

        if check.purpose == .consent {
            // RFC 7675 §5.1: only an authenticated success from the checked address renews consent.
            if response.type.stunClass == .successResponse && sourceMatches { consentRenewed(now: now) }
            return
        }
        if response.type.stunClass == .errorResponse {
            if response.errorCode?.code == 487 {
                // §7.2.5.1: switch to the opposite of the role the request claimed, then retry the pair.
                switchRole(to: check.role == .controlling ? .controlled : .controlling)
                if nominating == p { nominating = nil }
                pairs[p].state = .waiting
                if !triggered.contains(p) { triggered.append(p) }
            } else {
                pairs[p].state = .failed
                if nominating == p { nominating = nil }
            }
            return
        }
        // §7.2.5.2.1: non-symmetric transport addresses fail the check.
        guard sourceMatches else {
            pairs[p].state = .failed
            if nominating == p { nominating = nil }
            return
        }
        pairs[p].state = .succeeded
        if firstValidAt == nil { firstValidAt = now }
        // §7.2.5.3.3: unfreeze pairs sharing the foundation.
        for i in pairs.indices where pairs[i].state == .frozen && pairs[i].foundation == pairs[p].foundation {
            pairs[i].state = .waiting
        }
        // The mapped address is where the peer saw us; a NAT would make it a local peer-reflexive candidate
        // (§7.2.5.3.1). conftui checks from host bases only, so the valid pair is the checked pair.
        if role == .controlling && check.useCandidate {
            nominate(p, now: now)   // §7.2.5.3.4
        } else if role == .controlling, let current = selectedPair, pairs[p].priority > pairs[current].priority {
            nextBetterPairCheck = now   // a better pair became valid after the selection: nominate it at once
        } else if role == .controlled && pairs[p].nominateOnSuccess {
            nominate(p, now: now)   // §7.3.1.5
        }
    }

    private func nominate(_ p: Int, now: TransportTime) {
        pairs[p].nominated = true
        if nominating == p { nominating = nil }
        if let current = selectedPair {
            if current == p { return }
            // §8.1.1: the highest-priority nominated valid pair is selected. The controlled agent follows the
            // controlling agent's latest nomination instead: that agent decides (§6.1.1), its priorities differ from
            // ours when a candidate is peer-reflexive on one side only (§7.3.1.3), and it sends media on the pair it
            // chose (Chromium switches to a pair it nominates later), which only the selected pair is believed from.
            if role == .controlling && pairs[current].priority >= pairs[p].priority { return }
        }
        selectedPair = p
        selectionOutrankedCache = nil
        nextBetterPairCheck = now + config.betterPairRecheckInterval
        let pair = pairs[p]
        let chosen = SelectedPair(local: locals[pair.local].candidate, localBase: locals[pair.local].base,
                                  remote: remotes[pair.remote], remoteAddress: remotes[pair.remote].transportAddress!)
        selected = chosen
        restarting = false
        out.events.append(.selectedPairChanged(chosen))
        // The successful check itself is a consent response (RFC 7675 §5.1).
        lastConsentResponse = now
        scheduleConsent(now: now)
        setState(.connected)
    }

    private func consentRenewed(now: TransportTime) {
        lastConsentResponse = now
        if state == .disconnected { setState(.connected) }
    }

    private func scheduleConsent(now: TransportTime) {
        // RFC 7675 §5.1: "randomized ... by a factor between 0.8 and 1.2" to avoid synchronized checks.
        let factor = Double.random(in: 0.8...1.2, using: &rng)
        nextConsentCheck = now + config.consentInterval.scaled(by: factor)
    }

    private func setState(_ newState: IceConnectionState) {
        guard newState != state else { return }
        state = newState
        out.events.append(.stateChanged(newState))
    }

    private func startChecking(now: TransportTime) {
        if state == .new {
            checkingStartedAt = now
            setState(.checking)
        }
    }

    // MARK: Timers

    private func tick(now: TransportTime) {
        retransmit(now: now)
        guard state != .failed else { return }
        if remoteCredentials != nil && !pairs.isEmpty { startChecking(now: now) }
        if selectedPair == nil {
            scheduleNomination(now: now)
            sendPacedCheck(now: now)
            if seeking, let started = checkingStartedAt {
                let allFailed = !pairs.isEmpty && pairs.allSatisfy { $0.state == .failed } && transactions.isEmpty
                if (allFailed && remoteGatheringComplete) || now - started >= config.checkingTimeout {
                    restarting = false
                    setState(.failed)
                }
            }
        } else {
            consent(now: now)
            sendTriggeredCheck(now: now)
            seekBetterPair(now: now)
        }
    }

    private func selectionIsOutranked() -> Bool {
        if let known = selectionOutrankedCache { return known }
        guard let current = selectedPair else { return false }
        let outranked = pairs.contains { $0.priority > pairs[current].priority }
        selectionOutrankedCache = outranked
        return outranked
    }

    /// The pairs that outrank the selected one (indexes), for the controlling agent after a selection.
    private func betterThanSelected() -> [Int] {
        guard role == .controlling, let current = selectedPair else { return [] }
        return pairs.indices.filter { pairs[$0].priority > pairs[current].priority }
    }

    /// Controlling, connected: every `betterPairRecheckInterval`, nominate a valid pair that outranks the selected
    /// one, or else check the next such pair again (failed ones too: a path may have opened since). The
    /// nomination's success selects the pair (`nominate`: the higher priority wins); the controlled agent follows.
    private func seekBetterPair(now: TransportTime) {
        guard role == .controlling, state == .connected, remoteCredentials != nil, nominating == nil else { return }
        if let next = nextBetterPairCheck, now < next { return }
        nextBetterPairCheck = now + config.betterPairRecheckInterval
        let better = betterThanSelected()
        if let valid = better.filter({ pairs[$0].state == .succeeded }).max(by: { pairs[$0].priority < pairs[$1].priority }) {
            nominating = valid
            if !sendCheck(valid, useCandidate: true, purpose: .connectivity, now: now) { nominating = nil }
            return
        }
        let idle = better.filter { pairs[$0].transaction == nil }
        guard let p = idle.first(where: { $0 > lastBetterPairChecked }) ?? idle.first else { return }
        lastBetterPairChecked = p
        pairs[p].state = .waiting
        sendCheck(p, useCandidate: false, purpose: .connectivity, now: now)
    }

    /// §7.3.1.4 after a selection: a check from the peer on another pair still triggers ours, paced by Ta, so that a
    /// pair the controlling agent moves to (and nominates) becomes valid on our side too.
    private func sendTriggeredCheck(now: TransportTime) {
        guard remoteCredentials != nil, state == .connected || state == .disconnected, !triggered.isEmpty else { return }
        if let next = nextPacedCheck, now < next { return }
        nextPacedCheck = now + config.ta
        while !triggered.isEmpty {
            let p = triggered.removeFirst()
            if pairs[p].state == .waiting {
                sendCheck(p, useCandidate: false, purpose: .connectivity, now: now)
                return
            }
        }
    }

    private func retransmit(now: TransportTime) {
        guard let earliest = earliestRetransmit, earliest <= now else { return }
        defer { earliestRetransmit = transactions.values.lazy.map(\.nextRetransmit).min() }
        for (tid, check) in transactions where check.nextRetransmit <= now {
            if check.transmissions >= (check.purpose == .consent ? 5 : config.maxTransmissions) {
                transactions[tid] = nil
                if check.purpose == .connectivity {
                    if pairs[check.pair].transaction == tid { pairs[check.pair].transaction = nil }
                    if pairs[check.pair].state == .inProgress { pairs[check.pair].state = .failed }
                    if nominating == check.pair { nominating = nil }
                }
                continue
            }
            var updated = check
            updated.transmissions += 1
            updated.rto = min(check.rto * 2, config.maxRTO)
            updated.nextRetransmit = now + updated.rto
            transactions[tid] = updated
            let pair = pairs[check.pair]
            out.transmits.append(Transmit(from: locals[pair.local].base, to: remotes[pair.remote].transportAddress!,
                                          bytes: check.bytes))
        }
    }

    /// Regular nomination (§8.1.1): once the best valid pair cannot be beaten by a pending one, or after
    /// `nominationDelay`, repeat its check with USE-CANDIDATE.
    private func scheduleNomination(now: TransportTime) {
        guard let (best, due) = nominationPlan(now: now), due <= now else { return }
        nominating = best
        // At the transaction limit nothing is sent: nominate again at the next opportunity.
        if !sendCheck(best, useCandidate: true, purpose: .connectivity, now: now) { nominating = nil }
        nextPacedCheck = now + config.ta
    }

    /// The pair to nominate and the earliest time to do it; nil when there is nothing to nominate. Used by both
    /// `scheduleNomination` and `deadline`, so a deadline never names a moment at which nothing can happen.
    private func nominationPlan(now: TransportTime) -> (Int, TransportTime)? {
        guard role == .controlling, config.nomination == .regular, nominating == nil, selectedPair == nil,
              let firstValidAt else { return nil }
        guard let best = pairs.indices.filter({ pairs[$0].state == .succeeded }).max(by: { pairs[$0].priority < pairs[$1].priority })
        else { return nil }
        let betterPending = pairs.contains { $0.priority > pairs[best].priority && [.waiting, .inProgress, .frozen].contains($0.state) }
        let ready = betterPending ? firstValidAt + config.nominationDelay : now
        // The nominating check is a new transaction, so it is paced like any other (§14.2).
        return (best, max(ready, nextPacedCheck ?? now))
    }

    /// §6.1.4.2: one new check per Ta — triggered queue first, then the best Waiting pair, then unfreeze.
    private func sendPacedCheck(now: TransportTime) {
        guard remoteCredentials != nil, seeking else { return }
        if let next = nextPacedCheck, now < next { return }
        var chosen: Int?
        while !triggered.isEmpty {
            let p = triggered.removeFirst()
            if pairs[p].state == .waiting { chosen = p; break }
        }
        if chosen == nil {
            chosen = pairs.indices.filter { pairs[$0].state == .waiting }.max { pairs[$0].priority < pairs[$1].priority }
        }
        if chosen == nil {
            let busyFoundations = Set(pairs.filter { $0.state == .waiting || $0.state == .inProgress }.map(\.foundation))
            chosen = pairs.indices.filter { pairs[$0].state == .frozen && !busyFoundations.contains(pairs[$0].foundation) }
                .max { pairs[$0].priority < pairs[$1].priority }
        }
        // Poll again after Ta even when nothing was eligible (frozen pairs wait for a busy foundation).
        nextPacedCheck = now + config.ta
        guard let p = chosen else { return }
        let aggressive = role == .controlling && config.nomination == .aggressive
        sendCheck(p, useCandidate: aggressive, purpose: .connectivity, now: now)
    }

    private func consent(now: TransportTime) {
        guard let last = lastConsentResponse, let p = selectedPair else { return }
        // RFC 7675 §5.1: consent is lost 30 s after the last valid response; the agent must stop sending.
        if now - last >= config.consentTimeout {
            setState(.failed)
            transactions.removeAll()
            return
        }
        if now - last >= config.disconnectedTimeout { setState(.disconnected) }
        if let next = nextConsentCheck, now >= next {
            sendCheck(p, useCandidate: false, purpose: .consent, now: now)
            scheduleConsent(now: now)
        }
    }

    /// §7.2.4: a Binding request with USERNAME, PRIORITY, ICE-CONTROLLING/CONTROLLED, optional USE-CANDIDATE,
    /// MESSAGE-INTEGRITY keyed by the remote password, FINGERPRINT.
    /// False when nothing was sent (no credentials yet, or `TransportLimits.maxTransactions` outstanding).
    @discardableResult
    private func sendCheck(_ p: Int, useCandidate: Bool, purpose: PendingCheck.Purpose, now: TransportTime) -> Bool {
        guard let remote = remoteCredentials, let to = remotes[pairs[p].remote].transportAddress else { return false }
        // A check replacing the pair's own transaction frees its slot; otherwise respect the bound.
        let replacing = purpose == .connectivity && pairs[p].transaction.map { transactions[$0] != nil } == true
        guard replacing || transactions.count < TransportLimits.maxTransactions else {
            deferredChecks += 1
            return false
        }
        let tid = TransactionID.random(using: &rng)
        // §7.2.4: PRIORITY is the priority a peer-reflexive candidate from this base would get.
        let prflxPriority = CandidatePriority.candidate(kind: .prflx, localPreference: (locals[pairs[p].local].candidate.priority >> 8) & 0xFFFF)
        var attributes: [StunAttribute] = [.username("\(remote.ufrag):\(config.local.ufrag)"), .priority(prflxPriority)]
        attributes.append(role == .controlling ? .iceControlling(config.tieBreaker) : .iceControlled(config.tieBreaker))
        if useCandidate && role == .controlling { attributes.append(.useCandidate) }
        // USERNAME holds the peer's ufrag (RFC 8445 §7.2.2): the encoder refuses one too long for the attribute
        // (RFC 5389 §15.3), and then this pair cannot be checked at all: it fails, as a check whose transaction
        // timed out does (§7.2.5.2.3).
        guard let bytes = try? StunMessage(type: .bindingRequest, transactionID: tid, attributes: attributes)
            .encode(integrityKey: StunIntegrity.shortTermKey(password: remote.pwd), fingerprint: true) else {
            pairs[p].state = .failed
            if nominating == p { nominating = nil }
            return false
        }
        transactions[tid] = PendingCheck(pair: p, purpose: purpose, useCandidate: useCandidate && role == .controlling, role: role,
                                         bytes: bytes, transmissions: 1, rto: config.initialRTO,
                                         nextRetransmit: now + config.initialRTO, firstSentAt: now)
        earliestRetransmit = min(earliestRetransmit ?? (now + config.initialRTO), now + config.initialRTO)
        if purpose == .connectivity {
            if let old = pairs[p].transaction { transactions[old] = nil }
            pairs[p].transaction = tid
            if pairs[p].state != .succeeded { pairs[p].state = .inProgress }
        }
        out.transmits.append(Transmit(from: locals[pairs[p].local].base, to: to, bytes: bytes))
        return true
    }

    private func deadline(now: TransportTime) -> TransportTime? {
        var candidates: [TransportTime] = transactions.isEmpty ? [] : earliestRetransmit.map { [$0] } ?? []
        if state == .checking || state == .new || restarting {
            let hasWork = !triggered.isEmpty || pairs.contains { $0.state == .waiting || $0.state == .frozen }
            if hasWork && remoteCredentials != nil { candidates.append(max(now, nextPacedCheck ?? now)) }
            if let started = checkingStartedAt { candidates.append(started + config.checkingTimeout) }
            if let (_, due) = nominationPlan(now: now) { candidates.append(max(now, due)) }
        }
        if selectedPair != nil, state == .connected || state == .disconnected, !triggered.isEmpty {
            candidates.append(max(now, nextPacedCheck ?? now))
        }
        if state == .connected, role == .controlling, let next = nextBetterPairCheck, selectionIsOutranked() {
            candidates.append(max(now, next))
        }
        if selectedPair != nil, state == .connected || state == .disconnected, let last = lastConsentResponse {
            if let next = nextConsentCheck { candidates.append(next) }
            if state == .connected { candidates.append(last + config.disconnectedTimeout) }
            candidates.append(last + config.consentTimeout)
        }
        return candidates.min()
    }
}
