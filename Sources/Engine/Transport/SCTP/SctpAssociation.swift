/// One SCTP association over DTLS (RFC 8261), sans-IO: packets and `now` in, packets, events and a deadline out.
/// The subset WebRTC data channels use (RFC 8831 §6): the four-way handshake with a state cookie (and INIT
/// collision, as browsers start it from both ends), DATA with fragmentation and reassembly, SACK with gap blocks,
/// T3-rtx and fast retransmit with RFC 9260's RTO and congestion rules, receive windows both ways, HEARTBEAT
/// answered, ABORT, graceful SHUTDOWN, stream reset (RFC 6525) to close a channel, and FORWARD TSN advertised and
/// honoured (RFC 3758). Every field from the peer is checked before it is used; the bounds are in `Configuration`.
public final class SctpAssociation {
    public let configuration: Configuration
    public private(set) var state: State = .closed
    /// Closed after having been used: nothing is accepted or sent any more.
    private var ended = false
    private var peerCumulativeAck: UInt32
    private var random: SplitMixRandom
    private let localTag: UInt32
    private var peerTag: UInt32 = 0
    private let initialTSN: UInt32
    private var nextTSN: UInt32
    private var outboundStreams: UInt16
    private var receive: SctpReceiveBuffer?
    private var queue = SctpSendQueue()
    /// Sent, not yet covered by the peer's cumulative TSN, in TSN order.
    private var outstanding: [SctpOutstanding] = []
    private var flightSize = 0
    private var cwnd: Int
    private var ssthresh = Int.max
    private var partialBytesAcked = 0
    private var peerWindow = 0
    private var fastRecoveryExit: UInt32?
    private var rtt = SctpRetransmissionTimer(initial: .seconds(1), min: .milliseconds(200), max: .seconds(10))
    private var rttProbe: (tsn: UInt32, sentAt: TransportTime)?
    private var t3: TransportTime?
    private var errorCount = 0
    /// INIT or COOKIE ECHO, retransmitted on T1 (RFC 9260 §5.1).
    private var handshakeChunk: SctpChunk?
    private var t1: TransportTime?
    private var t1Count = 0
    private var issuedCookies: [[UInt8]] = []
    private var sackDue: TransportTime?
    private var packetsSinceSack = 0
    private var sackNow = false
    private var control: [SctpChunk] = []
    private var reset = SctpStreamReset()
    private var t2: TransportTime?
    private var rateLimit: SctpRateLimit?
    /// DATA chunks refused (window full, too far ahead, bad stream), for the warnings' count.
    private var droppedData = 0
    private var output = Output()

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        random = SplitMixRandom(seed: configuration.seed)
        localTag = UInt32.random(in: 1...UInt32.max, using: &random)
        initialTSN = UInt32.random(in: 0...UInt32.max, using: &random)
        nextTSN = initialTSN
        peerCumulativeAck = initialTSN &- 1
        outboundStreams = configuration.streams
        // RFC 9260 §7.2.1: initial cwnd = min(4 * MTU, max(2 * MTU, 4380)).
        cwnd = min(4 * configuration.maxPacketSize, max(2 * configuration.maxPacketSize, 4380))
        rtt = SctpRetransmissionTimer(initial: configuration.rtoInitial, min: configuration.rtoMin, max: configuration.rtoMax)
        reset = SctpStreamReset(initialSequence: initialTSN)
    }

    // MARK: - The user's side

    /// Starts the handshake with an INIT. Browsers start from both ends at once; the collision is resolved in
    /// `receive` (RFC 9260 §5.2.1), so either side, or both, may call this.
    public func connect(now: TransportTime) -> Output {
        guard state == .closed, !ended else { return finish(now) }
        let chunk = SctpChunk.initiate(localInit())
        handshakeChunk = chunk
        state = .cookieWait
        t1Count = 0
        t1 = now + rtt.rto
        transmit(packetTag: 0, [chunk])
        return finish(now)
    }

    /// Queues one message. Ordered messages on a stream arrive in the order sent.
    public func send(stream: UInt16, ppid: UInt32, payload: [UInt8], unordered: Bool = false,
                     now: TransportTime) throws(SendError) -> Output {
        switch state {
        case .closed, .cookieWait, .cookieEchoed, .established: break
        default: throw .notOpen
        }
        if ended { throw .notOpen }
        guard !payload.isEmpty else { throw .empty }
        guard stream < outboundStreams else { throw .invalidStream(stream) }
        let queued = queue.bufferedBytes + flightSize
        guard queued + payload.count <= configuration.maxQueuedBytes else { throw .queueFull(queued) }
        queue.enqueue(stream: stream, ppid: ppid, payload: payload, unordered: unordered)
        if state == .established { fill(now: now) }
        return finish(now)
    }

    /// Bytes of this stream's messages not yet handed to the network (the W3C `bufferedAmount`).
    public func bufferedAmount(stream: UInt16) -> Int { queue.buffered(stream: stream) }
    public var bufferedAmount: Int { queue.bufferedBytes }

    /// Caps the rate of new DATA (retransmissions are not held back), so a file transfer leaves room for media on
    /// the same path; nil removes the cap.
    public func setSendRate(bytesPerSecond: Int?, now: TransportTime) -> Output {
        rateLimit = bytesPerSecond.map { SctpRateLimit(bytesPerSecond: max(1, $0), burst: 4 * configuration.maxPacketSize, now: now) }
        if state == .established { fill(now: now) }
        return finish(now)
    }

    /// Resets our outgoing side of these streams (closing their channels, RFC 8831 §6.7) once what is queued on
    /// them has been sent.
    public func resetStreams(_ streams: [UInt16], now: TransportTime) -> Output {
        reset.request(streams.filter { $0 < outboundStreams })
        if state == .established { fill(now: now) }
        return finish(now)
    }

    /// Graceful close (RFC 9260 §9.2): SHUTDOWN once everything sent has been acknowledged.
    public func shutdown(now: TransportTime) -> Output {
        switch state {
        case .established:
            state = .shutdownPending
            fill(now: now)
        case .cookieWait, .cookieEchoed:
            close(&output, reason: "closed before the handshake finished")
        default: break
        }
        return finish(now)
    }

    /// Sends ABORT and closes at once.
    public func abort(reason: String, now: TransportTime) -> Output {
        if !ended {
            transmit(packetTag: peerTag, [.abort(reflected: false, cause: reason)])
            close(&output, reason: "aborted: \(reason)")
        }
        return finish(now)
    }

    // MARK: - Packets from the peer

    public func receive(packet bytes: [UInt8], now: TransportTime) -> Output {
        guard !ended else { return finish(now) }
        let packet: SctpPacket
        switch SctpPacket.parse(bytes) {
        case .success(let p): packet = p
        case .failure(let why):
            output.events.append(.warning("packet dropped: \(why)"))
            return finish(now)
        }
        guard packet.destinationPort == configuration.localPort, packet.sourcePort == configuration.remotePort else {
            output.events.append(.warning("packet for ports \(packet.sourcePort)->\(packet.destinationPort) dropped"))
            return finish(now)
        }
        guard tagAcceptable(packet) else {
            output.events.append(.warning("packet with verification tag \(packet.verificationTag) dropped"))
            return finish(now)
        }
        var hadData = false
        var reportedUnknown = false
        chunks: for chunk in packet.chunks {
            guard state != .closed || isHandshake(chunk) else { break }
            switch chunk {
            case .initiate(let i): receiveInit(i, now: now)
            case .initiateAck(let i, let cookie): receiveInitAck(i, cookie: cookie, now: now)
            case .cookieEcho(let cookie): receiveCookieEcho(cookie, now: now)
            case .cookieAck: receiveCookieAck(now: now)
            case .data(let d):
                hadData = true
                receiveData(d)
            case .sack(let s): receiveSack(s, now: now)
            case .heartbeat(let info): control.append(.heartbeatAck(info: info))
            case .heartbeatAck: break
            case .abort(_, let cause): close(&output, reason: "peer aborted: \(cause)")
            case .shutdown(let cum): receiveShutdown(cumulativeTSN: cum, now: now)
            case .shutdownAck: receiveShutdownAck()
            case .shutdownComplete:
                if state == .shutdownAckSent { close(&output, reason: "shut down") }
            case .error(let cause): output.events.append(.warning("peer reported an error: \(cause)"))
            case .unrecognizedChunkReport: break   // ours to send: a received ERROR parses as `.error`
            case .forwardTSN(let f): receiveForwardTSN(f)
            case .reconfig(let params): receiveReconfig(params, now: now)
            case .unknown(let type, let flags, let value):
                output.events.append(.warning("unknown chunk type \(type)"))
                // RFC 9260 §3.2: the second bit set means "report the unrecognized chunk in an ERROR chunk using the
                // 'Unrecognized Chunk Type' error cause". One report per packet, and only of a chunk whose report
                // fits one packet of ours (headers: packet 12, ERROR 4, cause 4, the returned chunk's 4): what we
                // send back never outgrows what came.
                if type & 0x40 != 0, !reportedUnknown, value.count + 24 <= configuration.maxPacketSize {
                    reportedUnknown = true
                    control.append(.unrecognizedChunkReport(type: type, flags: flags, value: value))
                }
                // The top bit clear means "stop processing this SCTP packet" (the chunks after it are not looked
                // at; a plain `break` would only leave the switch).
                if type & 0x80 == 0 { break chunks }
            }
            if ended { break }
        }
        if hadData {
            packetsSinceSack += 1
            if sackNow || packetsSinceSack >= 2 || (receive?.hasGaps ?? false) {
                sackNow = true
            } else if sackDue == nil {
                sackDue = now + configuration.delayedAck
            }
        }
        if !ended { fill(now: now) }
        return finish(now)
    }

    public func handleTimeout(now: TransportTime) -> Output {
        if let t = t1, now >= t { t1Expired(now: now) }
        if let t = t3, now >= t, state != .closed { t3Expired(now: now) }
        if let t = t2, now >= t, state != .closed { t2Expired(now: now) }
        if let t = sackDue, now >= t { sackNow = true }
        if let t = reset.deadline, now >= t { reset.retransmitDue() }
        if state != .closed { fill(now: now) }
        return finish(now)
    }

    // MARK: - Handshake (RFC 9260 §5)

    private func localInit() -> SctpInit {
        SctpInit(initiateTag: localTag, advertisedReceiverWindow: SctpReceiveBuffer.advertised(free: configuration.receiveWindow),
                 outboundStreams: configuration.streams, inboundStreams: configuration.streams, initialTSN: initialTSN,
                 forwardTSN: true, extensions: [SctpChunk.TypeCode.reconfig, SctpChunk.TypeCode.forwardTSN])
    }

    private func isHandshake(_ chunk: SctpChunk) -> Bool {
        switch chunk {
        case .initiate, .initiateAck, .cookieEcho, .cookieAck, .abort: true
        default: false
        }
    }

    /// RFC 9260 §8.5: INIT carries tag 0; ABORT and SHUTDOWN COMPLETE with the T bit carry the peer's own tag;
    /// everything else carries ours.
    private func tagAcceptable(_ p: SctpPacket) -> Bool {
        if case .initiate = p.chunks.first { return p.verificationTag == 0 && p.chunks.count == 1 }
        if case .abort(true, _) = p.chunks.first { return p.verificationTag == peerTag }
        if case .shutdownComplete(true) = p.chunks.first { return p.verificationTag == peerTag }
        return p.verificationTag == localTag
    }

    private func receiveInit(_ i: SctpInit, now: TransportTime) {
        guard i.initiateTag != 0, i.outboundStreams > 0, i.inboundStreams > 0 else {
            output.events.append(.warning("INIT with a zero tag or no streams dropped"))
            return
        }
        guard state == .closed || state == .cookieWait || state == .cookieEchoed else {
            // A restart would replace the running association; WebRTC never restarts one, so refuse it.
            output.events.append(.warning("INIT on an established association ignored"))
            return
        }
        // Collision (§5.2.1): answer with the same tag and TSN our own INIT carried.
        let cookie = SctpCookie(localTag: localTag, peerTag: i.initiateTag, peerInitialTSN: i.initialTSN,
                                peerWindow: i.advertisedReceiverWindow, peerOutbound: i.outboundStreams,
                                peerInbound: i.inboundStreams, nonce: random.next()).encoded()
        issuedCookies.append(cookie)
        if issuedCookies.count > 4 { issuedCookies.removeFirst() }
        transmit(packetTag: i.initiateTag, [.initiateAck(localInit(), cookie: cookie)])
    }

    private func receiveInitAck(_ i: SctpInit, cookie: [UInt8], now: TransportTime) {
        guard state == .cookieWait else { return }   // §5.2.3: anywhere else an INIT ACK is discarded.
        guard i.initiateTag != 0, i.outboundStreams > 0, i.inboundStreams > 0, cookie.count <= 512 else {
            close(&output, reason: "invalid INIT ACK")
            return
        }
        adoptPeer(tag: i.initiateTag, initialTSN: i.initialTSN, window: i.advertisedReceiverWindow,
                  outbound: i.outboundStreams, inbound: i.inboundStreams)
        let echo = SctpChunk.cookieEcho(cookie: cookie)
        handshakeChunk = echo
        state = .cookieEchoed
        t1Count = 0
        t1 = now + rtt.rto
        transmit(packetTag: peerTag, [echo])
    }

    private func receiveCookieEcho(_ cookie: [UInt8], now: TransportTime) {
        guard issuedCookies.contains(cookie), let c = SctpCookie(decoding: cookie), c.localTag == localTag else {
            output.events.append(.warning("COOKIE ECHO with a cookie we did not issue dropped"))
            return
        }
        switch state {
        case .closed, .cookieWait, .cookieEchoed:
            if state == .cookieEchoed, peerTag != c.peerTag {
                output.events.append(.warning("COOKIE ECHO for another association dropped"))
                return
            }
            if state != .cookieEchoed {
                adoptPeer(tag: c.peerTag, initialTSN: c.peerInitialTSN, window: c.peerWindow,
                          outbound: c.peerOutbound, inbound: c.peerInbound)
            }
            control.append(.cookieAck)
            established()
        case .established:
            // A repeated COOKIE ECHO (our COOKIE ACK was lost): acknowledge again.
            if c.peerTag == peerTag { control.append(.cookieAck) }
        default: break
        }
    }

    private func receiveCookieAck(now: TransportTime) {
        guard state == .cookieEchoed else { return }
        established()
    }

    private func adoptPeer(tag: UInt32, initialTSN: UInt32, window: UInt32, outbound: UInt16, inbound: UInt16) {
        peerTag = tag
        peerWindow = Int(window)
        outboundStreams = min(configuration.streams, inbound)
        receive = SctpReceiveBuffer(peerInitialTSN: initialTSN, window: configuration.receiveWindow,
                                    maxMessage: configuration.maxIncomingMessage,
                                    streamCount: min(configuration.streams, outbound))
        reset.peerInitialSequence(initialTSN)
    }

    private func established() {
        state = .established
        handshakeChunk = nil
        t1 = nil
        output.events.append(.connected)
    }

    private func t1Expired(now: TransportTime) {
        guard let chunk = handshakeChunk else { t1 = nil; return }
        t1Count += 1
        guard t1Count <= configuration.maxInitRetransmissions else {
            close(&output, reason: "no answer to \(state == .cookieWait ? "INIT" : "COOKIE ECHO") after \(t1Count - 1) retransmissions")
            return
        }
        rtt.backOff()
        t1 = now + rtt.rto
        transmit(packetTag: state == .cookieWait ? 0 : peerTag, [chunk])
    }

    // MARK: - Receiving data

    private func receiveData(_ d: SctpDataChunk) {
        guard var buffer = receive, state == .established || state == .shutdownPending || state == .shutdownSent else { return }
        var delivered: [SctpReceiveBuffer.Message] = []
        var warnings: [String] = []
        switch buffer.receive(d, delivered: &delivered, warnings: &warnings) {
        case .new: if d.immediate { sackNow = true }
        case .duplicate: sackNow = true
        case .dropped(let why):
            // Counted, and said at the 1st, 10th, 100th... drop: a peer overrunning the window sends many at once.
            droppedData += 1
            if [1, 10, 100, 1000, 10_000, 100_000, 1_000_000].contains(droppedData) {
                warnings.append("DATA TSN \(d.tsn) dropped: \(why) (\(droppedData) so far)")
            }
        }
        receive = buffer
        for w in warnings { output.events.append(.warning(w)) }
        for m in delivered { output.events.append(.message(stream: m.stream, ppid: m.ppid, payload: m.payload)) }
        performPendingIncomingReset()
    }

    private func receiveForwardTSN(_ f: SctpForwardTSN) {
        guard var buffer = receive else { return }
        var delivered: [SctpReceiveBuffer.Message] = []
        buffer.forward(f, delivered: &delivered)
        receive = buffer
        for m in delivered { output.events.append(.message(stream: m.stream, ppid: m.ppid, payload: m.payload)) }
        sackNow = true
        performPendingIncomingReset()
    }

    // MARK: - Acknowledgements (RFC 9260 §6.2.1, §7.2)

    private func receiveSack(_ s: SctpSack, now: TransportTime) {
        guard receive != nil else { return }
        let highestSent = nextTSN &- 1
        guard Serial.lessOrEqual(s.cumulativeTSN, highestSent) else {
            output.events.append(.warning("SACK for TSN \(s.cumulativeTSN) never sent ignored"))
            return
        }
        // RFC 9260 §6.2.1: a SACK older than the last one is out of order and ignored.
        guard !Serial.less(s.cumulativeTSN, peerCumulativeAck) else { return }
        peerCumulativeAck = s.cumulativeTSN
        var bytesAcked = 0
        var cumulativeAdvanced = false
        let flightBefore = flightSize
        while let first = outstanding.first, Serial.lessOrEqual(first.chunk.tsn, s.cumulativeTSN) {
            outstanding.removeFirst()
            cumulativeAdvanced = true
            if !first.gapAcked { bytesAcked += first.size }
            if first.inFlight { flightSize -= first.size }
            if let probe = rttProbe, probe.tsn == first.chunk.tsn {
                if first.transmissions == 1 { rtt.measured(now - probe.sentAt) }
                rttProbe = nil
            }
        }
        if let probe = rttProbe, Serial.lessOrEqual(probe.tsn, s.cumulativeTSN) { rttProbe = nil }
        // Gap blocks: mark what they cover, and count a miss for each chunk below the highest TSN newly reported.
        var highestNewlyAcked: UInt32?
        let gaps = Self.disjoint(s.gaps)
        for i in outstanding.indices {
            let offset = outstanding[i].chunk.tsn &- s.cumulativeTSN
            let covered = offset <= UInt32(UInt16.max) && Self.covers(gaps, UInt16(offset))
            if covered && !outstanding[i].gapAcked {
                outstanding[i].gapAcked = true
                bytesAcked += outstanding[i].size
                if outstanding[i].inFlight { flightSize -= outstanding[i].size; outstanding[i].inFlight = false }
                outstanding[i].retransmit = false
                highestNewlyAcked = outstanding[i].chunk.tsn
            } else if !covered && outstanding[i].gapAcked {
                // Reneged (§6.2.1): back to unacknowledged; T3 will resend it.
                outstanding[i].gapAcked = false
            }
        }
        if bytesAcked > 0 { errorCount = 0 }
        var enterFastRecovery = false
        if let highest = highestNewlyAcked {
            for i in outstanding.indices where !outstanding[i].gapAcked && Serial.less(outstanding[i].chunk.tsn, highest) {
                if let exit = fastRecoveryExit, Serial.lessOrEqual(outstanding[i].chunk.tsn, exit), outstanding[i].fastRetransmitted { continue }
                outstanding[i].misses += 1
                // RFC 9260 §7.2.4: the third miss indication marks it for fast retransmit.
                if outstanding[i].misses == 3 && !outstanding[i].fastRetransmitted {
                    outstanding[i].retransmit = true
                    outstanding[i].fastRetransmitted = true
                    outstanding[i].fastRetransmitNow = true
                    if outstanding[i].inFlight { flightSize -= outstanding[i].size; outstanding[i].inFlight = false }
                    enterFastRecovery = true
                }
            }
        }
        if let exit = fastRecoveryExit, Serial.lessOrEqual(exit, s.cumulativeTSN) { fastRecoveryExit = nil }
        if enterFastRecovery && fastRecoveryExit == nil {
            ssthresh = max(cwnd / 2, 4 * configuration.maxPacketSize)
            cwnd = ssthresh
            partialBytesAcked = 0
            fastRecoveryExit = highestSent
        } else if cumulativeAdvanced && fastRecoveryExit == nil {
            growWindow(bytesAcked: bytesAcked, flightBefore: flightBefore)
        }
        peerWindow = max(0, Int(s.advertisedReceiverWindow) - flightSize)
        if outstanding.isEmpty {
            t3 = nil
        } else if cumulativeAdvanced {
            t3 = now + rtt.rto
        }
        if state == .shutdownPending || state == .shutdownReceived { fill(now: now) }
    }

    /// A SACK's gap blocks sorted and merged: a peer's may overlap or come in any order, and a 16 KB record holds
    /// 4,000 of them, so each outstanding chunk is looked up by binary search instead of a scan of every block.
    static func disjoint(_ gaps: [ClosedRange<UInt16>]) -> [ClosedRange<UInt16>] {
        var merged: [ClosedRange<UInt16>] = []
        for g in gaps.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, g.lowerBound <= last.upperBound || g.lowerBound == last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, g.upperBound)
            } else {
                merged.append(g)
            }
        }
        return merged
    }

    /// Whether one of `gaps` (sorted, disjoint) holds `offset`.
    static func covers(_ gaps: [ClosedRange<UInt16>], _ offset: UInt16) -> Bool {
        var low = 0, high = gaps.count
        while low < high {
            let mid = (low + high) / 2
            if gaps[mid].upperBound < offset { low = mid + 1 } else { high = mid }
        }
        return low < gaps.count && gaps[low].contains(offset)
    }

    /// RFC 9260 §7.2.1-7.2.2: slow start below ssthresh, congestion avoidance above, and only while the window
    /// was in use (an idle sender must not inflate it).
    private func growWindow(bytesAcked: Int, flightBefore: Int) {
        let mtu = configuration.maxPacketSize
        guard flightBefore + mtu >= cwnd else { return }
        if cwnd <= ssthresh {
            cwnd += min(bytesAcked, mtu)
        } else {
            partialBytesAcked += bytesAcked
            if partialBytesAcked >= cwnd {
                partialBytesAcked -= cwnd
                cwnd += mtu
            }
        }
    }

    /// RFC 9260 §6.3.3: back off, collapse the window, and resend everything unacknowledged.
    private func t3Expired(now: TransportTime) {
        guard !outstanding.isEmpty else { t3 = nil; return }
        errorCount += 1
        guard errorCount <= configuration.maxRetransmissions else {
            transmit(packetTag: peerTag, [.abort(reflected: false, cause: "peer unreachable")])
            close(&output, reason: "no acknowledgement after \(configuration.maxRetransmissions) retransmissions")
            return
        }
        ssthresh = max(cwnd / 2, 4 * configuration.maxPacketSize)
        cwnd = configuration.maxPacketSize
        partialBytesAcked = 0
        fastRecoveryExit = nil
        rtt.backOff()
        rttProbe = nil
        for i in outstanding.indices where !outstanding[i].gapAcked {
            outstanding[i].retransmit = true
            if outstanding[i].inFlight { flightSize -= outstanding[i].size; outstanding[i].inFlight = false }
        }
        t3 = now + rtt.rto
    }

    // MARK: - Shutdown (RFC 9260 §9.2)

    private func receiveShutdown(cumulativeTSN: UInt32, now: TransportTime) {
        guard state == .established || state == .shutdownPending || state == .shutdownSent else { return }
        receiveSack(SctpSack(cumulativeTSN: cumulativeTSN, advertisedReceiverWindow: UInt32(peerWindow + flightSize),
                             gaps: [], duplicates: []), now: now)
        // Also from SHUTDOWN-SENT (both closed at once): answer with SHUTDOWN ACK once nothing is outstanding.
        state = .shutdownReceived
    }

    private func receiveShutdownAck() {
        guard state == .shutdownSent || state == .shutdownAckSent else { return }
        transmit(packetTag: peerTag, [.shutdownComplete(reflected: false)])
        close(&output, reason: "shut down")
    }

    private func t2Expired(now: TransportTime) {
        errorCount += 1
        guard errorCount <= configuration.maxRetransmissions else {
            close(&output, reason: "no answer to SHUTDOWN")
            return
        }
        rtt.backOff()
        t2 = now + rtt.rto
        if state == .shutdownSent { transmit(packetTag: peerTag, [.shutdown(cumulativeTSN: receive?.cumulativeTSN ?? 0)]) }
        if state == .shutdownAckSent { transmit(packetTag: peerTag, [.shutdownAck]) }
    }

    // MARK: - Stream reset (RFC 6525)

    private func receiveReconfig(_ params: [SctpReconfigParameter], now: TransportTime) {
        for p in params {
            switch p {
            case .outgoingReset(let seq, _, let lastTSN, let streams):
                switch reset.incoming(sequence: seq, lastTSN: lastTSN, streams: streams) {
                case .resend(let response): control.append(.reconfig([response]))
                case .pending: performPendingIncomingReset()
                case .refused(let response): control.append(.reconfig([response]))
                }
            case .response(let seq, let result):
                if let done = reset.response(sequence: seq, result: result) {
                    queue.resetSSN(streams: done)
                    output.events.append(.outgoingStreamsReset(done))
                }
            case .other(let type):
                output.events.append(.warning("RE-CONFIG parameter \(type) not supported"))
            }
        }
    }

    /// The peer's reset is performed once every TSN it names has arrived; until then it is "in progress".
    private func performPendingIncomingReset() {
        guard var buffer = receive, let pending = reset.pendingIncoming else { return }
        if buffer.canReset(lastTSN: pending.lastTSN) {
            buffer.resetStreams(pending.streams)
            receive = buffer
            control.append(.reconfig([reset.performedIncoming()]))
            output.events.append(.incomingStreamsReset(pending.streams))
        } else if let response = reset.inProgressResponse() {
            control.append(.reconfig([response]))
        }
    }

    // MARK: - Sending

    /// Builds packets: control chunks and a due SACK first, then retransmissions, then new DATA as far as the
    /// congestion window, the peer's window and the rate cap allow.
    private func fill(now: TransportTime) {
        guard state != .closed, let buffer = receive else { return }
        var chunks: [SctpChunk] = []
        var size = SctpPacket.headerSize
        func flush() {
            if !chunks.isEmpty { transmit(packetTag: peerTag, chunks) }
            chunks.removeAll()
            size = SctpPacket.headerSize
        }
        func add(_ chunk: SctpChunk, bytes: Int) {
            if size + bytes > configuration.maxPacketSize { flush() }
            chunks.append(chunk)
            size += bytes
        }
        if sackNow || (sackDue.map { now >= $0 } ?? false) {
            var b = buffer
            let sack = SctpChunk.sack(b.makeSack())
            add(sack, bytes: SctpPacket.encodedSize(of: sack))
            receive = b
            sackNow = false
            sackDue = nil
            packetsSinceSack = 0
        }
        // Control chunks through `add` too: HEARTBEAT ACKs echo what the peer sent, and a packet of them with the
        // SACK in one piece could exceed the DTLS record (16 KB) under it; a failed DTLS write fails the connection.
        // One echo alone is no larger than the chunk that came, which fitted in a record.
        let pendingControl = control
        control.removeAll()
        for chunk in pendingControl { add(chunk, bytes: SctpPacket.encodedSize(of: chunk)) }
        let mtu = configuration.maxPacketSize
        // Fast retransmits go out at once, one packet's worth regardless of cwnd (§7.2.4).
        var fastBudget = mtu
        for i in outstanding.indices where outstanding[i].retransmit {
            let fast = outstanding[i].fastRetransmitNow
            guard fast ? fastBudget >= outstanding[i].size : flightSize + outstanding[i].size <= cwnd else {
                if fast { continue } else { break }
            }
            if fast { fastBudget -= outstanding[i].size; outstanding[i].fastRetransmitNow = false }
            outstanding[i].retransmit = false
            outstanding[i].transmissions += 1
            outstanding[i].inFlight = true
            flightSize += outstanding[i].size
            if rttProbe?.tsn == outstanding[i].chunk.tsn { rttProbe = nil }
            add(.data(outstanding[i].chunk), bytes: outstanding[i].wireSize)
            if t3 == nil { t3 = now + rtt.rto }
        }
        // New data.
        if state == .established || state == .shutdownPending || state == .shutdownReceived {
            while let next = queue.peekSize(maxPayload: configuration.maxDataPayload) {
                let cost = next + SctpDataChunk.headerSize
                let zeroWindowProbe = peerWindow < cost && flightSize == 0
                guard flightSize + cost <= cwnd || flightSize == 0 else { break }
                guard peerWindow >= cost || zeroWindowProbe else { break }
                if var limit = rateLimit {
                    guard limit.take(cost, now: now) else { rateLimit = limit; break }
                    rateLimit = limit
                }
                guard let chunk = queue.nextChunk(maxPayload: configuration.maxDataPayload, tsn: nextTSN) else { break }
                nextTSN &+= 1
                var entry = SctpOutstanding(chunk: chunk)
                entry.inFlight = true
                flightSize += entry.size
                peerWindow = max(0, peerWindow - entry.size)
                if rttProbe == nil { rttProbe = (chunk.tsn, now) }
                add(.data(chunk), bytes: entry.wireSize)
                outstanding.append(entry)
                if t3 == nil { t3 = now + rtt.rto }
                if zeroWindowProbe { break }
            }
        }
        // A stream reset goes out once nothing is queued on its streams.
        if let request = reset.nextRequest(lastTSN: nextTSN &- 1, blocked: { queue.hasQueued(on: $0) }, now: now, rto: rtt.rto) {
            add(.reconfig([request]), bytes: SctpPacket.encodedSize(of: .reconfig([request])))
        }
        if queue.isEmpty && outstanding.isEmpty {
            if state == .shutdownPending {
                state = .shutdownSent
                add(.shutdown(cumulativeTSN: buffer.cumulativeTSN), bytes: 8)
                t2 = now + rtt.rto
            } else if state == .shutdownReceived {
                state = .shutdownAckSent
                add(.shutdownAck, bytes: 4)
                t2 = now + rtt.rto
            }
        }
        flush()
    }

    private func transmit(packetTag: UInt32, _ chunks: [SctpChunk]) {
        let packet = SctpPacket(sourcePort: configuration.localPort, destinationPort: configuration.remotePort,
                                verificationTag: packetTag, chunks: chunks)
        output.transmits.append(packet.serialized())
    }

    private func close(_ out: inout Output, reason: String) {
        guard !ended else { return }
        ended = true
        state = .closed
        handshakeChunk = nil
        t1 = nil; t2 = nil; t3 = nil; sackDue = nil
        queue.removeAll()
        outstanding.removeAll()
        flightSize = 0
        receive = nil
        out.events.append(.closed(reason: reason))
    }

    private func finish(_ now: TransportTime) -> Output {
        var out = output
        output = Output()
        var deadline = [t1, t2, t3, sackDue, reset.deadline].compactMap { $0 }.min()
        if let limit = rateLimit, !queue.isEmpty, state == .established, flightSize < cwnd {
            let ready = limit.readyAt(configuration.maxPacketSize, now: now)
            deadline = min(deadline ?? ready, ready)
        }
        out.deadline = deadline
        return out
    }

    /// For tests and stats.
    public var congestionWindow: Int { cwnd }
    /// Bytes the receive side holds (payloads plus 64 per chunk or waiting message), at most the receive window.
    var receiveHeldBytes: Int { receive?.heldBytes ?? 0 }
    /// DATA sent and not yet covered by the peer's cumulative TSN.
    var outstandingCount: Int { outstanding.count }
    public var bytesInFlight: Int { flightSize }
    public var retransmissionTimeout: Duration { rtt.rto }
}
