import EngineTransport

/// Everything that decides how fast a connection sends, in one sans-IO type: the send-side estimator (when the peer
/// sends transport feedback for what we send), the pacer that spreads each frame's packets, and the estimator's
/// probes (padding paced above the estimate). The connection hands it every packet as it leaves (`stamp`), video
/// packets to pace (`enqueue`), and the peer's feedback; it answers with what may leave when, and what the encoder
/// may fill (docs/congestion-control.md).
public struct SendController: Sendable {
    /// Estimate bounds (bits per second, everything on the transport). The start is libwebrtc's; the top leaves the
    /// video controller's own maximum as the binding one.
    public static let initialBitrate = 300_000
    /// Low enough to say "audio alone barely fits": a 300 kbit/s member of a four-party mesh receives three audio
    /// streams (about 150 kbit/s) before any video.
    public static let minimumBitrate = 30_000
    public static let maximumBitrate = 2_500_000
    /// What the audio takes of the estimate: Opus at 32 kbit/s plus RTP, SRTP and UDP/IP headers at 50 packets a second.
    public static let audioShare = 48_000
    /// What of the video's share of the estimate the encoder may fill: the estimate counts every packet on the wire
    /// (`SendSideBandwidthEstimator.transportOverheadBytes`), and a full video packet carries about 62 bytes of RTP
    /// header, extensions, SRTP tag and UDP/IP besides its 1200-byte payload.
    public static let videoPayloadShare = 0.95
    /// The least video the estimate asks of the encoder (VP8 still gives a picture, at the low encoding's size).
    public static let minimumVideoBitrate = 30_000

    /// The estimator, once the peer sends transport feedback for what we send.
    public private(set) var estimator: SendSideBandwidthEstimator?
    /// The transport-wide sequence number's extension id our packets carry (with the estimator).
    public private(set) var sequenceID: UInt8?
    private var pacer = PacketPacer()
    /// The probe being sent: bytes and packets so far (everything stamped meanwhile belongs to it).
    private var probe: (cluster: ProbeCluster, bytes: Int, packets: Int)?

    public init() {}

    /// The peer's answer kept transport-cc and the transport-wide sequence number (extension `id`): estimate from
    /// its feedback from now on (a later negotiation keeps the estimate it has).
    public mutating func estimate(sequenceID id: UInt8) {
        sequenceID = id
        if estimator == nil {
            estimator = SendSideBandwidthEstimator(initial: Self.initialBitrate, minimum: Self.minimumBitrate, maximum: Self.maximumBitrate)
        }
    }

    /// A packet leaving now, retransmissions included: it gets its own transport-wide number, and counts for a
    /// running probe (as the estimator counts it, on the wire: a probe's rate is one the path must carry; an
    /// unstamped packet is never reported, so such a probe measures nothing, but it still ends).
    public mutating func stamp(_ packet: inout [UInt8], now: TransportTime) {
        if estimator != nil, let id = sequenceID, TransportWideSequenceNumber.hasElement(id: id, in: packet) {
            let sequence = estimator!.stamp(size: packet.count, now: now)
            _ = TransportWideSequenceNumber.stamp(sequence, id: id, in: &packet)
        }
        if probe != nil { probe!.bytes += packet.count + SendSideBandwidthEstimator.transportOverheadBytes; probe!.packets += 1 }
    }

    public mutating func onFeedback(_ feedback: TransportFeedback, roundTrip: Duration?, now: TransportTime) {
        estimator?.onFeedback(feedback, roundTrip: roundTrip, now: now)
    }

    /// A video packet to send at the pacing rate. Retransmissions and audio do not wait here: a NACKed packet is
    /// already late, and audio is small and steady.
    public mutating func enqueue(_ packet: [UInt8], now: TransportTime) { pacer.enqueue(packet, now: now) }

    /// The queued packets whose turn has come. The pacing rate follows what the path allows for everything sent:
    /// the estimate, or without one `fallbackRate` (the video controller's rate and the audio's share).
    public mutating func pacedPackets(now: TransportTime, fallbackRate: @autoclosure () -> Int) -> [[UInt8]] {
        guard pacer.queuedPackets > 0 else { return [] }
        pacer.rate = Int(PacketPacer.factor * Double(estimator?.target ?? fallbackRate()))
        return pacer.poll(now: now)
    }

    /// Sends what the estimator's probe has due through `send` (which stamps): padding made by `padding`, paced at
    /// the probe's rate (docs/congestion-control.md §5). The caller probes only once video flows.
    public mutating func sendProbe(now: TransportTime, padding: () -> [UInt8]?, send: (inout SendController, [UInt8]) -> Void) {
        guard estimator != nil else { return }
        if probe == nil, let cluster = estimator!.probe(now: now) { probe = (cluster, 0, 0) }
        guard let cluster = probe?.cluster else { return }
        let due = cluster.bytesDue(now: now)
        while probe!.bytes < due, let packet = padding() { send(&self, packet) }
        // Done when all its bytes are out, or when no padding can be made (nothing sent yet to follow).
        guard probe!.bytes >= cluster.bytes || probe!.bytes < due else { return }
        estimator!.probeSent(packets: probe!.packets)
        probe = nil
    }

    /// The pacer's next packet, and the probe's next packet or next probe (`probing`: video flows).
    public func nextDeadline(probing: Bool) -> TransportTime? {
        let probeAt: TransportTime? = if let p = probe { p.cluster.dueAt(sent: p.bytes) } else { probing ? estimator?.nextProbeAt : nil }
        return [pacer.nextDeadline, probeAt].compactMap { $0 }.min()
    }

    /// What the estimate allows for our video, bits per second: the estimate less the audio's share and the video's
    /// headers, within the video stream's own bounds (its maximum, a REMB the peer sends); nil without an estimate.
    public func videoTarget(hasAudio: Bool, maximum: Int, rembCap: Int?) -> Int? {
        guard let estimate = estimator?.target else { return nil }
        let video = Int(Double(estimate - (hasAudio ? Self.audioShare : 0)) * Self.videoPayloadShare)
        return min(max(video, Self.minimumVideoBitrate), maximum, rembCap ?? Int.max)
    }
}
