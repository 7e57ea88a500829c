import Foundation
import Synchronization
import EngineMedia
import EngineRTP

/// One remote participant's VP8 and Opus decoders (a `RemoteMedia` per section, keyed by mid) on a thread of their
/// own, so that a slow decoder never delays the network thread's packets, feedback or pacing. Work arrives through a
/// bounded queue; what the decoders produce (the latest pictures, figures, the last half second of audio) is read
/// under a lock by any thread. The participant's first video section and first audio section are its main ones:
/// their figures are the participant's, and only the main audio is played (a second audio section would be a
/// second voice of the same tile, which the speaker does not mix yet).
final class DecodeWorker: Sendable {
    struct Results: Sendable {
        var video = ReceivedVideoSnapshot()
        var audio = ReceivedAudioSnapshot()
        var recentSamples: [Int16] = []
        var latestFrame: VideoFrame?
        /// Every video section's latest picture and figures, by mid.
        var frames: [String: VideoFrame] = [:]
        var videoStreams: [String: ReceivedVideoSnapshot] = [:]
    }

    private enum Work: Sendable {
        case video(mid: String, ReceivedVideoFrame)
        case audio(mid: String, AudioJitterBuffer.Pull)
    }

    private struct Queue: Sendable {
        var items: [Work] = []
        var videoItems = 0
        var stopped = false
        /// The main video section as the call negotiated it (the first in m= order), once told.
        var mainVideo: String?
    }

    /// Frames waiting beyond this (a second at 30 fps) mean the decoder cannot keep up: the queued ones are dropped,
    /// and the decoder waits for a keyframe (the deltas after a gap refer to frames it never saw).
    static let maxQueuedVideo = 30
    /// Audio slots waiting beyond this (200 ms) are dropped oldest first: late audio is worse than a gap.
    static let maxQueuedAudio = 10
    /// How often the audio figures and samples are published: a copy of half a second of samples per frame would
    /// cost more than the decode.
    static let audioPublishEvery = 10

    let peer: RemotePeerID
    private let queue = Mutex(Queue())
    private let results = Mutex(Results())
    private let signal = DispatchSemaphore(value: 0)

    /// Sections decoded at most: an SFU subscription's (`RemoteInputLimits.mediaSections`).
    static let maxSections = RemoteInputLimits.mediaSections

    /// - Parameters: `clock` gives seconds on the call's monotonic clock; `onDecodeFailed` is told (on the worker's
    ///   thread) when a section's frame was refused or dropped, with the mid and why, so the call asks for a keyframe.
    init(peer: RemotePeerID, playback: CallPlayback?, events: CallEventQueue, clock: @escaping @Sendable () -> Double,
         onDecodeFailed: @escaping @Sendable (String, String) -> Void) {
        self.peer = peer
        let thread = Thread { [self] in
            run(playback: playback, events: events, clock: clock, onDecodeFailed: onDecodeFailed)
        }
        thread.name = "call-decode"
        thread.start()
    }

    var latest: Results { results.withLock { $0 } }
    var latestFrame: VideoFrame? { results.withLock { $0.latestFrame } }
    func latestFrame(mid: String) -> VideoFrame? { results.withLock { $0.frames[mid] } }

    func decode(_ frame: ReceivedVideoFrame, mid: String) { submit(.video(mid: mid, frame)) }

    /// The participant's video sections changed: the first is its main one (until told, the first decoded is).
    func setVideoSections(_ mids: [String]) { queue.withLock { $0.mainVideo = mids.first } }
    func play(_ pull: AudioJitterBuffer.Pull, mid: String) { submit(.audio(mid: mid, pull)) }

    /// Ends the thread after the item it is on; the participant's audio leaves the speaker then.
    func stop() {
        queue.withLock { $0.stopped = true }
        signal.signal()
    }

    private func submit(_ work: Work) {
        queue.withLock { q in
            guard !q.stopped else { return }
            switch work {
            case .video:
                if q.videoItems >= Self.maxQueuedVideo {
                    q.items.removeAll { if case .video = $0 { true } else { false } }
                    q.items.append(.video(mid: "", Self.gapMarker))
                    q.videoItems = 1
                }
                q.videoItems += 1
            case .audio:
                if q.items.count - q.videoItems >= Self.maxQueuedAudio,
                   let oldest = q.items.firstIndex(where: { if case .audio = $0 { true } else { false } }) {
                    q.items.remove(at: oldest)
                }
            }
            q.items.append(work)
        }
        signal.signal()
    }

