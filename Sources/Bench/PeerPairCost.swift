import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What one sent and one received 320x240 @15 fps VP8 + 20 ms Opus stream cost, through the real per-peer code:
/// two sans-IO `PeerConnection`s wired back to back in memory (1 ms one way, no loss), connected through real ICE
/// and DTLS, on a virtual clock that jumps from deadline to deadline so the media runs as fast as the CPU allows.
/// A only sends (the test card through the VP8 encoder, a tone through Opus, as `MediaPipeline` does); B only
/// receives and decodes (VP8 and Opus decoders, as `RemoteMedia` does). Every call into A, into B, into the
/// encoders and into the decoders is timed with this thread's CPU clock, so one run separates the per-peer
/// RTP/SRTP/ICE/jitter-buffer work from the codec work.
final class PeerPairCost {
    struct Result {
        var profile: String
        var mediaSeconds: Double
        var videoFramesEncoded = 0
        var videoFramesDecoded = 0
        var audioFramesEncoded = 0
        var audioFramesDecoded = 0
        var packetsSent: UInt64 = 0
        /// CPU seconds.
        var vp8Encode = 0.0, opusEncode = 0.0, sendPath = 0.0, receivePath = 0.0, vp8Decode = 0.0, opusDecode = 0.0
        /// Wall seconds from B taking the datagram that completes a frame to that frame decoded.
        var frameLatencies: [Double] = []
    }

    private enum Side { case a, b }

    private let addressA = TransportAddress("127.0.0.1:5000")!
    private let addressB = TransportAddress("127.0.0.1:6000")!
    private let a: PeerConnection
    private let b: PeerConnection
    private var now = TransportTime.zero
    private var deadlineA: TransportTime?
    private var deadlineB: TransportTime?
    /// In flight, in delivery order (one fixed delay keeps the order).
    private var wire: [(at: TransportTime, to: Side, transmit: Transmit)] = []
    private var wireHead = 0
    private static let oneWay: Duration = .milliseconds(1)

    private let encoder: VP8Encoder
    private let opusEncoder: OpusEncoder
    private let decoder: VP8Decoder
    private let opusDecoder: OpusDecoder
    private let card: TestCardSource
    private let captureClock = VirtualCaptureClock()
    private var tone = ToneSource(frequency: 440)
    private var keyframeWanted = true
    private var descriptions: [Side: SessionDescription] = [:]
    private var connected: Set<String> = []
    private var result: Result
    private var counting = false

    init(profile: SrtpProfile) throws {
        var configA = PeerConnection.Configuration.random(localHosts: [addressA])
        var configB = PeerConnection.Configuration.random(localHosts: [addressB])
        configA.srtpProfiles = [profile]
        configB.srtpProfiles = [profile]
        configB.sendAudio = false
        configB.sendVideo = false
        a = try PeerConnection(configuration: configA)
        b = try PeerConnection(configuration: configB)
        encoder = try VP8Encoder(width: 320, height: 240, bitrateKbps: 300, frameRate: 15)
        opusEncoder = try OpusEncoder()
        decoder = try VP8Decoder()
        opusDecoder = try OpusDecoder()
        let clock = captureClock
        card = try TestCardSource(width: 320, height: 240, participant: 3, clock: { clock.seconds })
        result = Result(profile: "\(profile)", mediaSeconds: 0)
    }

    /// Connects (not counted), then sends `seconds` of media and returns what it cost.
    func run(seconds: Double) throws -> Result {
        try negotiate()
        try advance(until: now + .seconds(10)) { [self] in connected.count == 2 }
        guard connected.count == 2 else { throw EngineError.invalidArgument("bench peers did not connect: \(a.debugDeadlines)") }
        counting = true
        let start = now
        var slot = 0
        while (now - start) < .milliseconds(Int64(seconds * 1000)) {
            let slotTime = start + .milliseconds(Int64(slot) * 20)
            try advance(until: slotTime) { false }
            now = slotTime
            try sendMediaSlot(slot)
            slot += 1
        }
        // Let the last packets arrive and decode.
        try advance(until: now + .milliseconds(100)) { false }
        result.mediaSeconds = Double(slot) * 0.020
        result.packetsSent = a.stats(now: now).packetsSent
        return result
    }

    private func negotiate() throws {
        feed(.a, .command(.createOffer))
        guard let offer = descriptions[.a] else { throw EngineError.invalidArgument("bench: no offer") }
        feed(.b, .command(.applyRemoteOffer(try SessionDescription(parsing: offer.sdpText))))
        guard let answer = descriptions[.b] else { throw EngineError.invalidArgument("bench: no answer") }
        feed(.a, .command(.applyRemoteAnswer(try SessionDescription(parsing: answer.sdpText))))
    }

