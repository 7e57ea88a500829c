import EngineTestSupport
import Testing
@testable import EngineRTP
@testable import EngineTransport

// The send-side estimator on a virtual clock (docs/congestion-control.md): a sender that encodes 15 frames a second
// at the video's share of the estimator's target (as `PeerConnection` gives it) and sends each frame's packets (at most
// 1200 bytes) through the pacer, 50 small audio packets a second beside them, a bottleneck that counts each packet's
// headers down to Ethernet's (as tbf on a veth does) with the
// buffer of a home router (300 ms, like tbf's `latency`: loss comes only once that queue is full), a receiver that
// reports every 50 ms, and feedback that comes back over a clean 20 ms link. Seconds of call run in milliseconds.

private struct SimulatedPacket: EmulatedDatagram {
    var sequence: UInt16
    var sentAt: TransportTime
    /// The RTP packet's bytes.
    var size: Int
    /// What the bottleneck counts: the RTP packet, SRTP's tag, UDP, IPv4 and Ethernet headers.
    var byteCount: Int { size + 10 + 8 + 20 + 14 }
}

private struct CallSimulation {
    static let oneWay: Duration = .milliseconds(20)
    /// The bounds `PeerConnection` gives it.
    var estimator = SendSideBandwidthEstimator(initial: 300_000, minimum: 30_000, maximum: 2_500_000)
    var link: EmulatedLink<SimulatedPacket>
    var receiver = TransportFeedbackBuilder(senderSSRC: SSRC(1))
    var feedbackInFlight: [(at: TransportTime, feedback: TransportFeedback)] = []
    var now = TransportTime(nanoseconds: 1_000_000_000)
    var nextFrame = TransportTime(nanoseconds: 1_000_000_000)
    var nextFeedback = TransportTime(nanoseconds: 1_050_000_000)
    var nextAudio = TransportTime(nanoseconds: 1_000_000_000)
    /// (arrival, queueing delay in ms, bytes) of every packet delivered.
    var delivered: [(at: TransportTime, queueMs: Double, bytes: Int)] = []
    /// (time, target) once per frame.
    var targets: [(at: TransportTime, bps: Int)] = []
    /// Whether the sender sends the probes the estimator asks for (padding paced at the probe's rate).
    var probing = true
    /// The most the encoder makes, bits per second (nil: whatever the target is): an application-limited sender.
    var encoderCap: Int?
    /// The probe being sent: bytes and packets so far (media sent meanwhile counts, as in `PeerConnection`).
    var probe: (cluster: ProbeCluster, bytes: Int, packets: Int)?
    /// Frames leave through a pacer at `PacketPacer.factor` × the target, as `PeerConnection` sends them.
    var pacer = PacketPacer()
    /// conftui's frame rate.
    static let frameRate = 15
    /// Opus at 32 kbit/s in 20 ms packets: 80 bytes of payload under a 12-byte header and 8 of extensions.
    static let audioPacket = 100
    static let audioInterval: Duration = .milliseconds(20)
    /// What the encoder gets of the target, as a connection's send controller gives it.
    static let audioShare = SendController.audioShare
    static let videoPayloadShare = SendController.videoPayloadShare

    init(capacity: Int, seed: UInt64) {
        link = EmulatedLink(LinkConditions(delay: Self.oneWay, bitsPerSecond: capacity, maxQueueDelay: .milliseconds(300)),
                            seed: seed)
    }

    var capacity: Int {
        get { link.conditions.bitsPerSecond ?? 0 }
        set { link.conditions.bitsPerSecond = newValue }
    }

