import EngineTransport
/// The send-side bandwidth estimate of one transport (docs/congestion-control.md): stamps each outgoing RTP packet
/// with a transport-wide sequence number, turns the peer's transport feedback into per-packet delays and losses,
/// and runs Google congestion control on them: packet groups → trendline → overuse detector → AIMD rate, bounded by
/// the loss-based rule. `target` is the rate, in bits per second, for everything sent on the transport.
///
/// Sans-IO: times are the caller's `now`; feedback from the peer is checked by `TransportFeedback.parse`, and
/// `SentPacketLog` ignores statuses for packets it did not send.
public struct SendSideBandwidthEstimator: Sendable {
    public let minimum: Int
    public let maximum: Int
    private var log = SentPacketLog()
    private var groups = PacketGroups()
    private var trendline = TrendlineFilter()
    private var detector = OveruseDetector()
    private var aimd: AimdRateControl
    private var acknowledged = AcknowledgedBitrate()
    private var loss: LossBasedBound
    private var probes = ProbeController()
    private var probeMeter = ProbeRateMeter()
    /// What was sent outside probes over the last half second, for the probe controller's application-limited test.
    private var sentOutsideProbes = RateWindow(length: .milliseconds(500))
    private var firstStamp: TransportTime?
    /// The queue at the bottleneck now, which a decrease drains (`AimdRateControl.decreaseShare`).
    private var standingQueue = StandingQueue()
    /// When the delay-based rate last decreased (`onFeedback`'s loss counting).
    private var lastDecrease: TransportTime?
    /// The capacity AIMD learnt last, kept after AIMD forgets it, until the path is seen to carry `widenedShare` of it
    /// for `widenedHold(learnt:)` on end.
    private var lastLearntCapacity: Int?
    static let widenedShare = 1.1
    /// When the widening test was first met in the current unbroken run of feedback meeting it.
    private var widenedSince: TransportTime?
    /// A shaper's token bucket passes its size above the link's rate once after a quiet spell, and the sawtooth's
    /// decreases make such spells: tbf's 4 KB (the bench's, and a common burst) over the acknowledged rate's 500 ms
    /// reads as 13 % more than a 500 kbit/s link and 21 % more than a 300 kbit/s one, above `widenedShare` with
    /// nothing widened (a false search, each costing a probe and a decrease). So the test must hold until the span
    /// it covers (the window and the hold) is long enough for such a bucket to add at most `bucketShare` of the
    /// learnt capacity: no hold at 2.5 Mbit/s, 0.14 s at 1 Mbit/s, 0.78 s at 500 kbit/s, 1.6 s at 300 kbit/s.
    static let bucketBytes = 4000
    static let bucketShare = 0.05

    static func widenedHold(learnt: Int) -> Duration {
        let span = Double(bucketBytes * 8) / (bucketShare * Double(max(learnt, 1)))
        let hold = span - Double(AcknowledgedBitrate.window.nanoseconds) / 1e9
        return hold > 0 ? .nanoseconds(Int64(min(hold, 10) * 1e9)) : .zero
    }
    /// Bytes each packet takes on the path beyond the RTP packet the caller stamps: SRTP's authentication tag (10 bytes,
    /// AES_CM_128_HMAC_SHA1_80, RFC 3711 §4.2), UDP's 8 and IPv4's 20. A bottleneck counts whole IP packets: without
    /// them, audio's 50 small packets a second and video's few per frame made the acknowledged rate read about 0.93
    /// of a full 500 kbit/s link, the capacity learnt from it was low by as much, and more than `widenedShare` of it
    /// got through on a link that had not widened. libwebrtc counts the same overhead in its estimate. Everything
    /// here (the target included) is a rate on the wire, less the link layer's own header.
    public static let transportOverheadBytes = 38
    /// The probe being sent (between `probe(now:)` and `probeSent`), whose packets are stamped with its id.
    public private(set) var activeProbe: ProbeCluster?
    /// Probes whose result raised the estimate (for statistics and tests).
    public private(set) var probesRaisingTarget = 0
    /// Feedback messages taken (for statistics and tests).
    public private(set) var feedbackReceived = 0

    public init(initial: Int = 300_000, minimum: Int = 50_000, maximum: Int = 2_500_000) {
        self.minimum = minimum
        self.maximum = maximum
        aimd = AimdRateControl(initial: initial, minimum: minimum, maximum: maximum)
        loss = LossBasedBound(minimum: minimum, maximum: maximum)
    }

    /// Bits per second for everything sent on the transport.
    public var target: Int { min(aimd.rate, loss.bound) }
    public var usage: BandwidthUsage { detector.usage }
    public var acknowledgedBitrate: Int? { acknowledged.bitsPerSecond }
    public var delayThreshold: Double { detector.threshold }
    /// Packet loss over the loss rule's last stretch, 0...1.
    public var reportedLoss: Double { loss.lastLoss }

    /// Probes sent so far.
    public var probesSent: Int { probes.probesSent }

    /// The sequence number to stamp on a packet of `size` bytes leaving now. Every packet is part of the active
    /// probe while there is one: media sent meanwhile crosses the same bottleneck.
    /// `size` is the RTP packet's; the estimator adds `transportOverheadBytes`.
    public mutating func stamp(size: Int, now: TransportTime) -> UInt16 {
        probes.mediaStarted(now: now)
        if firstStamp == nil { firstStamp = now }
        let onWire = size + Self.transportOverheadBytes
        if activeProbe == nil { sentOutsideProbes.add(bytes: onWire, now: now) }
        return log.stamp(size: onWire, now: now, probe: activeProbe?.id)
    }

