import Foundation
import Synchronization

/// Encoded media ready to be packetized for every peer.
public enum EncodedMedia: Sendable {
    case video(EncodedVideoFrame)
    case audio(packet: [UInt8], isDTX: Bool)
}

/// The local media of a call: one video source (switchable), one tone, **one VP8 and one Opus encoder shared by all
/// peers** (encode once, packetize per peer). Runs on its own thread, paced by the source's frame rate and the 20 ms
/// Opus frame; hands encoded media to the event thread through a bounded queue that drops the oldest entries.
public final class MediaPipeline: Sendable {
    public struct Options: Sendable {
        public var camera = "card"
        public var width = 320
        public var height = 240
        public var frameRate = 15.0
        public var toneHz = 440.0
        /// Picks the test card's colour.
        public var participant: UInt8 = 0
        public var videoBitrateKbps = 300
        public init() {}
    }

    public let options: Options
    private let muted = Atomic<Bool>(false)
    private let videoEnabled = Atomic<Bool>(true)
    private let keyframeWanted = Atomic<Bool>(true)
    private let switchRequests = Atomic<Int>(0)
    /// The encoder's bitrate in kbps, set by the call from the most constrained peer (0: keep the configured one).
    private let bitrateKbps = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    private let queue = Mutex<[EncodedMedia]>([])
    private let counters: Mutex<LocalMediaSnapshot>
    private let failure = Mutex<String?>(nil)
    /// The last captured frame, for the sender's own tile (a preview of what the others see, before encoding).
    private let localFrame = Mutex<VideoFrame?>(nil)
    private let sources = Mutex<[String]>([])
    private let finished = Mutex<Bool>(true)
    /// Called after media was queued (the call wakes its event thread).
    private let onMedia: @Sendable () -> Void
    static let queueLimit = 64

    public init(options: Options, onMedia: @escaping @Sendable () -> Void) throws(EngineError) {
        self.options = options
        self.onMedia = onMedia
        // Open once here so a bad --camera fails the command, not a thread later.
        _ = try SourceCatalog.open(options.camera, width: options.width, height: options.height, frameRate: options.frameRate,
                                   participant: options.participant, clock: MediaPipeline.wallClock)
        counters = Mutex(LocalMediaSnapshot(source: options.camera, toneHz: options.toneHz, muted: false, videoEnabled: true,
                                            videoBitrateKbps: options.videoBitrateKbps, videoFramesEncoded: 0, keyframesEncoded: 0,
                                            audioFramesEncoded: 0, audioDTXFrames: 0))
    }