    /// Runs until `until`, one millisecond at a time.
    mutating func run(until end: TransportTime) {
        while now < end {
            now = now + .milliseconds(1)
            if now >= nextFrame {
                nextFrame = nextFrame + .nanoseconds(1_000_000_000 / Int64(Self.frameRate))
                let target = estimator.target
                targets.append((now, target))
                let video = max(Int(Double(target - Self.audioShare) * Self.videoPayloadShare), 30_000)
                var frameBytes = min(video, encoderCap ?? video) / Self.frameRate / 8
                while frameBytes > 0 {
                    let size = min(frameBytes, 1200)
                    frameBytes -= size
                    pacer.enqueue([UInt8](repeating: 0, count: size), now: now)
                }
            }
            if now >= nextAudio {
                nextAudio = nextAudio + Self.audioInterval
                send(size: Self.audioPacket)
            }
            pacer.rate = Int(PacketPacer.factor * Double(estimator.target))
            for packet in pacer.poll(now: now) { send(size: packet.count) }
            if probing, probe == nil, let cluster = estimator.probe(now: now) { probe = (cluster, 0, 0) }
            if let cluster = probe?.cluster {
                while probe!.bytes < cluster.bytesDue(now: now) { send(size: ProbeCluster.paddingBytes + 30) }
                if probe!.bytes >= cluster.bytes {
                    estimator.probeSent(packets: probe!.packets)
                    probe = nil
                }
            }
            for p in link.deliver(now: now) {
                receiver.record(sequence: p.sequence, mediaSSRC: SSRC(2), arrival: now)
                delivered.append((now, Double((now - p.sentAt - Self.oneWay).nanoseconds) / 1e6, p.byteCount))
            }
            if now >= nextFeedback {
                nextFeedback = nextFeedback + .milliseconds(50)
                for f in receiver.poll() { feedbackInFlight.append((now + Self.oneWay, f)) }
            }
            while let first = feedbackInFlight.first, first.at <= now {
                feedbackInFlight.removeFirst()
                estimator.onFeedback(first.feedback, roundTrip: .milliseconds(40), now: now)
            }
        }
    }

    mutating func send(size: Int) {
        let sequence = estimator.stamp(size: size, now: now)
        link.send(SimulatedPacket(sequence: sequence, sentAt: now, size: size), now: now)
        if probe != nil { probe!.bytes += size + SendSideBandwidthEstimator.transportOverheadBytes; probe!.packets += 1 }
    }

    func seconds(_ s: Double) -> TransportTime { TransportTime(nanoseconds: 1_000_000_000 + Int64(s * 1e9)) }

    /// Received bits per second between two times.
    func throughput(from: Double, to: Double) -> Double {
        let bytes = delivered.filter { $0.at >= seconds(from) && $0.at < seconds(to) }.reduce(0) { $0 + $1.bytes }
        return Double(bytes * 8) / (to - from)
    }

    func queueDelay(from: Double, to: Double, percentile: Double) -> Double {
        let d = delivered.filter { $0.at >= seconds(from) && $0.at < seconds(to) }.map(\.queueMs).sorted()
        guard !d.isEmpty else { return .infinity }
        return d[min(d.count - 1, Int(Double(d.count) * percentile))]
    }

    func target(at s: Double) -> Int { targets.last { $0.at <= seconds(s) }?.bps ?? 0 }

    /// Seconds after `change` until a 1 s window of what arrived (ending on a whole second after it) is within 15 %
    /// of `capacity`, the bench's measure of RFC 8867 §5.1's reaction time; nil when none is by `within`.
    func secondsToReach(_ capacity: Int, after change: Double, within: Double) -> Double? {
        stride(from: 1.0, through: within, by: 1).first { s in
            abs(throughput(from: change + s - 1, to: change + s) - Double(capacity)) <= 0.15 * Double(capacity)
        }
    }

    var summary: String {
        stride(from: 1.0, through: (Double(now.nanoseconds) / 1e9) - 1, by: 1).map { s in
            "\(Int(s))s: target \(target(at: s) / 1000) kbit/s, got \(Int(throughput(from: s - 1, to: s) / 1000)), "
                + "queue p95 \(Int(queueDelay(from: s - 1, to: s, percentile: 0.95))) ms"
        }.joined(separator: "\n")
    }
}

@Test func aBottleneckOf500kbpsIsFilledWithAShortQueue() {
    var sim = CallSimulation(capacity: 500_000, seed: 1)
    sim.run(until: sim.seconds(30))
    let utilisation = sim.throughput(from: 10, to: 30) / 500_000
    let p95 = sim.queueDelay(from: 10, to: 30, percentile: 0.95)
    #expect(utilisation >= 0.8, "\(sim.summary)")
    // A loss-based estimate alone would fill the 300 ms buffer before it saw a loss.
    #expect(p95 <= 150, "\(sim.summary)")
}

