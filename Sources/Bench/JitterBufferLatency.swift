import Engine

/// Packet-to-frame latency through the real receive path (`VideoReceiveStream`: jitter buffer, NACK generator,
/// tail-loss detector, PLI) fed by the real send path (`VideoSendStream`: VP8 packetizer, send history answering
/// NACKs, SR), on a virtual clock over a seeded network: 20 ms one way + up to 5 ms jitter (order kept), a share of
/// packets held back 10–40 ms more (reordered), and a share lost in both directions (media, retransmissions and RTCP
/// alike). The test card is encoded with the real VP8 encoder at 15 fps; PLIs force keyframes; the decoder's
/// refusals go back as `decodeFailed`.
///
/// For every frame handed to the decoder: from the arrival of the last of its packets (the one that completed it,
/// in arrival order) to the hand-out, in virtual ms — zero unless the buffer held the frame, i.e. what it adds
/// waiting for a retransmission or for an earlier frame's hole. The buffer's own measure (from the first packet)
/// is reported beside it.
struct JitterBufferLatency {
    struct Scenario {
        var name: String
        var loss: Double
        var reorder: Double
        var seed: UInt64
    }

    struct Result {
        var framesSent = 0
        var framesOut = 0
        var framesDecoded = 0
        var framesDropped = 0
        var nacksSent = 0
        var retransmissions = 0
        var plisSent = 0
        var packetsSent = 0
        /// Virtual ms, one per frame handed out.
        var lastPacketToFrame: [Double] = []
        var firstPacketToFrame: [Double] = []
    }

    private struct InFlight {
        var at: TransportTime
        var toReceiver: Bool
        var bytes: [UInt8]
    }

    static let oneWay: Duration = .milliseconds(20)

