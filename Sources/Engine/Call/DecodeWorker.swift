import Foundation
import Synchronization
import EngineMedia
import EngineRTP

/// One remote participant's VP8 and Opus decoders (`RemoteMedia`) on a thread of their own, so that a slow decoder
/// never delays the network thread's packets, feedback or pacing. Work arrives through a bounded queue; what the
/// decoders produce (the latest picture, figures, the last half second of audio) is read under a lock by any thread.
final class DecodeWorker: Sendable {
    struct Results: Sendable {
        var video = ReceivedVideoSnapshot()
        var audio = ReceivedAudioSnapshot()
        var recentSamples: [Int16] = []
        var latestFrame: VideoFrame?
    }

    private enum Work: Sendable {
        case video(ReceivedVideoFrame)
        case audio(AudioJitterBuffer.Pull)
    }

    private struct Queue: Sendable {
        var items: [Work] = []
        var videoItems = 0
        var stopped = false
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

    /// - Parameters: `clock` gives seconds on the call's monotonic clock; `onDecodeFailed` is told (on the worker's
    ///   thread) when a frame was refused or dropped, so the call asks the sender for a keyframe.
    init(peer: RemotePeerID, playback: CallPlayback?, events: CallEventQueue, clock: @escaping @Sendable () -> Double,
         onDecodeFailed: @escaping @Sendable (String) -> Void) throws(EngineError) {
        self.peer = peer
        let media = try RemoteMedia()
        // The decoders hold C handles and live on the worker's thread only, handed over once here.
        nonisolated(unsafe) let owned = media
        let thread = Thread { [self] in
            run(owned, playback: playback, events: events, clock: clock, onDecodeFailed: onDecodeFailed)
        }
        thread.name = "call-decode"
        thread.start()
    }

    var latest: Results { results.withLock { $0 } }
    var latestFrame: VideoFrame? { results.withLock { $0.latestFrame } }

    func decode(_ frame: ReceivedVideoFrame) { submit(.video(frame)) }
    func play(_ pull: AudioJitterBuffer.Pull) { submit(.audio(pull)) }

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
                    q.items.append(.video(Self.gapMarker))
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

    private func run(_ media: RemoteMedia, playback: CallPlayback?, events: CallEventQueue, clock: @Sendable () -> Double,
                     onDecodeFailed: @Sendable (String) -> Void) {
        var shownSize: (width: Int, height: Int)?
        var waitingForKeyframe = false
        var audioSincePublish = 0
        while true {
            signal.wait()
            let (items, stopped) = queue.withLock { q in
                defer { q.items = []; q.videoItems = 0 }
                return (q.items, q.stopped)
            }
            if stopped { break }
            for item in items {
                switch item {
                case .video(let frame):
                    if frame.data.isEmpty {
                        waitingForKeyframe = true
                        onDecodeFailed("the decoder fell \(Self.maxQueuedVideo) frames behind; dropped them")
                        continue
                    }
                    if waitingForKeyframe && !frame.isKeyframe { continue }
                    waitingForKeyframe = false
                    let wall = UInt32(truncatingIfNeeded: Int64((MediaPipeline.wallClock() * 1000).rounded(.down)))
                    let decoded = media.decode(frame, now: clock(), wallMillis: wall)
                    results.withLock { $0.latestFrame = media.latestFrame; $0.video = media.video }
                    guard decoded else {
                        onDecodeFailed(media.lastDecodeError ?? "no reason")
                        continue
                    }
                    guard let picture = media.latestFrame else { continue }
                    if shownSize.map({ $0 != (picture.width, picture.height) }) ?? true {
                        shownSize = (picture.width, picture.height)
                        events.push(.videoSize(peer, width: picture.width, height: picture.height))
                    }
                case .audio(let pull):
                    if let frame = media.play(pull) { playback?.push(frame, from: peer) }
                    audioSincePublish += 1
                    if audioSincePublish >= Self.audioPublishEvery {
                        audioSincePublish = 0
                        results.withLock { $0.audio = media.audio; $0.recentSamples = media.recentSamples }
                    }
                }
            }
        }
        results.withLock { $0.audio = media.audio; $0.recentSamples = media.recentSamples; $0.video = media.video }
        // Last, on this thread: nothing of this participant reaches the speaker after it is removed.
        playback?.remove(peer)
    }
}