    /// A probe to start now (the caller paces padding by `ProbeCluster.bytesDue` and calls `probeSent` when its
    /// bytes are out), or nil; at most one at a time.
    public mutating func probe(now: TransportTime) -> ProbeCluster? {
        // Called on every packet a connection handles: the half-second send rate is only worked out once one is due.
        guard activeProbe == nil, let due = probes.nextDeadline, now >= due,
              let cluster = probes.poll(target: target, maximum: maximum, usage: detector.usage, sentRate: sentRate(now: now),
                                        now: now) else { return nil }
        activeProbe = cluster
        probeMeter.started(id: cluster.id, bitsPerSecond: cluster.bitsPerSecond, now: now)
        return cluster
    }

    /// Bits per second sent outside probes over the last half second, once media has flowed that long.
    private mutating func sentRate(now: TransportTime) -> Int? {
        guard let first = firstStamp, now - first >= sentOutsideProbes.length else { return nil }
        return Int(sentOutsideProbes.bitsPerSecond(now: now))
    }

    /// The active probe is out: `packets` were stamped while it ran.
    public mutating func probeSent(packets: Int) {
        guard let cluster = activeProbe else { return }
        probeMeter.sent(id: cluster.id, packets: packets)
        activeProbe = nil
    }

    /// When `probe(now:)` may next return one (nil: not before feedback or media).
    public var nextProbeAt: TransportTime? { activeProbe == nil ? probes.nextDeadline : nil }

    public mutating func onFeedback(_ feedback: TransportFeedback, roundTrip: Duration?, now: TransportTime) {
        feedbackReceived += 1
        let results = log.results(for: feedback)
        guard !results.isEmpty else { return }
        var received = 0
        var lossCounted = (received: 0, lost: 0)
        var youngestSent = results[0].sent.sentAt
        var latest: PacketGroups.Delta?
        for r in results {
            if let probe = r.sent.probe { probeMeter.add(r, cluster: probe) }
            youngestSent = max(youngestSent, r.sent.sentAt)
            // The loss rule counts only packets sent after the last delay-based decrease: those in flight when it
            // came are the congestion it already answered (after a capacity drop, the full buffer's losses are
            // reported for a round trip and more after the rate came down, and cutting again for them took the
            // rate to a third of the new capacity on the bench).
            let counted = lastDecrease.map { r.sent.sentAt >= $0 } ?? true
            guard let arrival = r.arrival else {
                if counted { lossCounted.lost += 1 }
                continue
            }
            received += 1
            if counted { lossCounted.received += 1 }
            acknowledged.add(arrival: arrival, bytes: r.sent.size)
            standingQueue.add(sentAt: r.sent.sentAt, arrival: arrival, now: now)
            guard let delta = groups.add(sentAt: r.sent.sentAt, arrival: arrival) else { continue }
            latest = delta
            if let trend = trendline.update(delta) {
                _ = detector.detect(trend: trend, sendDeltaMs: delta.sendMs, nowMs: delta.atMs)
            }
        }
        // AIMD spaces its decreases by how long one takes to show in feedback: the youngest packet this feedback
        // reports waited in the bottleneck's queue and for the feedback itself. An RTCP round trip leaves the queue
        // out, and decreases every 10 ms while a 300 ms queue drained stacked up to a third of a dropped capacity on
        // the bench.
        let feedbackDelay = now - youngestSent
        // One rate update per feedback message, on the detector's latest verdict (libwebrtc does the same).
        if latest != nil || received == 0 {
            let before = aimd.rate
            aimd.update(detector.usage, acknowledged: acknowledged.bitsPerSecond, roundTrip: roundTrip ?? .milliseconds(100),
                        feedbackDelay: feedbackDelay, queueing: standingQueue.queueing, now: now)
            if aimd.rate < before {
                probes.onDecrease(from: before, to: aimd.rate, now: now)
                lastDecrease = now
            }
        }
        loss.add(received: lossCounted.received, lost: lossCounted.lost, current: aimd.rate,
                 queueGrowing: detector.usage == .overusing, now: now)
        if let learnt = aimd.learntCapacity { lastLearntCapacity = learnt }
        if aimd.learntCapacity == nil, let old = lastLearntCapacity, let ack = acknowledged.bitsPerSecond,
           detector.usage == .normal, Double(ack) >= Self.widenedShare * Double(old) {
            let since = widenedSince ?? now
            widenedSince = since
            if now - since >= Self.widenedHold(learnt: old) {
                lastLearntCapacity = nil
                widenedSince = nil
                probes.pathWidened(now: now)
            }
        } else {
            widenedSince = nil
        }
        for (id, measured) in probeMeter.takeResults(now: now) {
            probes.onResult(id: id, bitsPerSecond: measured, maximum: maximum, now: now)
            // A probe's rate is one the path just carried: the estimate jumps to it (never down: a probe that got
            // less through says nothing the delay detector does not). Not while a queue builds.
            if let rate = measured, rate > target, detector.usage != .overusing {
                aimd.raise(to: rate, now: now)
                loss.raise(to: aimd.rate)
                probesRaisingTarget += 1
            }
        }
    }
}