    static func run(_ scenario: Scenario, seconds: Int) throws -> Result {
        var random = SplitMixRandom(seed: scenario.seed)
        let sendSSRC = SSRC(0x5EED_0001), receiveSSRC = SSRC(0x5EED_0002)
        var sender = VideoSendStream(configuration: .init(ssrc: sendSSRC, payloadType: PayloadType(rawValue: 96)!, cname: "bench-sender"))
        var receiver = VideoReceiveStream(configuration: .init(localSSRC: receiveSSRC, remoteSSRC: sendSSRC, cname: "bench-receiver"))
        let encoder = try VP8Encoder(width: 320, height: 240, bitrateKbps: 300, frameRate: 15)
        let decoder = try VP8Decoder()
        let clock = VirtualCaptureClock()
        let card = try TestCardSource(width: 320, height: 240, participant: 4, clock: { clock.seconds })
        var result = Result()
        var wire: [InFlight] = []
        /// First arrival of each extended sequence number (what the buffer kept; duplicates do not count).
        var arrivals: [UInt64: TransportTime] = [:]
        var unwrapper = SequenceUnwrapper()

        /// A path keeps its order (jitter delays whole bursts, it does not shuffle a frame's packets); only the
        /// packets picked for reordering leave the queue and arrive 10-40 ms late.
        var inOrderArrival: [Bool: TransportTime] = [:]
        func transmit(_ bytes: [UInt8], toReceiver: Bool, now: TransportTime) {
            if random.unit() < scenario.loss { return }
            var at = now + oneWay + .microseconds(Int64(random.unit() * 5_000))
            if random.unit() < scenario.reorder {
                at = at + .microseconds(Int64(10_000 + random.unit() * 30_000))
            } else {
                at = max(at, inOrderArrival[toReceiver] ?? at)
                inOrderArrival[toReceiver] = at
            }
            let packet = InFlight(at: at, toReceiver: toReceiver, bytes: bytes)
            let index = wire.firstIndex { $0.at > packet.at } ?? wire.endIndex
            wire.insert(packet, at: index)
        }

        func pollReceiver(now: TransportTime) {
            let out = receiver.poll(now: now)
            for f in out.frames {
                result.framesOut += 1
                var last = f.firstArrival
                var s = f.firstSequence.rawValue
                while s <= f.lastSequence.rawValue { if let t = arrivals[s], t > last { last = t }; s += 1 }
                result.lastPacketToFrame.append((f.completedAt - last).seconds * 1000)
                result.firstPacketToFrame.append(f.latency.seconds * 1000)
                if (try? decoder.decode(f.data, timestamp: Double(f.rtpTimestamp) / 90_000)) != nil {
                    result.framesDecoded += 1
                } else {
                    receiver.decodeFailed()
                }
            }
            for p in out.rtcp { transmit(p, toReceiver: false, now: now) }
        }

        let frameInterval: Duration = .nanoseconds(1_000_000_000 / 15)
        let end = TransportTime.zero + .seconds(Int64(seconds))
        var nextFrame = TransportTime.zero
        var now = TransportTime.zero
        var stuck = 0
        while true {
            let next = [nextFrame <= end ? nextFrame : nil, wire.first?.at, receiver.nextDeadline(), sender.nextDeadline]
                .compactMap { $0 }.min()
            guard let next, next <= end + .seconds(1) else { break }
            if next <= now { stuck += 1 } else { stuck = 0 }
            guard stuck < 1_000 else {
                throw EngineError.invalidArgument("jitter-buffer bench stuck at \(now): receiver deadline \(String(describing: receiver.nextDeadline())) [buffer \(String(describing: receiver.buffer.nextDeadline())) waitingKF \(receiver.buffer.waitingForKeyframe) n=\(receiver.buffer.bufferedPackets), nack \(String(describing: receiver.nack.nextDeadline(rtt: receiver.roundTripTime))), tail \(String(describing: receiver.tailLoss.nextDeadline())), pli \(String(describing: receiver.keyframeRequests.nextDeadline()))], sender \(String(describing: sender.nextDeadline)), wire \(String(describing: wire.first?.at))")
            }
            now = max(now, next)
            if nextFrame <= now, nextFrame <= end {
                clock.seconds = now.seconds
                let force = sender.takeKeyframeRequest(now: now)
                if let encoded = try encoder.encode(try card.nextFrame()!, forceKeyframe: force) {
                    result.framesSent += 1
                    for p in sender.send(encoded, now: now) { result.packetsSent += 1; transmit(p, toReceiver: true, now: now) }
                }
                nextFrame = nextFrame + frameInterval
            }
            while let first = wire.first, first.at <= now {
                wire.removeFirst()
                if first.toReceiver {
                    if RTPPacket.looksLikeRTCP(first.bytes) {
                        if let rtcp = try? RTCPPacket.parseCompound(first.bytes) { receiver.handleRTCP(rtcp, now: now) }
                    } else if let packet = try? RTPPacket.parse(first.bytes) {
                        let seq = unwrapper.unwrap(packet.sequenceNumber).rawValue
                        if arrivals[seq] == nil { arrivals[seq] = now }
                        receiver.receive(packet, size: first.bytes.count, now: now)
                    }
                    pollReceiver(now: now)
                } else if let rtcp = try? RTCPPacket.parseCompound(first.bytes) {
                    let resent = sender.handleRTCP(rtcp, now: now)
                    result.retransmissions += resent.count
                    for p in resent { transmit(p, toReceiver: true, now: now) }
                    // As a PeerConnection does: the RTT our reports give paces NACKs and sizes the hold.
                    receiver.roundTripTime = sender.roundTripTime
                }
            }
            if let d = receiver.nextDeadline(), d <= now { pollReceiver(now: now) }
            if let sr = sender.pollReport(now: now) { transmit(sr, toReceiver: true, now: now) }
        }
        let snapshot = receiver.snapshot(now: now)
        result.framesDropped = snapshot.framesDropped
        result.nacksSent = snapshot.nacksSent
        result.plisSent = snapshot.plisSent
        return result
    }
}
