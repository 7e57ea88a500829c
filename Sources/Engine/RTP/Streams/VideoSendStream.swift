import EngineTransport
/// The sending half of one VP8 stream, sans-IO: encoded frames in, RTP packets out; the peer's
/// RTCP in, retransmissions, keyframe requests, RTT and a target bitrate out; an SR+SDES compound
/// about once a second.
///
/// Wiring (per outgoing video track):
///
///     if stream.takeKeyframeRequest(now: now) { force a keyframe in VP8Encoder.encode }
///     encoder.setBitrate(kbps: stream.targetBitrate / 1000)
///     for p in stream.send(encodedFrame, now: now) { srtp.protect(p) → socket }
///     on RTCP from the peer: for p in stream.handleRTCP(parsed, now: now) { protect → socket }
///     on timer: if let sr = stream.pollReport(now: now) { srtcp.protect(sr) → socket }
public struct VideoSendStream: Sendable {
    public struct Configuration: Sendable {
        public var ssrc: SSRC
        public var payloadType: PayloadType
        public var cname: String
        /// Bytes of RTP payload per packet (VP8 descriptor included).
        public var maxPayloadSize = 1200
        public var initialSequenceNumber: UInt16 = 0
        public var initialTimestamp: UInt32 = 0
        public var initialPictureId: UInt16 = 0
        /// NTP seconds that `TransportTime.zero` stands for in SRs.
        public var ntpEpochSeconds: UInt64 = NTPTimestamp.defaultEpochSeconds
        public var historyCapacity = 512
        public var historyMaxAge: Duration = .seconds(1)
        /// Extensions to put on every packet (e.g. the MID, RFC 8843 §15.1).
        public var headerExtensions: RTPHeaderExtensions?
        public var bitrate = TargetBitrateController()

        public init(ssrc: SSRC, payloadType: PayloadType, cname: String) {
            self.ssrc = ssrc; self.payloadType = payloadType; self.cname = cname
        }
    }

    public static let clockRate = 90_000

    public let configuration: Configuration
    private var packetizer: VP8Packetizer
    private var sequence: SequenceNumber
    public private(set) var history: SendHistory
    public private(set) var keyframes = KeyframeRequestCoalescer()
    public private(set) var statistics: SendStatistics
    public private(set) var rate: TargetBitrateController
    private var reports: ReportScheduler
    /// The RTP timestamp of the last frame sent (nil before the first), which padding after it carries.
    private var lastTimestamp: UInt32?
    /// Padding-only packets sent (probes).
    public private(set) var paddingPacketsSent = 0
    /// RTT the peer's reports imply; 100 ms until the first one.
    public var roundTripTime: Duration { statistics.roundTripTime ?? .milliseconds(100) }

    public init(configuration: Configuration) {
        self.configuration = configuration
        packetizer = VP8Packetizer(maxPayloadSize: configuration.maxPayloadSize, initialPictureId: configuration.initialPictureId)
        sequence = SequenceNumber(configuration.initialSequenceNumber)
        history = SendHistory(capacity: configuration.historyCapacity, maxAge: configuration.historyMaxAge)
        statistics = SendStatistics(ssrc: configuration.ssrc, clockRate: Self.clockRate)
        rate = configuration.bitrate
        reports = ReportScheduler(seed: UInt64(configuration.ssrc.rawValue))
    }

    public var targetBitrate: Int { rate.target }

    /// RTP timestamp of a capture time (seconds): the 90 kHz video clock of RFC 7741 §4.1.
    public func rtpTimestamp(forCaptureTime seconds: Double) -> UInt32 {
        configuration.initialTimestamp &+ UInt32(truncatingIfNeeded: Int64((seconds * Double(Self.clockRate)).rounded()))
    }

    /// Packetizes one encoded frame; every packet is kept for retransmission.
    public mutating func send(_ frame: EncodedVideoFrame, now: TransportTime) -> [[UInt8]] {
        if frame.isKeyframe { keyframes.keyframeSent(now: now) }
        let timestamp = rtpTimestamp(forCaptureTime: frame.timestamp)
        let payloads = packetizer.packetize(frame.data)
        if !payloads.isEmpty { lastTimestamp = timestamp }
        var out: [[UInt8]] = []
        out.reserveCapacity(payloads.count)
        for (i, payload) in payloads.enumerated() {
            let packet = RTPPacket(marker: i == payloads.count - 1, payloadType: configuration.payloadType,
                                   sequenceNumber: sequence, timestamp: timestamp, ssrc: configuration.ssrc,
                                   headerExtensions: configuration.headerExtensions, payload: payload)
            let bytes = packet.serialized()
            history.record(sequence, bytes: bytes, now: now)
            statistics.recordSent(packet, size: bytes.count, now: now)
            sequence = sequence.next
            out.append(bytes)
        }
        return out
    }

