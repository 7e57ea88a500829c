import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The whole call layer for real: two `Call`s in this process, signaling handed straight from one to the other
/// (as a SkyRTC server would relay it), media over UDP on 127.0.0.1 in real time. Each call sends its test card
/// (320x240 @15 fps VP8) and a tone (Opus 20 ms) and receives the other's, so the process runs two sent and two
/// received streams with everything a call does: the media thread rendering the card and encoding, the event
/// thread with its sockets, poll() and timers, decoding, reading the card back, audio analysis.
/// Measured: the process's CPU time (getrusage: user + system) over a window of wall time once media flows.
enum LoopbackCallCost {
    struct Result {
        var wallSeconds: Double
        var cpuSeconds: Double
        /// Frames each call decoded from the other in the window.
        var framesDecoded: [Int]
        var audioFramesDecoded: [Int]
    }

    /// Routes each call's signals to the call they are addressed to.
    private final class Room: Sendable {
        let calls = Mutex<[RemotePeerID: Call]>([:])

        func deliver(_ to: RemotePeerID, _ signal: CallSignalIn) { calls.withLock { $0[to] }?.handle(signal) }

        func makeCall(_ id: String, tone: Double, participant: UInt8) throws -> Call {
            let me = RemotePeerID(id)
            var options = Call.Options()
            options.hostCandidates = .loopback
            options.media.toneHz = tone
            options.media.participant = participant
            let call = try Call(options: options) { [self] signal in
                switch signal {
                case .offer(let to, let sdp): deliver(to, .offer(from: me, sdp: sdp))
                case .answer(let to, let sdp): deliver(to, .answer(from: me, sdp: sdp))
                case .candidate(let to, let c, let mid, let index):
                    deliver(to, .candidate(from: me, candidate: c, mid: mid, mLineIndex: index))
                }
            }
            calls.withLock { $0[me] = call }
            return call
        }
    }

    static func run(seconds: Double) throws -> Result {
        let room = Room()
        let a = try room.makeCall("a", tone: 440, participant: 1)
        let b = try room.makeCall("b", tone: 660, participant: 2)
        defer { a.stop(); b.stop() }
        let A = RemotePeerID("a"), B = RemotePeerID("b")
        // SkyRTC join order: a is alone, then b joins, a hears `_new_peer`, b gets `_peers` and offers.
        a.start()
        a.handle(.joined(you: A, others: []))
        room.deliver(A, .newPeer(B))
        b.start()
        b.handle(.joined(you: B, others: [A]))

        func decoded() -> (video: [Int], audio: [Int]) {
            let sa = a.snapshot(analyseAudio: false), sb = b.snapshot(analyseAudio: false)
            return ([sa.peers[B]?.video.framesDecoded ?? 0, sb.peers[A]?.video.framesDecoded ?? 0],
                    [sa.peers[B]?.audio.framesDecoded ?? 0, sb.peers[A]?.audio.framesDecoded ?? 0])
        }
        let deadline = MonotonicClock.now() + 10
        while decoded().video.min()! < 15 {
            guard MonotonicClock.now() < deadline else {
                throw EngineError.invalidArgument("loopback calls did not exchange video within 10 s")
            }
            usleep(50_000)
        }
        let before = decoded(), cpuBefore = processCPUSeconds(), wallBefore = MonotonicClock.now()
        usleep(UInt32(seconds * 1_000_000))
        let after = decoded(), cpuAfter = processCPUSeconds(), wallAfter = MonotonicClock.now()
        return Result(wallSeconds: wallAfter - wallBefore, cpuSeconds: cpuAfter - cpuBefore,
                      framesDecoded: zip(after.video, before.video).map { $0 - $1 },
                      audioFramesDecoded: zip(after.audio, before.audio).map { $0 - $1 })
    }
}

/// User + system CPU seconds of the whole process (every thread).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
