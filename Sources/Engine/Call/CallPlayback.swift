import Foundation
import Synchronization
import EngineMedia

/// Where a call plays the audio of the others.
public enum PlaybackChoice: Sendable, Equatable {
    /// Nothing is played: each peer's audio is decoded for the snapshot's level and frequency only (`conftui bot`).
    case none
    /// ALSA playback on this device (`default`, `hw:0,0`, `plughw:...`); when it cannot be opened, the null sink,
    /// with `PlaybackSnapshot.note` saying why.
    case device(String)
    /// The mix is made and measured every 20 ms but goes nowhere (no sound card; meters still work).
    case nullSink
}

/// The speaker of a call: one playback thread that every 20 ms takes one frame from each peer's `PlaybackQueue`, mixes
/// them (`AudioMixer`, saturating) and writes the mix to the `AudioOutput`. Each participant's decode thread
/// (`DecodeWorker`) feeds its queue (`push(_:from:)`), so neither decoding nor the device ever blocks the network. A device paces the thread by blocking in write; the null sink is paced by the clock (`FramePacer`).
public final class CallPlayback: Sendable {
    public let choice: PlaybackChoice
    private let queues = Mutex<[RemotePeerID: PlaybackQueue]>([:])
    /// Underruns and drops of queues whose peer has left, so the totals never go down.
    private let retired = Mutex<(underruns: Int, dropped: Int)>((0, 0))
    private let published: Mutex<Published>
    private let running = Atomic<Bool>(false)
    private let threadsRunning = Atomic<Int>(0)
    /// The opened output, handed over to the playback thread when it starts (closed when that ends: it runs once).
    private let output: Mutex<AudioOutput?>
    /// A playback device's buffer may run this far ahead of the clock before its write blocks (AlsaPCM's 60 ms).
    static let deviceLead = 0.06

    struct Published: Sendable {
        var snapshot: PlaybackSnapshot
        /// The last ~0.5 s played, for level and frequency (analysed by the caller of `snapshot`, not this thread).
        var recentSamples = RecentSamples(capacity: RemoteMedia.recentSampleCount)
    }

    /// Opens the output now, so the note is known before the call starts; nil for `.none`.
    init?(_ choice: PlaybackChoice) {
        let opened: (output: AudioOutput, note: String)
        switch choice {
        case .none: return nil
        case .device(let name): opened = AudioOutput.open(device: name)
        case .nullSink: opened = AudioOutput.open(device: nil)
        }
        self.choice = choice
        output = Mutex(opened.output)
        published = Mutex(Published(snapshot: PlaybackSnapshot(note: opened.note)))
    }

    func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        threadsRunning.add(1, ordering: .acquiringAndReleasing)
        let thread = Thread { [self] in
            run()
            threadsRunning.subtract(1, ordering: .acquiringAndReleasing)
        }
        thread.name = "call-playback"
        thread.start()
    }

    /// Stops the thread and waits (up to 2 s) for it to end.
    func stop() {
        running.store(false, ordering: .releasing)
        for _ in 0..<200 where threadsRunning.load(ordering: .acquiring) > 0 { usleep(10_000) }
    }

    /// One decoded 20 ms frame of `peer` (its decode thread).
    func push(_ frame: AudioFrame, from peer: RemotePeerID) {
        queues.withLock { $0[peer, default: PlaybackQueue()].push(frame) }
    }

    /// The peer left: its queued audio is not played.
    func remove(_ peer: RemotePeerID) {
        guard let queue = queues.withLock({ $0.removeValue(forKey: peer) }) else { return }
        retired.withLock { $0.underruns += queue.underruns; $0.dropped += queue.dropped }
    }

    /// The figures now; `analyse` measures level and frequency of the last ~0.5 s on the caller's thread.
    func snapshot(analyse: Bool) -> PlaybackSnapshot {
        let p = published.withLock { $0 }
        var s = p.snapshot
        let (underruns, dropped, peers) = queues.withLock { q in
            (q.values.reduce(0) { $0 + $1.underruns }, q.values.reduce(0) { $0 + $1.dropped }, q.count)
        }
        let gone = retired.withLock { $0 }
        s.underruns = underruns + gone.underruns
        s.framesDropped = dropped + gone.dropped
        s.peers = peers
        if analyse, !p.recentSamples.isEmpty {
            let samples = p.recentSamples.samples
            s.level = AudioAnalysis.rmsLevel(samples)
            s.dominantFrequency = AudioAnalysis.dominantFrequency(samples)
        }
        return s
    }

    private func run() {
        guard var sink = output.withLock({ $0.take() }) else { return }
        let mixer = AudioMixer()
        let origin = MonotonicClock.now()
        func now() -> Double { MonotonicClock.now() - origin }
        var pacer = FramePacer(lead: Self.isDevice(sink) ? Self.deviceLead : 0)
        while running.load(ordering: .acquiring) {
            let frames = queues.withLock { q in
                var taken: [AudioFrame] = []
                for id in Array(q.keys) { if let f = q[id]!.pop() { taken.append(f) } }
                return taken
            }
            let mix = mixer.mix(frames)   // no frames: silence
            let wasDevice = Self.isDevice(sink)
            let level = sink.play(mix)   // a device blocks here while its buffer is full
            published.withLock { p in
                p.snapshot.framesPlayed += 1
                p.snapshot.frameLevel = level
                p.recentSamples.append(mix.samples)
                if wasDevice, !Self.isDevice(sink) {
                    p.snapshot.note = "speaker: none (the ALSA device failed during the call); levels measured only"
                }
            }
            if wasDevice, !Self.isDevice(sink) { pacer = FramePacer() }
            let pause = pacer.pause(now: now())
            if pause > 0 { usleep(UInt32(min(pause, 0.05) * 1e6)) }
        }
    }

    static func isDevice(_ output: AudioOutput) -> Bool {
        if case .device = output { return true }
        return false
    }
}