@Test(arguments: [0.02, 0.05])
func randomLossIsNotTakenForCongestion(loss: Double) {
    // 1 Mbit/s with 2 % (the bench's path (b)) or 5 % of packets lost at random (a radio link): the loss comes
    // without a queue, so it must not hold the rate down (gcc-02 §6 alone holds it wherever it was between 2 and 10 %).
    var sim = CallSimulation(capacity: 1_000_000, seed: 4)
    sim.link.conditions.loss = loss
    sim.run(until: sim.seconds(30))
    // The rate keeps reaching for the capacity (the delay-based sawtooth), rather than staying pinned below it by the
    // loss rule's hold, which is where it stays if random loss is taken for congestion (checked: 869 kbit/s at 5 %).
    let highest = sim.targets.filter { $0.at >= sim.seconds(15) }.map(\.bps).max() ?? 0
    #expect(highest >= 970_000, "\(sim.summary)")
    #expect(sim.throughput(from: 15, to: 30) / 1_000_000 >= 0.8, "\(sim.summary)")
    #expect(sim.queueDelay(from: 15, to: 30, percentile: 0.95) <= 150, "\(sim.summary)")
}

@Test func aCapacityDropIsFollowedWithinFiveSeconds() {
    var sim = CallSimulation(capacity: 2_500_000, seed: 2)
    sim.run(until: sim.seconds(40))
    let before = sim.target(at: 40)
    let probesBefore = sim.estimator.probesSent
    sim.capacity = 600_000
    sim.run(until: sim.seconds(45))
    // A large drop on a full link is not probed (a shaper's burst would answer, ProbeController): the decreases
    // from what arrives find the new capacity.
    #expect(sim.estimator.probesSent == probesBefore, "\(sim.summary)")
    // Within 15 % of the new capacity 5 s after the drop (RFC 8867 §5.1's schedule asks this of every change)...
    #expect(before >= 1_500_000, "\(sim.summary)")
    #expect(Double(sim.target(at: 45)) <= 600_000 * 1.15, "\(sim.summary)")
    #expect(sim.throughput(from: 44, to: 45) >= 600_000 * 0.7, "\(sim.summary)")
    // ...and the queue the drop built drains: 5 s later it is short again.
    sim.run(until: sim.seconds(50))
    #expect(sim.queueDelay(from: 48, to: 50, percentile: 0.95) <= 150, "\(sim.summary)")
}

@Test func theEstimateGrowsWhenTheBottleneckWidens() {
    var sim = CallSimulation(capacity: 1_000_000, seed: 3)
    sim.run(until: sim.seconds(20))
    sim.capacity = 2_500_000
    sim.run(until: sim.seconds(40))
    #expect(sim.target(at: 40) >= 2_000_000, "\(sim.summary)")
}

/// An encoder that makes at most 600 kbit/s, 20 s on 1 Mbit/s (which bounds the estimate), then 10 s on 2.5 Mbit/s.
private func applicationLimitedSenderOnAWideningPath(probing: Bool) -> CallSimulation {
    var sim = CallSimulation(capacity: 1_000_000, seed: 6)
    sim.encoderCap = 600_000
    sim.probing = probing
    sim.run(until: sim.seconds(20))
    #expect(sim.target(at: 20) <= 1_150_000, "the 1 Mbit/s path bounds it: \(sim.summary)")
    sim.capacity = 2_500_000
    sim.run(until: sim.seconds(30))
    return sim
}

@Test func anApplicationLimitedSenderProbesAWiderPath() {
    // An encoder that makes at most 600 kbit/s (a still picture): the estimate cannot grow past 1.5 × what arrives,
    // so only probes (padding, every 2 s while the sender uses under 75 % of its estimate) tell it the path widened.
    let sim = applicationLimitedSenderOnAWideningPath(probing: true)
    #expect(Double(sim.target(at: 30)) >= 2_500_000 * 0.85, "\(sim.summary)")
    #expect(sim.queueDelay(from: 20, to: 30, percentile: 0.95) <= 100, "\(sim.summary)")
}

