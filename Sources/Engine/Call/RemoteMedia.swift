import EngineMedia
import EngineRTP
import EngineTransport
/// What one remote peer sends us, decoded and measured: a VP8 and an Opus decoder, the test card read back from
/// every picture, freezes, frame rate, and the last half second of audio for level and pitch; one per section. Owned
/// by its participant's `DecodeWorker` thread (the decoders hold C handles and are not Sendable).
final class RemoteMedia {
    private let vp8: VP8Decoder
    private let opus: OpusDecoder
    private(set) var video = ReceivedVideoSnapshot()
    private(set) var audio = ReceivedAudioSnapshot()
    private(set) var latestFrame: VideoFrame?
    private var decodeTimes: [Double] = []
    private var lastDecodeAt: Double?
    private var meanInterval: Double?
    /// Why the last refused frame was refused (a corrupt frame, an oversized keyframe), for the log.
    private(set) var lastDecodeError: String?
    /// The most recent `recentSampleCount` samples played out.
    private var recent = RecentSamples(capacity: recentSampleCount)
    var recentSamples: [Int16] { recent.samples }
    static let recentSampleCount = AudioFrame.sampleRate / 2

    init() throws(EngineError) {
        vp8 = try VP8Decoder()
        opus = try OpusDecoder()
    }

    /// Decodes one reassembled frame; false means the decoder refused it (the caller sends PLI).
    /// - Parameters: `now` monotonic seconds (frame rate, freezes); `wallMillis` the wall clock (test-card latency).
    func decode(_ frame: ReceivedVideoFrame, now: Double, wallMillis: UInt32) -> Bool {
        video.framesReceived += 1
        video.bytesReceived &+= UInt64(frame.data.count)
        let picture: VideoFrame?
        do {
            picture = try vp8.decode(frame.data, timestamp: Double(frame.rtpTimestamp) / 90_000)
        } catch {
            video.decodeFailures += 1
            lastDecodeError = error.description
            return false
        }
        guard let picture else { return true }
        video.framesDecoded += 1
        if video.firstFrameAt == nil { video.firstFrameAt = now }
        if frame.isKeyframe { video.keyframesDecoded += 1 }
        video.width = picture.width
        video.height = picture.height
        latestFrame = picture
        countFreeze(at: now)
        decodeTimes.append(now)
        decodeTimes.removeAll { $0 < now - 1 }
        video.framesPerSecond = Double(decodeTimes.count)
        if let code = TestCard.decode(picture) {
            let first = video.testCard?.first ?? code.counter
            let count = (video.testCard?.count ?? 0) + 1
            video.testCard = TestCardSeen(first: first, last: code.counter, count: count, participant: code.participant,
                                          lastLatencyMs: Double(Int32(bitPattern: wallMillis &- code.captureMillis)))
        }
        (video.lumaMean, video.lumaStdDev) = Self.lumaStatistics(picture)
        return true
    }

    /// W3C webrtc-stats §freezeCount: an inter-frame gap above max(3 × mean, mean + 150 ms).
    private func countFreeze(at now: Double) {
        defer { lastDecodeAt = now }
        guard let last = lastDecodeAt else { return }
        let interval = now - last
        if let mean = meanInterval, video.framesDecoded > 5, interval > max(3 * mean, mean + 0.150) {
            video.freezes += 1
            video.longestFreeze = max(video.longestFreeze, interval)
        }
        meanInterval = meanInterval.map { 0.9 * $0 + 0.1 * interval } ?? interval
    }

    /// Mean and standard deviation of luma on a 4×4 sampling grid: cheap, and enough to tell a picture from a flat field.
    static func lumaStatistics(_ f: VideoFrame) -> (Double, Double) {
        var sum = 0.0, sumSquares = 0.0, n = 0.0
        for y in stride(from: 0, to: f.height, by: 4) {
            for x in stride(from: 0, to: f.width, by: 4) {
                let v = Double(f.y[y * f.yStride + x])
                sum += v; sumSquares += v * v; n += 1
            }
        }
        guard n > 0 else { return (0, 0) }
        let mean = sum / n
        return (mean, max(0, sumSquares / n - mean * mean).squareRoot())
    }

    /// One 20 ms playout slot; returns the frame for the speaker (nil when the packet would not decode).
    @discardableResult
    func play(_ pull: AudioJitterBuffer.Pull) -> AudioFrame? {
        let frame: AudioFrame
        switch pull {
        case .packet(let p):
            guard let f = try? opus.decode(p) else { audio.framesConcealed += 1; return nil }
            audio.framesDecoded += 1
            frame = f
        case .recoverFromNext(let p):
            guard let f = try? opus.recover(from: p) else { audio.framesConcealed += 1; return nil }
            audio.framesDecoded += 1
            frame = f
        case .conceal:
            audio.framesConcealed += 1
            frame = (try? opus.conceal()) ?? .silence
        case .silence:
            audio.silentSlots += 1
            frame = .silence
        }
        if pull != .silence { audio.peakLevel = max(audio.peakLevel, AudioAnalysis.rmsLevel(frame.samples)) }
        recent.append(frame.samples)
        return frame
    }
}
