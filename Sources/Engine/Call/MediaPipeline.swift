import Foundation
import Synchronization
import EngineMedia
import EngineRTP
import EngineTransport

/// Encoded media ready to be packetized for every peer.
public enum EncodedMedia: Sendable {
    /// A frame of one of the (at most two) encodings of the same picture (`EncodingPlan`).
    case video(EncodedVideoFrame, layer: EncodingPlan.Layer)
    case audio(packet: [UInt8], isDTX: Bool)
}

/// What a call sends as its microphone.
public enum MicrophoneChoice: Sendable, Equatable {
    /// A sine tone at `hz` (what `conftui bot --tone` sends; 0 sends digital silence).
    case tone(hz: Double)
    /// ALSA capture from `name` (`default`, `hw:1,0`, `plughw:...`). When it cannot be opened (no sound card, e.g. over
    /// SSH), a `fallbackToneHz` tone is sent instead, or digital silence when that is 0; `LocalMediaSnapshot.audioInputNote`
    /// says which and why.
    case device(name: String, fallbackToneHz: Double)
    /// A synthetic talker saying `script` (`SpeechSource`; the demo's participants). A `face` camera in the same call
    /// moves its mouth from the same script, so the picture and the sound agree.
    case speech(SpeechScript)
    /// No audio at all: no Opus packets leave, and the call offers/answers audio as recvonly (RFC 3264 §5.1), so
    /// peers know there is no stream to wait for; their audio is still received.
    case none

    /// The script a `.speech` microphone says (nil for the others): the `face` camera's mouth follows it.
    public var speechScript: SpeechScript? {
        if case .speech(let script) = self { return script }
        return nil
    }
}

/// The local media of a call: one video source (switchable) and one microphone, **VP8 and Opus encoders shared by all
/// peers** (encode once, packetize per peer): one VP8 encoding, or two at different rates when the call's
/// `EncodingPlan` splits the peers (each frame is then encoded twice, the low encoding only while it is asked for). Video runs on the media thread, paced by the source's frame rate; audio
/// runs on its own thread, paced by the capture device (which blocks 20 ms per read) or, for a tone, by the clock, so a
/// slow video frame never delays the microphone and vice versa. Both hand encoded media to the event thread through a
/// bounded queue that drops the oldest entries.
public final class MediaPipeline: Sendable {
    public struct Options: Sendable {
        public var camera = "card"
        public var width = 320
        public var height = 240
        public var frameRate = 15.0
        /// The microphone; a 440 Hz tone by default (what `conftui bot` sends).
        public var audioInput = MicrophoneChoice.tone(hz: 440)
        /// Picks the test card's colour and the face's looks.
        public var participant: UInt8 = 0
        /// The name the test card and the face draw large (nil: none), so a demo tile reads as a person first.
        public var displayName: String?
        public var videoBitrateKbps = 300
        public init() {}

        /// The tone's frequency when the microphone is a tone (the fallback tone for a device, 0 for none). Setting it
        /// makes the microphone that tone: kept so `options.media.toneHz = 660` (bot, tests) still reads as it says.
        public var toneHz: Double {
            get {
                switch audioInput {
                case .tone(let hz): return hz
                case .device(_, let fallback): return fallback
                case .speech, .none: return 0
                }
            }
            set { audioInput = .tone(hz: newValue) }
        }
    }

    public let options: Options
    private let muted = Atomic<Bool>(false)
    private let videoEnabled = Atomic<Bool>(true)
    /// One bit per layer (`EncodingPlan.Layer.bit`): the next frame of that encoding is a keyframe.
    private let keyframeWanted = Atomic<Int>(0b11)
    private let switchRequests = Atomic<Int>(0)
    /// The encodings' bitrates in kbps, set by the call's `EncodingPlan` (full: 0 keeps the configured one; low: 0 is
    /// no low encoding).
    private let bitrateKbps = Atomic<Int>(0)
    private let lowBitrateKbps = Atomic<Int>(0)
    /// One bit per layer, like `keyframeWanted`: that encoding is not made (`pauseLayers`, nobody takes it).
    private let pausedLayers = Atomic<Int>(0)
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
    /// Called after mute, video on/off or the source changed, with the state now applied (any thread).
    private let onLocalChange: @Sendable (LocalMediaState) -> Void
    static let queueLimit = 64
    /// The opened microphone, handed over to the audio thread when it starts (and closed when that ends: a pipeline
    /// runs once). Opened in `init` so the note (device or fallback) is known before the call starts.
    private let microphone: Mutex<AudioInput?>
    /// `finished` is the video thread's; this one the audio thread's (true when there is none, `.none`).
    private let audioFinished = Mutex<Bool>(true)