@Test func aFullLinkThatWidensIsFoundInSeconds() {
    // RFC 8867 §5.1's schedule asks for each new capacity within 5 s; growth alone (8 %/s) takes 12 s for 2.5×. On a
    // full link the sender is not application-limited; what starts the search is more getting through than the
    // capacity learnt at the last decreases.
    var sim = CallSimulation(capacity: 1_000_000, seed: 6)
    sim.run(until: sim.seconds(20))
    sim.capacity = 2_500_000
    sim.run(until: sim.seconds(25))
    #expect(sim.secondsToReach(2_500_000, after: 20, within: 5) != nil, "\(sim.summary)")
    sim.capacity = 600_000
    sim.run(until: sim.seconds(35))
    sim.capacity = 1_000_000
    sim.run(until: sim.seconds(42))
    // From 0.6 back to 1 Mbit/s the search starts once 10 % more than the capacity learnt at 0.6 has got through for
    // long enough that a shaper's bucket cannot explain it (0.6 s more at 0.56 Mbit/s learnt): within RFC 8867's 5 s
    // (Chromium took 5-6 s on the bench).
    #expect(sim.secondsToReach(1_000_000, after: 35, within: 5) != nil, "\(sim.summary)")
    #expect(sim.queueDelay(from: 37, to: 40, percentile: 0.95) <= 150, "\(sim.summary)")
}

@Test func withoutProbesAnApplicationLimitedEstimateStaysNearWhatItSends() {
    // The same sender and path with the probes ignored: what the test above owes to them.
    let sim = applicationLimitedSenderOnAWideningPath(probing: false)
    // AIMD stops at 1.5 × what arrives: the 600 kbit/s of video with its headers and the audio, about 690 kbit/s.
    #expect(sim.target(at: 30) <= 1_200_000, "\(sim.summary)")
}

@Test func theStartProbeFindsThePathInSeconds() {
    var sim = CallSimulation(capacity: 2_000_000, seed: 7)
    sim.run(until: sim.seconds(3))
    #expect(Double(sim.target(at: 3)) >= 2_000_000 * 0.7, "\(sim.summary)")
    #expect(sim.estimator.probesRaisingTarget >= 1)
}

@Test func aFullLinkIsProbedOnlyAtTheStart() {
    // A sender that uses all of its estimate is not application-limited: after the start-up search nothing is
    // probed (a shaper's burst allowance would make short probes of a full link lie, ProbeController).
    var sim = CallSimulation(capacity: 500_000, seed: 8)
    sim.run(until: sim.seconds(30))
    #expect(sim.estimator.probesSent >= 1 && sim.estimator.probesSent <= 3, "\(sim.estimator.probesSent) probes")
    #expect(sim.queueDelay(from: 10, to: 30, percentile: 0.95) <= 100, "\(sim.summary)")
    #expect(sim.throughput(from: 10, to: 30) / 500_000 >= 0.8, "\(sim.summary)")
}

@Test(arguments: [300_000, 500_000] as [Int])
func aFullSlowLinkBehindATokenBucketIsNotSearched(capacity: Int) {
    // tbf's 4 KB bucket passes a burst above the rate after every quiet spell, and the sawtooth's decreases make
    // those spells: over one 500 ms window of the acknowledged rate that reads as 13 % more than a 500 kbit/s link
    // (21 % of 300 kbit/s). Taken for a widened path, each costs a probe and a decrease (the bench's 500 kbit/s p95).
    var sim = CallSimulation(capacity: capacity, seed: 12)
    sim.link.conditions.burstBytes = 4000
    sim.run(until: sim.seconds(60))
    #expect(sim.estimator.probesSent <= 3, "\(sim.estimator.probesSent) probes: \(sim.summary)")
    #expect(sim.queueDelay(from: 10, to: 60, percentile: 0.95) <= 100, "\(sim.summary)")
    #expect(sim.throughput(from: 10, to: 60) / Double(capacity) >= 0.8, "\(sim.summary)")
}

@Test func forgedFeedbackNeitherTrapsNorGrowsState() {
    var estimator = SendSideBandwidthEstimator()
    var rng = SplitMixRandom(seed: 5)
    var now = TransportTime(nanoseconds: 0)
    for _ in 0..<200 { _ = estimator.stamp(size: 1000, now: now); now = now + .milliseconds(1) }
    // Some of those packets in a probe, so forged statuses reach the probe meter too.
    if estimator.probe(now: now) != nil {
        for _ in 0..<20 { _ = estimator.stamp(size: 295, now: now); now = now + .milliseconds(1) }
        estimator.probeSent(packets: 20)
    }
    for _ in 0..<5000 {
        let statuses: [TransportFeedback.PacketStatus] = (0..<Int(rng.next() % 300)).map { _ in
            rng.next() % 3 == 0 ? .notReceived : .received(deltaTicks: Int16(truncatingIfNeeded: rng.next()))
        }
        let fb = TransportFeedback(senderSSRC: SSRC(1), mediaSSRC: SSRC(2), baseSequence: UInt16(truncatingIfNeeded: rng.next()),
                                   referenceTime: UInt32(truncatingIfNeeded: rng.next()), feedbackCount: 0, statuses: statuses)
        estimator.onFeedback(fb, roundTrip: nil, now: now)
        now = now + .milliseconds(50)
    }
    #expect((estimator.minimum...estimator.maximum).contains(estimator.target))
}

