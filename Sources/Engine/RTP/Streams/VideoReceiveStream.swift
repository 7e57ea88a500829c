import EngineTransport
/// The receiving half of one VP8 stream, sans-IO: RTP packets in, complete frames out (in order,
/// never one with a hole), plus the RTCP the receiver owes the sender: generic NACKs for missing
/// packets, PLI when it needs a keyframe (rate-limited), and an RR+SDES about once a second.
///
/// Wiring (per incoming video track):
///
///     stream.receive(rtpPacket, size: datagram.count, now: now)
///     on SR from the sender: stream.handleRTCP(parsed, now: now)
///     let out = stream.poll(now: now)           // also on the deadline timer
///     for f in out.frames { if decoder.decode(f.data) fails { stream.decodeFailed() } }
///     for p in out.rtcp { srtcp.protect(p) → socket }
///     arm the timer at stream.nextDeadline()
///
/// With `nack` off nothing is asked again and a lost packet costs a freeze until a keyframe;
/// with `pli` off as well that keyframe only comes when the encoder sends one by itself.
public struct VideoReceiveStream: Sendable {
    public struct Configuration: Sendable {
        /// Our SSRC, the sender field of feedback (RFC 4585 §6.1).
        public var localSSRC: SSRC
        public var remoteSSRC: SSRC
        public var cname: String
        public var nack = true
        public var pli = true
        public var jitterBuffer = VideoJitterBuffer.Configuration()
        public var nackConfiguration = NackGenerator.Configuration()
        public var pliInterval: Duration = .milliseconds(500)
        public var reportInterval: Duration = .seconds(1)

        public init(localSSRC: SSRC, remoteSSRC: SSRC, cname: String) {
            self.localSSRC = localSSRC; self.remoteSSRC = remoteSSRC; self.cname = cname
        }
    }

    public struct Output: Sendable {
        public var frames: [VideoJitterBuffer.Frame] = []
        public var rtcp: [[UInt8]] = []
        public var events: [VideoJitterBuffer.Event] = []
    }

    public let configuration: Configuration
    public private(set) var buffer: VideoJitterBuffer
    public private(set) var nack: NackGenerator
    public private(set) var tailLoss = TailLossDetector()
    public private(set) var keyframeRequests: KeyframeRequester
    public private(set) var statistics: ReceiveStatistics
    private var reports: ReportScheduler
    private var frameRate = RateWindow()
    private var receivedAny = false
    /// Padding-only packets taken (probes of the sender's estimator).
    public private(set) var paddingPacketsReceived = 0
    /// Sequence numbers for the buffer and NACK (retransmissions arrive as the original packets).
    private var unwrapper = SequenceUnwrapper()
    /// RTT used to pace NACK retries and size the hold; the session copies it from the send
    /// stream's reports (a receive-only peer keeps the 100 ms default).
    public var roundTripTime: Duration = .milliseconds(100) { didSet { adaptHold() } }

    public init(configuration: Configuration) {
        self.configuration = configuration
        buffer = VideoJitterBuffer(configuration: configuration.jitterBuffer)
        nack = NackGenerator(configuration: configuration.nackConfiguration)
        keyframeRequests = KeyframeRequester(minInterval: configuration.pliInterval)
        statistics = ReceiveStatistics(ssrc: configuration.remoteSSRC, clockRate: VideoSendStream.clockRate)
        reports = ReportScheduler(interval: configuration.reportInterval, seed: UInt64(configuration.localSSRC.rawValue) << 1)
        adaptHold()
    }

    /// With NACK the hold must cover several round trips (a NACK or its retransmission can be
    /// lost too: at 15 % loss each way one attempt fails 28 % of the time, four fail 0.6 %); the
    /// buffer clamps it to its maximum (500 ms). Without NACK only reordering is worth waiting for.
    private mutating func adaptHold() {
        guard configuration.nack else { return }
        buffer.holdTime = max(configuration.jitterBuffer.holdTime, roundTripTime * 4 + .milliseconds(50))
    }

    public mutating func receive(_ packet: RTPPacket, size: Int, now: TransportTime) {
        guard packet.ssrc == configuration.remoteSSRC else { return }
        statistics.record(packet, size: size, now: now)
        receivedAny = true
        let seq = unwrapper.unwrap(packet.sequenceNumber)
        // A padding-only packet (RFC 3550 §5.1: a sender probing the path for more rate) takes a sequence number
        // between frames and carries no part of one: it is received (not NACKed) but never enters the buffer, which
        // steps over such numbers by picture ID. Nor is it a frame's tail to watch for.
        let paddingOnly = packet.payload.isEmpty
        if configuration.nack {
            if !nack.received(seq, now: now) { buffer.requireKeyframe() }
            if !paddingOnly { tailLoss.received(seq, marker: packet.marker, timestamp: packet.timestamp, now: now) }
        }
        if paddingOnly { paddingPacketsReceived += 1; return }
        buffer.insert(packet, sequence: seq, now: now)
    }