    public init(options: Options, onMedia: @escaping @Sendable () -> Void,
                onLocalChange: @escaping @Sendable (LocalMediaState) -> Void = { _ in }) throws(EngineError) {
        self.options = options
        self.onMedia = onMedia
        self.onLocalChange = onLocalChange
        // Open once here so a bad --camera fails the command, not a thread later.
        _ = try SourceCatalog.open(options.camera, width: options.width, height: options.height, frameRate: options.frameRate,
                                   participant: options.participant, displayName: options.displayName,
                                   speech: options.audioInput.speechScript, clock: MediaPipeline.wallClock)
        let (input, note) = Self.openMicrophone(options.audioInput)
        let toneHz = Self.toneHz(of: input)
        microphone = Mutex(input)
        counters = Mutex(LocalMediaSnapshot(source: options.camera, toneHz: toneHz, muted: false, videoEnabled: true,
                                            videoBitrateKbps: options.videoBitrateKbps, videoFramesEncoded: 0, keyframesEncoded: 0,
                                            audioFramesEncoded: 0, audioDTXFrames: 0, audioInputNote: note, inputLevel: 0))
    }

    static func openMicrophone(_ choice: MicrophoneChoice) -> (AudioInput?, String) {
        switch choice {
        case .tone(let hz): return AudioInput.open(device: nil, fallbackTone: hz)
        case .device(let name, let fallback): return AudioInput.open(device: name, fallbackTone: fallback)
        case .speech(let script):
            return (.speech(SpeechSource(script: script, clock: MediaPipeline.wallClock)),
                    "microphone: synthetic speech (seat \(script.seat + 1) of \(script.seats), \(Int(script.pitchHz)) Hz voice)")
        case .none: return (nil, "microphone: none (no audio sent)")
        }
    }

    static func toneHz(of input: AudioInput?) -> Double {
        if case .tone(let tone) = input { return tone.frequency }
        return 0
    }