@Test func arrivalTimesAtOppositeEndsOfTheRangeDoNotTrap() {
    // A peer's feedback can drive the unwrapped arrival times anywhere (SentPacketLog wraps rather than traps); the
    // consumers subtract them (acknowledged rate, probe spreads), which must wrap too.
    let late = TransportTime(nanoseconds: .max - 10), early = TransportTime(nanoseconds: .min + 10)
    #expect((early - late).nanoseconds == 21)
    #expect((late - TransportTime(nanoseconds: .max - 30)).nanoseconds == 20)
}

/// RFC 8867 §5.1's capacity schedule (1 → 2.5 → 0.6 → 1 Mbit/s, here 20/10/10/10 s as on the bench) through a shaper
/// with tbf's 4 KB token bucket, which lets a short burst above the rate through untouched: what made probes read
/// more than the path carries on the bench. The changes come `phase` seconds later into the call: where the
/// sawtooth is when the link changes decides how soon a wider path is seen (a decrease just before it starts the
/// climb from 0.9 × the old capacity), and the simulation's seeds do not move it (9, 10 and 11 took one path).
private func scheduleThroughAShaper(phase: Double) -> (sim: CallSimulation, changes: [(at: Double, capacity: Int)]) {
    var sim = CallSimulation(capacity: 1_000_000, seed: 9)
    sim.link.conditions.burstBytes = 4000
    let changes: [(at: Double, capacity: Int)] = [(20 + phase, 2_500_000), (30 + phase, 600_000), (40 + phase, 1_000_000)]
    for (at, capacity) in changes {
        sim.run(until: sim.seconds(at))
        sim.capacity = capacity
    }
    sim.run(until: sim.seconds(50 + phase))
    return (sim, changes)
}

/// Half-second steps over the 1 Mbit/s sawtooth's period (about 3 s).
@Test(arguments: [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5] as [Double])
func theCapacityScheduleThroughAShaperIsFollowed(phase: Double) {
    let (sim, changes) = scheduleThroughAShaper(phase: phase)
    for (at, capacity) in changes {
        let targets = sim.targets.filter { $0.at > sim.seconds(at) && $0.at <= sim.seconds(at + 10) }
        // Within 15 % of each new capacity within 5 s (RFC 8867 §5.1's bar, measured as the bench does).
        #expect(sim.secondsToReach(capacity, after: at, within: 5) != nil, "\(capacity) by \(at + 5) s: \(sim.summary)")
        // Never far above it once the change has been seen: a probe the bucket fooled lifts the estimate at most to
        // the probe's own rate, and the decrease that follows brings it back.
        let settled = targets.filter { $0.at >= sim.seconds(at + 2) }.map(\.bps).max() ?? 0
        #expect(Double(settled) <= 1.6 * Double(capacity), "\(capacity) from \(at + 2) s: \(sim.summary)")
    }
    let drop = 30 + phase
    // After the drop to 600 kbit/s the rate does not collapse: the losses of the full buffer are of packets sent
    // before the delay-based decrease, which answered them; the loss rule does not cut again for them (it took the
    // rate to 190-300 kbit/s and kept it there).
    // The decrease that drains the full buffer goes to half of what arrives, and once it has drained the rate is
    // back near 0.9 × the link (at least 0.8 ×).
    let minimum = { (from: Double) in
        sim.targets.filter { $0.at > sim.seconds(drop + from) && $0.at <= sim.seconds(drop + 10) }.map(\.bps).min() ?? 0
    }
    #expect(minimum(1) >= 280_000, "\(sim.summary)")
    #expect(minimum(2) >= 480_000, "\(sim.summary)")
    // The full buffer drains within 1.5 s of the drop (at 0.85 × the link it stood for most of a third second),
    // and the queue stays short over the whole schedule.
    #expect(sim.queueDelay(from: drop + 1.5, to: drop + 3, percentile: 0.95) <= 60, "\(sim.summary)")
    #expect(sim.queueDelay(from: drop + 3, to: drop + 10, percentile: 0.95) <= 100, "\(sim.summary)")
    #expect(sim.queueDelay(from: 10, to: 50 + phase, percentile: 0.95) <= 40, "\(sim.summary)")
}