    public mutating func handleRTCP(_ packets: [RTCPPacket], now: TransportTime) {
        for case .senderReport(let sr) in packets where sr.ssrc == configuration.remoteSSRC {
            statistics.record(sr, now: now)
        }
    }

    /// The decoder refused a frame: wait for a keyframe and ask for one.
    public mutating func decodeFailed() {
        buffer.requireKeyframe()
        if configuration.pli { keyframeRequests.request() }
    }

    public mutating func poll(now: TransportTime) -> Output {
        var out = Output()
        var feedback: [RTCPPacket] = []
        if configuration.nack {
            if let suspect = tailLoss.poll(now: now) { nack.suspect(suspect, now: now) }
            let (request, gaveUp) = nack.poll(now: now, rtt: roundTripTime)
            for s in gaveUp { buffer.retransmissionGaveUp(s) }
            if !request.isEmpty {
                feedback.append(.nack(GenericNack(senderSSRC: configuration.localSSRC, mediaSSRC: configuration.remoteSSRC,
                                                  lost: request.map(\.wire))))
            }
        }
        let (frames, events) = buffer.poll(now: now)
        out.frames = frames
        out.events = events
        for f in frames {
            frameRate.add(now: now)
            if f.isKeyframe { keyframeRequests.satisfied() }
            // Nothing up to a frame already handed out is worth asking for any more.
            if configuration.nack { nack.forget(through: f.lastSequence) }
        }
        // PLI at start (media but no keyframe yet), after an unrecoverable gap, after a decode failure.
        if configuration.pli, receivedAny, buffer.waitingForKeyframe { keyframeRequests.request() }
        if configuration.pli, keyframeRequests.poll(now: now) {
            feedback.append(.pictureLossIndication(PictureLossIndication(senderSSRC: configuration.localSSRC,
                                                                         mediaSSRC: configuration.remoteSSRC)))
        }
        let sdes = RTCPPacket.sourceDescription(SourceDescription(ssrc: configuration.localSSRC, cname: configuration.cname))
        if reports.due(now: now), let block = statistics.makeReportBlock(now: now) {
            // A regular report carries the block; feedback due now rides in the same compound.
            out.rtcp.append(RTCPPacket.compound([.receiverReport(ReceiverReport(ssrc: configuration.localSSRC, reportBlocks: [block])), sdes] + feedback))
        } else if !feedback.isEmpty {
            // RFC 4585 §3.1: feedback goes in a compound led by an (empty) RR and the SDES CNAME.
            out.rtcp.append(RTCPPacket.compound([.receiverReport(ReceiverReport(ssrc: configuration.localSSRC)), sdes] + feedback))
        }
        return out
    }

    /// Frames handed out per second over the last second.
    public mutating func framesPerSecond(now: TransportTime) -> Double { frameRate.eventsPerSecond(now: now) }

    /// The figures a stats overlay shows for this stream.
    public struct Snapshot: Sendable, Equatable {
        public var packetsReceived: UInt64
        public var bytesReceived: UInt64
        public var packetsLost: Int64
        /// Loss in the last report interval, 0...1.
        public var fractionLost: Double
        public var jitterSeconds: Double
        public var framesPerSecond: Double
        public var bitsPerSecond: Double
        public var framesDecodable: Int
        public var framesDropped: Int
        public var nacksSent: Int
        public var plisSent: Int
        public var averageFrameLatency: Duration
    }

    public mutating func snapshot(now: TransportTime) -> Snapshot {
        Snapshot(packetsReceived: statistics.packetsReceived, bytesReceived: statistics.bytesReceived,
                 packetsLost: statistics.cumulativeLost, fractionLost: Double(statistics.lastFractionLost) / 256,
                 jitterSeconds: statistics.jitterSeconds, framesPerSecond: framesPerSecond(now: now),
                 bitsPerSecond: statistics.bitsPerSecond(now: now), framesDecodable: buffer.framesOut,
                 framesDropped: buffer.framesDropped, nacksSent: nack.requestsSent, plisSent: keyframeRequests.sent,
                 averageFrameLatency: buffer.averageLatency)
    }

    public func nextDeadline() -> TransportTime? {
        [buffer.nextDeadline(), configuration.nack ? nack.nextDeadline(rtt: roundTripTime) : nil,
         configuration.nack ? tailLoss.nextDeadline() : nil,
         configuration.pli ? keyframeRequests.nextDeadline() : nil, reports.nextReport].compactMap { $0 }.min()
    }
}