    static func isDevice(_ input: AudioInput) -> Bool {
        if case .device = input { return true }
        return false
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
            runVideo()
            finished.withLock { $0 = true }
        }
        thread.name = "call-media"
        thread.start()
        guard options.audioInput != .none else { return }
        audioFinished.withLock { $0 = false }
        let audio = Thread { [self] in
            runAudio()
            audioFinished.withLock { $0 = true }
        }
        audio.name = "call-audio"
        audio.start()
    }

    /// Stops the threads and waits (up to 2 s) for them to end.
    public func stop() {
        running.store(false, ordering: .releasing)
        for _ in 0..<200 where !(finished.withLock({ $0 }) && audioFinished.withLock({ $0 })) { usleep(10_000) }
    }

    public func setMuted(_ on: Bool) {
        muted.store(on, ordering: .relaxed)
        onLocalChange(counters.withLock { $0.muted = on; return $0.localState })
    }

    public func setVideoEnabled(_ on: Bool) {
        videoEnabled.store(on, ordering: .relaxed)
        if on { keyframeWanted.bitwiseOr(0b11, ordering: .relaxed) }
        onLocalChange(counters.withLock { $0.videoEnabled = on; return $0.localState })
    }

    /// Mute, video and source as applied now.
    public var localState: LocalMediaState { counters.withLock { $0.localState } }

    /// Any number of requests before the next frame make one keyframe of that encoding (coalesced across peers).
    public func requestKeyframe(layer: EncodingPlan.Layer = .full) { keyframeWanted.bitwiseOr(layer.bit, ordering: .relaxed) }
    public func switchSource() { switchRequests.add(1, ordering: .relaxed) }
    /// Stops or resumes making each simulcast encoding (`SimulcastDemand`: nobody in a forwarding server's room takes
    /// it). A resumed encoding starts at a keyframe (`runVideo`): its receivers' decoders have nothing to refer to.
    public func pauseLayers(full: Bool, low: Bool) {
        let paused = (full ? EncodingPlan.Layer.full.bit : 0) | (low ? EncodingPlan.Layer.low.bit : 0)
        let before = pausedLayers.exchange(paused, ordering: .relaxed)
        // A subscriber the server had on the encoding that stops moves to the other only at one of its keyframes
        // (Janus switches layers at keyframes, and falls back on its own only from the higher one).
        if paused & ~before != 0 { keyframeWanted.bitwiseOr(0b11 & ~paused, ordering: .relaxed) }
        counters.withLock {
            $0.pausedVideoLayers = EncodingPlan.Layer.allCases.filter { paused & $0.bit != 0 }.map { "\($0)" }
        }
    }

    /// The encodings' rates (`EncodingPlan`), within the configured maximum; `lowKbps` nil stops the low encoding.
    public func setVideoBitrates(fullKbps: Int, lowKbps: Int?) {
        let top = options.videoBitrateKbps, bottom = EncodingPlan.minimumKbps
        bitrateKbps.store(max(bottom, min(fullKbps, top)), ordering: .relaxed)
        lowBitrateKbps.store(lowKbps.map { max(bottom, min($0, top)) } ?? 0, ordering: .relaxed)
    }

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

    /// The low encoding is half the width and height: a quarter of the pixels, so its keyframes (the bursts a slow
    /// link chokes on, and which its receiver asks for again whenever one is lost) are about a quarter the size.
    static func lowSize(_ full: Int) -> Int { max(16, full / 2 / 2 * 2) }

    private func encode(_ frame: VideoFrame, with encoder: VP8Encoder, layer: EncodingPlan.Layer) {
        let bit = layer.bit
        let force = keyframeWanted.bitwiseAnd(~bit, ordering: .relaxed).oldValue & bit != 0
        guard let encoded = try? encoder.encode(frame, forceKeyframe: force) else { return }
        // The statistics describe the full encoding (what the screen shows as "you send"), or the low one while the
        // full one is paused.
        if layer == .full || pausedLayers.load(ordering: .relaxed) & EncodingPlan.Layer.full.bit != 0 {
            counters.withLock {
                $0.videoFramesEncoded += 1; $0.videoBytesEncoded += UInt64(encoded.data.count)
                if encoded.isKeyframe { $0.keyframesEncoded += 1 }
            }
        }
        push(.video(encoded, layer: layer))
    }

    private func push(_ item: EncodedMedia) {
        queue.withLock { q in
            q.append(item)
            if q.count > Self.queueLimit { q.removeFirst(q.count - Self.queueLimit) }
        }
        onMedia()
    }

    /// The audio thread: capture (or tone) → level → mute → Opus → queue, one 20 ms frame per turn.
    private func runAudio() {
        let opus: OpusEncoder
        do {
            opus = try OpusEncoder()
        } catch {
            failure.withLock { $0 = "media: \(error)" }
            return
        }
        guard var input = microphone.withLock({ $0.take() }) else { return }
        let origin = MonotonicClock.now()
        func now() -> Double { MonotonicClock.now() - origin }
        // A capture device's own buffer (AlsaPCM's 60 ms) is the slack it may run ahead of the clock.
        var pacer = FramePacer(lead: Self.isDevice(input) ? 0.06 : 0)
        var mutedInDTX = false
        while running.load(ordering: .acquiring) {
            let wasDevice = Self.isDevice(input)
            let captured = input.nextFrame()   // a device blocks here for up to 20 ms
            if wasDevice, !Self.isDevice(input) {
                counters.withLock { $0.audioInputNote = "microphone: silence (the ALSA device stopped delivering audio)" }
            }
            // The source keeps running while muted (a tone keeps its phase, a device keeps being drained); muted frames
            // are digital silence, which Opus DTX skips.
            let isMuted = muted.load(ordering: .relaxed)
            let level = isMuted ? 0 : AudioAnalysis.rmsLevel(captured.samples)
            // Once the encoder has gone quiet on a muted microphone (DTX), the rest of the mute is DTX without asking
            // it: encoding 50 frames of digital silence a second cost a participant more CPU than its own video did
            // (docs/call.md, "Audio"). The packetizer still counts each frame, so timestamps keep pace with time.
            let encoded: (packet: [UInt8], isDTX: Bool)? = isMuted && mutedInDTX ? ([], true)
                : try? opus.encode(isMuted ? .silence : captured)
            if let (packet, isDTX) = encoded {
                mutedInDTX = isMuted && isDTX
                counters.withLock {
                    $0.audioFramesEncoded += 1
                    if isDTX { $0.audioDTXFrames += 1 }
                    $0.inputLevel = level
                }
                push(.audio(packet: packet, isDTX: isDTX))
            }
            let pause = pacer.pause(now: now())
            if pause > 0 { usleep(UInt32(min(pause, 0.05) * 1e6)) }
        }
        counters.withLock { $0.inputLevel = 0 }
    }

    /// The video thread: source → VP8 → queue, paced by the frame rate.
    private func runVideo() {
        let o = options
        let switcher: SourceSwitcher
        let vp8: VP8Encoder
        do {
            let cameras = V4L2Camera.list().map(\.path)
            var entries: [SourceSwitcher.Entry] = []
            for name in SourceCatalog.switchOrder(initial: o.camera, cameras: cameras) {
                if let source = try? SourceCatalog.open(name, width: o.width, height: o.height, frameRate: o.frameRate,
                                                        participant: o.participant, displayName: o.displayName,
                                                        speech: o.audioInput.speechScript, clock: MediaPipeline.wallClock) {
                    entries.append(.init(name: name, source: source))
                }
            }
            let start = entries.firstIndex { $0.name == SourceCatalog.resolve(o.camera, cameras: cameras) } ?? 0
            switcher = try SourceSwitcher(entries: entries, width: o.width, height: o.height, startAt: start, clock: MediaPipeline.wallClock)
            vp8 = try VP8Encoder(width: o.width, height: o.height, bitrateKbps: o.videoBitrateKbps, frameRate: Int(o.frameRate.rounded()))
        } catch {
            failure.withLock { $0 = "media: \(error)" }
            return
        }
        counters.withLock { $0.source = switcher.currentName }
        sources.withLock { $0 = switcher.entries.map(\.name) }
        let origin = MonotonicClock.now()
        func now() -> Double { MonotonicClock.now() - origin }
        let videoInterval = 1 / o.frameRate
        var nextVideo = 0.0
        var switchesSeen = 0
        var bitrateInUse = o.videoBitrateKbps
        // The low encoding's encoder exists while the plan asks for it (a fresh one starts with a keyframe).
        var low: (encoder: VP8Encoder, kbps: Int)?
        var skipped = (full: false, low: false)
        while running.load(ordering: .acquiring) {
            let t = now()
            if t >= nextVideo {
                let requested = switchRequests.load(ordering: .relaxed)
                if requested != switchesSeen {
                    switchesSeen = requested
                    let name = switcher.next()
                    onLocalChange(counters.withLock { $0.source = name; return $0.localState })
                }
                let wanted = bitrateKbps.load(ordering: .relaxed)
                if wanted > 0, wanted != bitrateInUse {
                    vp8.setBitrate(kbps: wanted)
                    bitrateInUse = wanted
                    counters.withLock { $0.videoBitrateKbps = wanted }
                }
                let wantedLow = lowBitrateKbps.load(ordering: .relaxed)
                if wantedLow == 0 {
                    low = nil
                } else if low == nil {
                    low = (try? VP8Encoder(width: Self.lowSize(o.width), height: Self.lowSize(o.height), bitrateKbps: wantedLow,
                                           frameRate: Int(o.frameRate.rounded()))).map { ($0, wantedLow) }
                    requestKeyframe(layer: .low)
                } else if low!.kbps != wantedLow {
                    low!.encoder.setBitrate(kbps: wantedLow)
                    low!.kbps = wantedLow
                }
                counters.withLock { $0.lowVideoBitrateKbps = low?.kbps }
                if !videoEnabled.load(ordering: .relaxed) {
                    localFrame.withLock { $0 = nil }
                } else if let frame = try? switcher.nextFrame() {
                    localFrame.withLock { $0 = frame }
                    // The full encoding pauses only while a low one is made: a call without simulcast always sends it.
                    // An encoding that skipped frames starts again at a keyframe.
                    let paused = pausedLayers.load(ordering: .relaxed)
                    if paused & EncodingPlan.Layer.full.bit == 0 || low == nil {
                        if skipped.full { requestKeyframe(layer: .full) }
                        encode(frame, with: vp8, layer: .full)
                        skipped.full = false
                    } else {
                        skipped.full = true
                    }
                    if let low, paused & EncodingPlan.Layer.low.bit == 0 {
                        if skipped.low { requestKeyframe(layer: .low) }
                        if let small = try? I420Scaler.scale(frame, width: Self.lowSize(o.width), height: Self.lowSize(o.height)) {
                            encode(small, with: low.encoder, layer: .low)
                        }
                        skipped.low = false
                    } else {
                        skipped.low = true
                    }
                }
                nextVideo += videoInterval
                if t - nextVideo > 0.2 { nextVideo = t + videoInterval }
            }
            let wait = nextVideo - now()
            if wait > 0 { usleep(UInt32(min(wait, 0.05) * 1e6)) }
        }
    }
}