    /// One 20 ms slot: an Opus frame always, a VP8 frame on 15 of every 50 slots (as the media thread paces them).
    private func sendMediaSlot(_ slot: Int) throws {
        let audio = tone.nextFrame()
        var opus: (packet: [UInt8], isDTX: Bool)?
        result.opusEncode += try cpuTime { opus = try opusEncoder.encode(audio) }
        result.audioFramesEncoded += 1
        feed(.a, .command(.sendAudio(packet: opus!.packet, isDTX: opus!.isDTX)))
        guard slot == 0 || (slot * 15) / 50 != ((slot - 1) * 15) / 50 else { return }
        captureClock.seconds = now.seconds
        let picture = try card.nextFrame()!
        var encoded: EncodedVideoFrame?
        let force = keyframeWanted
        keyframeWanted = false
        result.vp8Encode += try cpuTime { encoded = try encoder.encode(picture, forceKeyframe: force) }
        result.videoFramesEncoded += 1
        if let encoded { feed(.a, .command(.sendVideo(encoded))) }
    }

    /// Delivers datagrams and fires timers in time order up to `end` (or until `done`).
    private func advance(until end: TransportTime, done: () -> Bool) throws {
        var steps = 0
        while !done() {
            steps += 1
            guard steps < 1_000_000 else { throw EngineError.invalidArgument("bench peers did not settle at \(now)") }
            let next = [wireHead < wire.count ? wire[wireHead].at : nil, deadlineA, deadlineB].compactMap { $0 }.min()
            guard let next, next <= end else { return }
            now = max(now, next)
            while wireHead < wire.count, wire[wireHead].at <= now {
                let (_, to, t) = wire[wireHead]
                wireHead += 1
                feed(to, .datagram(from: t.from, to: t.to, bytes: t.bytes))
            }
            if wireHead > 4096 { wire.removeFirst(wireHead); wireHead = 0 }
            if let d = deadlineA, d <= now { deadlineA = nil; feed(.a, .timeout) }
            if let d = deadlineB, d <= now { deadlineB = nil; feed(.b, .timeout) }
        }
    }

    private func feed(_ side: Side, _ input: PeerConnection.Input) {
        let started = MonotonicClock.now()
        var output: PeerConnection.Output?
        let cpu = cpuTime { output = (side == .a ? a : b).handle(input, now: now) }
        let out = output!
        if counting {
            if side == .a { result.sendPath += cpu } else { result.receivePath += cpu }
        }
        for t in out.transmits {
            let to: Side? = t.to == addressA ? .a : t.to == addressB ? .b : nil
            if let to { wire.append((now + Self.oneWay, to, t)) }
        }
        if side == .a { deadlineA = out.deadline } else { deadlineB = out.deadline }
        for event in out.events {
            switch event {
            case .localDescription(let sd, _): descriptions[side] = sd
            case .stateChanged(.connected, _): connected.insert(side == .a ? "A" : "B")
            case .keyframeRequested where side == .a: keyframeWanted = true
            case .videoFrame(_, let frame) where side == .b:
                var ok = true
                let cpu = cpuTime { ok = (try? decoder.decode(frame.data, timestamp: Double(frame.rtpTimestamp) / 90_000)) != nil }
                guard counting else { continue }
                result.vp8Decode += cpu
                if ok { result.videoFramesDecoded += 1 }
                // Only a datagram can complete a frame on a lossless wire; timers never hold one back.
                if case .datagram = input { result.frameLatencies.append(MonotonicClock.now() - started) }
            case .audio(_, let pull) where side == .b:
                let cpu = cpuTime {
                    switch pull {
                    case .packet(let p): _ = try? opusDecoder.decode(p)
                    case .recoverFromNext(let p): _ = try? opusDecoder.recover(from: p)
                    case .conceal: _ = try? opusDecoder.conceal()
                    case .silence: break
                    }
                }
                guard counting else { continue }
                result.opusDecode += cpu
                if case .packet = pull { result.audioFramesDecoded += 1 }
            default: break
            }
        }
    }
}

/// The capture time the test card stamps: the bench's virtual clock, set by the one bench thread before each frame.
final class VirtualCaptureClock: Sendable {
    private let value = Mutex(0.0)
    var seconds: Double {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