@Test func aDecreaseRightAfterAProbeStartsFromTheProbedRate() {
    // A probe raised 1 Mbit/s to 2.5; the encoder has not caught up (the receiver acknowledges 0.8), and the first
    // frames at the new rate read as overuse. 0.9 × 0.8 would cut to 0.72 Mbit/s, below a rate that was fine and
    // far below what the probe just measured.
    let t0 = TransportTime(nanoseconds: 1_000_000_000)
    var aimd = AimdRateControl(initial: 1_000_000, minimum: 50_000, maximum: 2_500_000)
    aimd.raise(to: 2_500_000, now: t0)
    // Within a response time of the raise the feedback still reports packets sent before it: no decrease.
    aimd.update(.overusing, acknowledged: 800_000, roundTrip: .milliseconds(50), now: t0 + .milliseconds(50))
    #expect(aimd.rate == 2_500_000)
    aimd.update(.overusing, acknowledged: 800_000, roundTrip: .milliseconds(50), now: t0 + .milliseconds(500))
    #expect(aimd.rate == 2_250_000)
    #expect(aimd.learntCapacity == nil, "the acknowledged rate from before the raise says nothing about the path")
    // A probe a shaper fooled: 0.9 × where it started bounds the fall (the start itself may have been the link).
    var fooled = AimdRateControl(initial: 1_000_000, minimum: 50_000, maximum: 2_500_000)
    fooled.raise(to: 1_100_000, now: t0)
    fooled.update(.overusing, acknowledged: 700_000, roundTrip: .milliseconds(50), now: t0 + .milliseconds(300))
    #expect(fooled.rate == 990_000)
    for ms in stride(from: 600, through: 1800, by: 300) {
        fooled.update(.overusing, acknowledged: 700_000, roundTrip: .milliseconds(50), now: t0 + .milliseconds(ms))
    }
    #expect(fooled.rate == 900_000)
    // The encoder is still ramping up 300 ms later: a second decrease steps down from the rate again.
    aimd.update(.overusing, acknowledged: 1_600_000, roundTrip: .milliseconds(50), now: t0 + .milliseconds(800))
    #expect(aimd.rate == 2_025_000)
    // From 2 s after the raise, decreases start from the acknowledged rate again.
    aimd.update(.overusing, acknowledged: 1_600_000, roundTrip: .milliseconds(50), now: t0 + .milliseconds(2100))
    #expect(aimd.rate == 1_440_000)
    aimd.raise(to: 2_000_000, now: t0 + .seconds(5))
    aimd.update(.overusing, acknowledged: 1_000_000, roundTrip: .milliseconds(50), now: t0 + .seconds(8))
    #expect(aimd.rate == 900_000 && aimd.learntCapacity == 1_000_000)
}

@Test func aStandingQueueIsDrainedAndTheRateReturnsOnceItIs() {
    let t0 = TransportTime(nanoseconds: 1_000_000_000)
    // The link dropped under a 2 Mbit/s sender: 600 kbit/s arrive, 100 ms of queue stand. 0.9 × 600 would drain
    // 10 ms of it in 100 ms; 0.8 × drains it in half a second.
    var aimd = AimdRateControl(initial: 2_000_000, minimum: 50_000, maximum: 2_500_000)
    aimd.update(.overusing, acknowledged: 600_000, roundTrip: .milliseconds(50), queueing: .milliseconds(100), now: t0)
    #expect(aimd.rate == 480_000)
    // A quarter second of queue or more: half of what arrives, no less; a short queue: 0.9.
    #expect(AimdRateControl.decreaseShare(queueing: .milliseconds(300)) == 0.5)
    #expect(AimdRateControl.decreaseShare(queueing: .milliseconds(20)) == 0.9)
    // Still draining: the rate holds.
    aimd.update(.underusing, acknowledged: 600_000, roundTrip: .milliseconds(50), queueing: .milliseconds(50),
                now: t0 + .milliseconds(300))
    #expect(aimd.rate == 480_000)
    // Drained (the detector still sees the queue's fall): back to where 0.9 × what arrived at the cut puts it, not
    // a climb at 8 % a second from 0.8.
    aimd.update(.underusing, acknowledged: 500_000, roundTrip: .milliseconds(50), queueing: .milliseconds(10),
                now: t0 + .milliseconds(600))
    #expect(aimd.rate == 540_000)
    // After a probe's raise a long queue says the raise overshot: the decrease drains from what arrives, not 0.9 ×
    // the raised rate.
    var raised = AimdRateControl(initial: 700_000, minimum: 50_000, maximum: 2_500_000)
    raised.raise(to: 1_400_000, now: t0)
    raised.update(.overusing, acknowledged: 1_000_000, roundTrip: .milliseconds(50), queueing: .milliseconds(150),
                  now: t0 + .milliseconds(400))
    #expect(raised.rate == 700_000)
}