    @Sendable public static func wallClock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.withLock { $0 = false }
        let thread = Thread { [self] in
            run()
            finished.withLock { $0 = true }
        }
        thread.name = "call-media"
        thread.start()
    }

    /// Stops the thread and waits (up to 2 s) for it to end.
    public func stop() {
        running.store(false, ordering: .releasing)
        for _ in 0..<200 where !finished.withLock({ $0 }) { usleep(10_000) }
    }

    public func setMuted(_ on: Bool) {
        muted.store(on, ordering: .relaxed)
        counters.withLock { $0.muted = on }
    }

    public func setVideoEnabled(_ on: Bool) {
        videoEnabled.store(on, ordering: .relaxed)
        if on { keyframeWanted.store(true, ordering: .relaxed) }
        counters.withLock { $0.videoEnabled = on }
    }

    /// Any number of requests before the next frame make one keyframe (coalesced across peers).
    public func requestKeyframe() { keyframeWanted.store(true, ordering: .relaxed) }
    public func switchSource() { switchRequests.add(1, ordering: .relaxed) }
    /// One encoder serves every peer, so it runs at the rate the weakest link allows (mesh trade-off).
    public func setVideoBitrate(kbps: Int) { bitrateKbps.store(max(30, min(kbps, options.videoBitrateKbps)), ordering: .relaxed) }

    public func drain() -> [EncodedMedia] { queue.withLock { q in defer { q = [] }; return q } }
    public var snapshot: LocalMediaSnapshot { counters.withLock { $0 } }
    public var error: String? { failure.withLock { $0 } }
    /// The last captured frame (nil before the first, and after video was turned off).
    public var latestLocalFrame: VideoFrame? { localFrame.withLock { $0 } }
    /// The sources `switchSource()` cycles through, in order (known once the media thread has opened them).
    public var sourceOrder: [String] { sources.withLock { $0 } }
    /// The source the next `switchSource()` moves to, if there is another one.
    public var nextSourceName: String? {
        let order = sourceOrder, current = snapshot.source
        guard order.count > 1, let i = order.firstIndex(of: current) else { return nil }
        return order[(i + 1) % order.count]
    }

    private func push(_ item: EncodedMedia) {
        queue.withLock { q in
            q.append(item)
            if q.count > Self.queueLimit { q.removeFirst(q.count - Self.queueLimit) }
        }
        onMedia()
    }

    private func run() {
        let o = options
        let switcher: SourceSwitcher
        let vp8: VP8Encoder
        let opus: OpusEncoder
        do {
            let cameras = V4L2Camera.list().map(\.path)
            var entries: [SourceSwitcher.Entry] = []
            for name in SourceCatalog.switchOrder(initial: o.camera, cameras: cameras) {
                if let source = try? SourceCatalog.open(name, width: o.width, height: o.height, frameRate: o.frameRate,
                                                        participant: o.participant, clock: MediaPipeline.wallClock) {
                    entries.append(.init(name: name, source: source))
                }
            }
            let start = entries.firstIndex { $0.name == SourceCatalog.resolve(o.camera, cameras: cameras) } ?? 0
            switcher = try SourceSwitcher(entries: entries, width: o.width, height: o.height, startAt: start, clock: MediaPipeline.wallClock)
            vp8 = try VP8Encoder(width: o.width, height: o.height, bitrateKbps: o.videoBitrateKbps, frameRate: Int(o.frameRate.rounded()))
            opus = try OpusEncoder()
        } catch {
            failure.withLock { $0 = "media: \(error)" }
            return
        }
        counters.withLock { $0.source = switcher.currentName }
        sources.withLock { $0 = switcher.entries.map(\.name) }
        var tone = ToneSource(frequency: o.toneHz)
        let clock = ContinuousClock()
        let origin = clock.now
        func now() -> Double { let d = clock.now - origin; return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let videoInterval = 1 / o.frameRate, audioInterval = AudioFrame.duration
        var nextVideo = 0.0, nextAudio = 0.0
        var switchesSeen = 0
        var bitrateInUse = o.videoBitrateKbps
        while running.load(ordering: .acquiring) {
            let t = now()
            if t >= nextAudio {
                // The tone keeps its phase while muted; muted frames are digital silence, which Opus DTX skips.
                let toneFrame = tone.nextFrame()
                let frame = muted.load(ordering: .relaxed) ? AudioFrame.silence : toneFrame
                if let (packet, isDTX) = try? opus.encode(frame) {
                    counters.withLock { $0.audioFramesEncoded += 1; if isDTX { $0.audioDTXFrames += 1 } }
                    push(.audio(packet: packet, isDTX: isDTX))
                }
                nextAudio += audioInterval
                if t - nextAudio > 0.2 { nextAudio = t + audioInterval }   // fell behind: do not burst
            }
            if t >= nextVideo {
                let requested = switchRequests.load(ordering: .relaxed)
                if requested != switchesSeen {
                    switchesSeen = requested
                    let name = switcher.next()
                    counters.withLock { $0.source = name }
                }
                let wanted = bitrateKbps.load(ordering: .relaxed)
                if wanted > 0, wanted != bitrateInUse {
                    vp8.setBitrate(kbps: wanted)
                    bitrateInUse = wanted
                    counters.withLock { $0.videoBitrateKbps = wanted }
                }
                if !videoEnabled.load(ordering: .relaxed) {
                    localFrame.withLock { $0 = nil }
                } else if let frame = try? switcher.nextFrame() {
                    localFrame.withLock { $0 = frame }
                    let force = keyframeWanted.exchange(false, ordering: .relaxed)
                    if let encoded = try? vp8.encode(frame, forceKeyframe: force) {
                        counters.withLock { $0.videoFramesEncoded += 1; if encoded.isKeyframe { $0.keyframesEncoded += 1 } }
                        push(.video(encoded))
                    }
                }
                nextVideo += videoInterval
                if t - nextVideo > 0.2 { nextVideo = t + videoInterval }
            }
            let wait = min(nextAudio, nextVideo) - now()
            if wait > 0 { usleep(UInt32(min(wait, 0.05) * 1e6)) }
        }
    }
}