    /// A padding-only packet (RFC 3550 §5.1: P bit, no payload, `padding` bytes of 1...255) for a probe of the send-side
    /// estimator. It takes the next sequence number and the last frame's timestamp: frames are sent whole, so it
    /// always lies between two frames, and receivers step over it (libwebrtc's do the same with its padding when
    /// RTX is not negotiated). Not kept for retransmission: a lost one carries nothing to repair. Nil before the
    /// first frame.
    public mutating func paddingPacket(padding: Int, now: TransportTime) -> [UInt8]? {
        guard let timestamp = lastTimestamp else { return nil }
        let packet = RTPPacket(marker: false, payloadType: configuration.payloadType, sequenceNumber: sequence,
                               timestamp: timestamp, ssrc: configuration.ssrc, headerExtensions: configuration.headerExtensions,
                               payload: [], paddingLength: UInt8(min(max(padding, 1), 255)))
        let bytes = packet.serialized()
        statistics.recordSent(packet, size: bytes.count, now: now)
        sequence = sequence.next
        paddingPacketsSent += 1
        return bytes
    }

    /// Takes the peer's RTCP; returns the retransmissions its NACKs ask for: the original packets,
    /// same SSRC and sequence number (RTX, RFC 4588, is never negotiated). `estimate`: the transport's send-side
    /// estimate, bits per second, which bounds them (`SendHistory`).
    public mutating func handleRTCP(_ packets: [RTCPPacket], estimate: Int? = nil, now: TransportTime) -> [[UInt8]] {
        var resend: [[UInt8]] = []
        let me = configuration.ssrc
        for packet in packets {
            switch packet {
            case .receiverReport(let rr):
                for b in rr.reportBlocks where b.ssrc == me { take(b, now: now) }
            case .senderReport(let sr):
                for b in sr.reportBlocks where b.ssrc == me { take(b, now: now) }
            case .nack(let nack) where nack.mediaSSRC == me:
                let packets = history.retransmissions(for: nack.lostSequenceNumbers, now: now, rtt: roundTripTime,
                                                          estimate: estimate)
                for p in packets { statistics.recordRetransmission(size: p.count, now: now) }
                resend += packets
            case .pictureLossIndication(let pli) where pli.mediaSSRC == me:
                keyframes.pictureLoss(now: now)
            case .fullIntraRequest(let fir):
                for e in fir.entries where e.ssrc == me {
                    keyframes.fullIntraRequest(from: fir.senderSSRC, sequenceNumber: e.sequenceNumber, now: now)
                }
            case .receiverEstimatedMaxBitrate(let remb) where remb.ssrcs.isEmpty || remb.ssrcs.contains(me):
                rate.onREMB(bitrate: remb.bitrate)
            default:
                break
            }
        }
        return resend
    }

    private mutating func take(_ block: ReportBlock, now: TransportTime) {
        statistics.record(block, now: now, ntpEpochSeconds: configuration.ntpEpochSeconds)
        rate.onReportBlock(fractionLost: block.fractionLost, now: now)
    }

    /// True once per (coalesced) PLI/FIR: the next frame must be a keyframe.
    public mutating func takeKeyframeRequest(now: TransportTime) -> Bool { keyframes.takeRequest(now: now) }

    /// An SR + SDES(CNAME) compound when one is due (RFC 3550 §6.1: a compound starts with a
    /// report and carries the CNAME).
    public mutating func pollReport(now: TransportTime) -> [UInt8]? {
        guard reports.due(now: now) else { return nil }
        let sr = statistics.makeSenderReport(now: now, ntpEpochSeconds: configuration.ntpEpochSeconds)
        return RTCPPacket.compound([.senderReport(sr),
                                    .sourceDescription(SourceDescription(ssrc: configuration.ssrc, cname: configuration.cname))])
    }

    public var nextDeadline: TransportTime? { reports.nextReport }

    /// The figures a stats overlay shows for this stream.
    public struct Snapshot: Sendable, Equatable {
        public var packetsSent: UInt32
        public var payloadBytesSent: UInt32
        public var retransmissions: Int
        public var bitsPerSecond: Double
        public var targetBitrate: Int
        public var roundTripTime: Duration?
        /// What the peer last reported, 0...1.
        public var remoteFractionLost: Double
        public var keyframeRequests: Int
        public var keyframesForced: Int
    }

    public mutating func snapshot(now: TransportTime) -> Snapshot {
        Snapshot(packetsSent: statistics.packetsSent, payloadBytesSent: statistics.payloadOctetsSent,
                 retransmissions: history.retransmitted, bitsPerSecond: statistics.bitsPerSecond(now: now),
                 targetBitrate: targetBitrate, roundTripTime: statistics.roundTripTime,
                 remoteFractionLost: Double(statistics.remoteFractionLost) / 256,
                 keyframeRequests: keyframes.requestsReceived, keyframesForced: keyframes.keyframesForced)
    }
}