@Test func theStandingQueueIsTheDelayAboveTheLeastSeen() {
    let t0 = TransportTime(nanoseconds: 1_000_000_000)
    var queue = StandingQueue()
    // The receiver's clock is 5 s ahead of ours; the path takes 20 ms.
    let offset = Duration.seconds(5) + .milliseconds(20)
    queue.add(sentAt: t0, arrival: t0 + offset, now: t0)
    #expect(queue.queueing == .zero)
    queue.add(sentAt: t0 + .milliseconds(100), arrival: t0 + .milliseconds(180) + offset, now: t0 + .milliseconds(200))
    #expect(queue.queueing == .milliseconds(80))
    // A path that got 30 ms longer reads as queue until the least value is renewed.
    let later = t0 + StandingQueue.baseWindow + .seconds(1)
    queue.add(sentAt: later, arrival: later + offset + .milliseconds(30), now: later)
    #expect(queue.queueing == .zero)
    // Extreme arrival times (the feedback's unwrapped reference) neither trap nor leave the queue outside what a
    // decrease can take in.
    for arrival: Int64 in [.min + 5, .max - 5, .min + 5] {
        queue.add(sentAt: later, arrival: TransportTime(nanoseconds: arrival), now: later)
        #expect(queue.queueing >= .zero && queue.queueing <= StandingQueue.longest)
        #expect(AimdRateControl.decreaseShare(queueing: queue.queueing) >= AimdRateControl.minimumDrainShare)
    }
}

@Test func aProbeMeasuresNoMoreThanItsOwnRate() {
    // A 1 Mbit/s probe during which a frame's packets also left: 10 packets of 1000 bytes sent 1 ms apart and,
    // through a token bucket, arriving 1 ms apart (8 Mbit/s both ways). The path showed it carries the probe's rate.
    var meter = ProbeRateMeter()
    let t0 = TransportTime(nanoseconds: 1_000_000_000)
    meter.started(id: 1, bitsPerSecond: 1_000_000, now: t0)
    meter.sent(id: 1, packets: 10)
    for i in 0..<10 {
        let sent = SentPacketLog.Sent(sequence: UInt64(i), sentAt: t0 + .milliseconds(i), size: 1000, probe: 1)
        meter.add(SentPacketLog.Result(sent: sent, arrival: t0 + .milliseconds(20 + i)), cluster: 1)
    }
    let results = meter.takeResults(now: t0 + .milliseconds(100))
    #expect(results.count == 1 && results.first?.bitsPerSecond == 1_000_000, "\(results)")
}


@Test(arguments: [(0.75, true), (0.65, false)])
func aProbeThatGotMostOfItsRateThroughContinuesTheSearch(share: Double, continues: Bool) throws {
    var probes = ProbeController()
    let start = TransportTime(nanoseconds: 1_000_000_000)
    probes.mediaStarted(now: start)
    let polled = probes.poll(target: 300_000, maximum: 2_500_000, usage: .normal, sentRate: nil, now: start)
    let first = try #require(polled)
    let got = Int(share * Double(first.bitsPerSecond))
    let later = start + .milliseconds(100)
    probes.onResult(id: first.id, bitsPerSecond: got, maximum: 2_500_000, now: later)
    let next = probes.poll(target: got, maximum: 2_500_000, usage: .normal, sentRate: nil, now: later)
    #expect((next != nil) == continues, "a probe that read \(share) of its rate")
    if let next { #expect(next.bitsPerSecond == 2 * got) }
}