    /// Stands for frames dropped from the queue: the decoder treats it as a refused frame (and waits for a keyframe).
    private static let gapMarker = ReceivedVideoFrame(data: [], isKeyframe: false, rtpTimestamp: 0)

    private func run(playback: CallPlayback?, events: CallEventQueue, clock: @Sendable () -> Double,
                     onDecodeFailed: @Sendable (String, String) -> Void) {
        var decoders: [String: RemoteMedia] = [:]
        var mainVideo: String?, mainAudio: String?
        var shownSizes: [String: (width: Int, height: Int)] = [:]
        var waitingForKeyframe: Set<String> = []
        var audioSincePublish = 0
        func media(_ mid: String) -> RemoteMedia? {
            if let m = decoders[mid] { return m }
            guard decoders.count < Self.maxSections, let m = try? RemoteMedia() else { return nil }
            decoders[mid] = m
            return m
        }
        while true {
            signal.wait()
            let (items, stopped, negotiatedMain) = queue.withLock { q in
                defer { q.items = []; q.videoItems = 0 }
                return (q.items, q.stopped, q.mainVideo)
            }
            if stopped { break }
            if let negotiatedMain, negotiatedMain != mainVideo {
                // The sizes are told again under the right event (`videoSize` for the main picture).
                (mainVideo, shownSizes) = (negotiatedMain, [:])
            }
            for item in items {
                switch item {
                case .video(let mid, let frame):
                    if frame.data.isEmpty {
                        // Frames were dropped from the queue: every video section waits for a keyframe.
                        waitingForKeyframe.formUnion(decoders.keys)
                        for mid in decoders.keys.sorted() { onDecodeFailed(mid, "the decoder fell \(Self.maxQueuedVideo) frames behind; dropped them") }
                        continue
                    }
                    if waitingForKeyframe.contains(mid) && !frame.isKeyframe { continue }
                    waitingForKeyframe.remove(mid)
                    guard let decoder = media(mid) else { continue }
                    let main = mainVideo ?? mid
                    mainVideo = main
                    let wall = UInt32(truncatingIfNeeded: Int64((MediaPipeline.wallClock() * 1000).rounded(.down)))
                    let decoded = decoder.decode(frame, now: clock(), wallMillis: wall)
                    results.withLock {
                        $0.frames[mid] = decoder.latestFrame
                        $0.videoStreams[mid] = decoder.video
                        if mid == main { $0.latestFrame = decoder.latestFrame; $0.video = decoder.video }
                    }
                    guard decoded else {
                        onDecodeFailed(mid, decoder.lastDecodeError ?? "no reason")
                        continue
                    }
                    guard let picture = decoder.latestFrame, shownSizes[mid].map({ $0 != (picture.width, picture.height) }) ?? true
                    else { continue }
                    shownSizes[mid] = (picture.width, picture.height)
                    events.push(mid == main ? .videoSize(peer, width: picture.width, height: picture.height)
                                            : .streamVideoSize(peer, mid: mid, width: picture.width, height: picture.height))
                case .audio(let mid, let pull):
                    guard let decoder = media(mid) else { continue }
                    let main = mainAudio ?? mid
                    mainAudio = main
                    let frame = decoder.play(pull)
                    guard mid == main else { continue }
                    if let frame { playback?.push(frame, from: peer) }
                    audioSincePublish += 1
                    if audioSincePublish >= Self.audioPublishEvery {
                        audioSincePublish = 0
                        results.withLock { $0.audio = decoder.audio; $0.recentSamples = decoder.recentSamples }
                    }
                }
            }
        }
        if let main = mainAudio.flatMap({ decoders[$0] }) {
            results.withLock { $0.audio = main.audio; $0.recentSamples = main.recentSamples }
        }
        // Last, on this thread: nothing of this participant reaches the speaker after it is removed.
        playback?.remove(peer)
    }
}
