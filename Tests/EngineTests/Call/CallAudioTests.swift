import Foundation
import Synchronization
import Testing
@testable import Engine
@testable import EngineMedia

/// Waits (up to `seconds`) for a half second of playback at `level` (±`tolerance`) whose strongest frequency is `hz`
/// (±3 Hz; nil: any). On a loaded machine one window may hold an underrun or a dropped frame, so the tests ask for
/// one matching window, not for the first; a call that plays the wrong thing never matches. Only the playback window
/// is analysed, four times a second: the analysis costs CPU the calls under test need.
private func played(_ call: Call, hz: Double?, level: Double, tolerance: Double = 0.02,
                    within seconds: Double = 5) -> (matched: Bool, last: PlaybackSnapshot?) {
    var last: PlaybackSnapshot?
    let end = Date().addingTimeInterval(seconds)
    func matches() -> Bool {
        guard let p = call.playback?.snapshot(analyse: true) else { return false }
        last = p
        guard abs(p.level - level) <= tolerance else { return false }
        guard let hz else { return true }
        return abs((p.dominantFrequency ?? 0) - hz) <= 3
    }
    while Date() < end, !matches() { usleep(250_000) }
    return (Date() < end || matches(), last)
}

/// The microphone and speaker choices of a call, end to end over loopback UDP with real Opus: what is captured or
/// synthesized, what is sent, and what the other side mixes and plays.
@Suite(.serialized)
struct CallAudioTests {
    @Test(.timeLimit(.minutes(1)))
    func aMissingCaptureDeviceFallsBackToTheToneAndSaysSo() throws {
        var options = MediaPipeline.Options()
        options.audioInput = .device(name: "conftui-no-such-device", fallbackToneHz: 550)
        let tone = try MediaPipeline(options: options, onMedia: {})
        #expect(tone.snapshot.audioInputNote.hasPrefix("microphone: a 550 Hz tone (cannot open ALSA conftui-no-such-device"),
                "\(tone.snapshot.audioInputNote)")
        #expect(tone.snapshot.toneHz == 550)
        options.audioInput = .device(name: "conftui-no-such-device", fallbackToneHz: 0)
        let silent = try MediaPipeline(options: options, onMedia: {})
        #expect(silent.snapshot.audioInputNote.hasPrefix("microphone: silence (cannot open ALSA conftui-no-such-device"))
        #expect(silent.snapshot.toneHz == 0)
        // And the fallback tone is what goes out (the encoder's input level is the tone's: 0.3 peak → RMS 0.21).
        tone.start()
        defer { tone.stop() }
        #expect(waitFor(2) { tone.snapshot.audioFramesEncoded >= 10 })
        #expect(abs(tone.snapshot.inputLevel - 0.3 / 2.0.squareRoot()) < 0.01, "\(tone.snapshot)")
    }

    @Test(.timeLimit(.minutes(1)))
    func theALSANullCaptureDeviceIsPacedByTheClock() throws {
        // ALSA's `null` PCM returns every read at once; without the clock as a backstop the audio thread would spin.
        var options = MediaPipeline.Options()
        options.audioInput = .device(name: "null", fallbackToneHz: 440)
        let media = try MediaPipeline(options: options, onMedia: {})
        #expect(media.snapshot.audioInputNote == "microphone: ALSA null")
        #expect(media.snapshot.toneHz == 0)
        media.start()
        usleep(200_000)
        let first = media.snapshot.audioFramesEncoded
        usleep(1_000_000)
        let perSecond = media.snapshot.audioFramesEncoded - first
        media.stop()
        // At most 50 a second plus the 60 ms a device may run ahead (fewer only on a starved thread).
        #expect((10...55).contains(perSecond), "50 frames a second, measured \(perSecond)")
        #expect(media.snapshot.inputLevel == 0, "the null device captures silence")
        _ = media.drain()
    }

    @Test(.timeLimit(.minutes(1)))
    func noAudioSendsNoPacketsWhileVideoFlows() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1, configure: { $0.media.audioInput = .none })
        let b = try room.makeCall("b", tone: 660, participant: 2)
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        let A = RemotePeerID("a"), B = RemotePeerID("b")
        let flowing = waitFor(8) {
            (b.snapshot(analyseAudio: false).peers[A]?.video.framesDecoded ?? 0) >= 15
                && (a.snapshot(analyseAudio: false).peers[B]?.audio.framesDecoded ?? 0) >= 25
        }
        let sa = a.snapshot(), sb = b.snapshot()
        #expect(flowing, "video from a, audio from b: \(sa) \(sb)")
        #expect(sa.local.audioInputNote == "microphone: none (no audio sent)")
        #expect(sa.local.audioFramesEncoded == 0 && sa.local.toneHz == 0 && sa.local.inputLevel == 0)
        let atB = try #require(sb.peers[A]), atA = try #require(sa.peers[B])
        #expect(atA.transport.audioPacketsSent == 0, "a sends no Opus: \(atA.transport)")
        #expect(atB.transport.audioPacketsReceived == 0 && atB.audio.framesDecoded == 0 && atB.audio.silentSlots == 0)
        #expect(atB.audio.level == 0 && atB.audio.dominantFrequency == nil)
        #expect(abs((atA.audio.dominantFrequency ?? 0) - 660) < 10, "a still hears b")
    }

    @Test(.timeLimit(.minutes(1)))
    func theNullSinkPlaysTheSendersToneAndMuteSilencesIt() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 660, participant: 1)
        let b = try room.makeCall("b", tone: 440, participant: 2, configure: { $0.playback = .nullSink })
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        #expect(a.snapshot().playback == nil, "no playback by default")
        #expect(b.snapshot().playback?.note == "speaker: none (levels measured only)")
        let playing = waitFor(8) {
            let p = b.snapshot(analyseAudio: false).playback
            return p.map { $0.peers == 1 && $0.frameLevel > 0.1 } ?? false
        }
        #expect(playing, "\(String(describing: b.snapshot().playback))")
        // Rate over a measured interval (unanalysed snapshots: the frequency analysis costs time in a debug build).
        let (start, before) = (b.elapsed, try #require(b.snapshot(analyseAudio: false).playback))
        usleep(1_000_000)
        let (end, after) = (b.elapsed, try #require(b.snapshot(analyseAudio: false).playback))
        let perSecond = Double(after.framesPlayed - before.framesPlayed) / (end - start)
        // 50 a second at most (the clock is the ceiling); fewer when a loaded machine starves the thread for over 0.2 s
        // (it then skips rather than bursts), so the floor only says that it plays.
        #expect(perSecond > 10 && perSecond < 53, "the clock paces the null sink at 50 frames/s: \(perSecond)")
        let heard = played(b, hz: 660, level: 0.3 / 2.0.squareRoot())
        print("null sink: \(perSecond) frames/s, \(String(describing: heard.last))")
        #expect(heard.matched, "b plays a's 660 Hz at the sent level: \(String(describing: heard.last))")
        #expect(abs(a.snapshot(analyseAudio: false).local.inputLevel - 0.3 / 2.0.squareRoot()) < 0.01)
        a.media.setMuted(true)
        let muted = played(b, hz: nil, level: 0, tolerance: 0.001)   // 0.001: AudioAnalysis's silence
        #expect(muted.matched && muted.last?.dominantFrequency == nil && (muted.last?.frameLevel ?? 1) < 0.01, "muted sender, silent speaker: \(String(describing: muted.last))")
        #expect(a.snapshot(analyseAudio: false).local.inputLevel == 0, "muted: the own meter is 0")
        #expect((muted.last?.framesPlayed ?? 0) > (heard.last?.framesPlayed ?? 0) + 20, "silence is still played")
    }

    @Test(.timeLimit(.minutes(1)))
    func playbackOnAnALSADeviceOrItsFallbackPlaysEachOthersTone() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1, configure: { $0.playback = .device("null") })
        let lines = Mutex<[String]>([])
        let b = try room.makeCall("b", tone: 660, participant: 2, log: { line in lines.withLock { $0.append(line) } },
                                  configure: { $0.playback = .device("conftui-no-such-device") })
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        #expect(a.snapshot().playback?.note == "speaker: ALSA null")
        let note = b.snapshot().playback?.note ?? ""
        #expect(note.hasPrefix("speaker: none (cannot open ALSA conftui-no-such-device") && note.hasSuffix("levels measured only"), "\(note)")
        #expect(waitFor(8) {
            [a, b].allSatisfy { ($0.snapshot(analyseAudio: false).playback?.frameLevel ?? 0) > 0.1 }
        })
        let atA = played(a, hz: 660, level: 0.3 / 2.0.squareRoot()), atB = played(b, hz: 440, level: 0.3 / 2.0.squareRoot())
        print("ALSA null: \(String(describing: atA.last)); fallback: \(String(describing: atB.last))")
        #expect(atA.matched && atB.matched)
        // The log says what plays and what is heard, once each.
        let logged = lines.withLock { $0 }
        #expect(logged.filter { $0.hasSuffix("microphone: a 660 Hz tone") }.count == 1, "\(logged)")
        #expect(logged.filter { $0.contains("speaker: none (cannot open ALSA conftui-no-such-device") }.count == 1, "\(logged)")
        // ALSA's null PCM does not block: the clock still paces it (it may run one device buffer, 60 ms, ahead).
        let framesPlayed = a.snapshot(analyseAudio: false).playback?.framesPlayed ?? 0
        #expect(framesPlayed > 0 && Double(framesPlayed) <= a.elapsed * 50 + 5, "\(framesPlayed) frames in \(a.elapsed) s")
    }

    @Test(.timeLimit(.minutes(1)))
    func theSpeakerMixesEveryPeerAndDropsOneThatLeaves() throws {
        // The playback thread on its own, fed by a thread that stands in for the event thread (one frame per peer every
        // 20 ms), without three calls' codecs competing for the CPU: the end-to-end path is covered by
        // `theNullSinkPlaysTheSendersToneAndMuteSilencesIt`.
        let playback = try #require(CallPlayback(.nullSink))
        let a = RemotePeerID("a"), b = RemotePeerID("b")
        let feeding = Mutex<Set<RemotePeerID>>([a, b])
        let stop = Atomic<Bool>(false), stopped = Atomic<Bool>(false)
        playback.start()
        let feeder = Thread {
            var tones = [a: ToneSource(frequency: 440), b: ToneSource(frequency: 660)]
            var pacer = FramePacer()
            let origin = MonotonicClock.now()
            while !stop.load(ordering: .acquiring) {
                for id in feeding.withLock({ $0 }) { playback.push(tones[id]!.nextFrame(), from: id) }
                let pause = pacer.pause(now: MonotonicClock.now() - origin)
                if pause > 0 { usleep(UInt32(pause * 1e6)) }
            }
            stopped.store(true, ordering: .releasing)
        }
        feeder.start()
        defer {
            stop.store(true, ordering: .releasing)
            _ = waitFor(2) { stopped.load(ordering: .acquiring) }
            playback.stop()
        }
        func poll(_ done: (PlaybackSnapshot) -> Bool) -> (matched: Bool, last: PlaybackSnapshot) {
            var last = playback.snapshot(analyse: false)
            let matched = waitFor(5) {
                last = playback.snapshot(analyse: true)
                return done(last)
            }
            return (matched, last)
        }
        // Two unrelated tones of RMS 0.21 each add in power: √2 × 0.21 ≈ 0.30 (one alone would stay at 0.21).
        let both = poll { $0.peers == 2 && $0.framesPlayed >= 30 && abs($0.level - 0.3) < 0.02 }   // a full 0.5 s window
        #expect(both.matched, "\(both.last)")
        feeding.withLock { _ = $0.remove(a) }
        playback.remove(a)
        let one = poll { $0.peers == 1 && $0.framesPlayed >= both.last.framesPlayed + 25 && abs($0.level - 0.3 / 2.0.squareRoot()) < 0.02 && abs(($0.dominantFrequency ?? 0) - 660) <= 3 }
        print("mix of two: \(both.last); after a left: \(one.last)")
        #expect(one.matched, "\(one.last)")
        #expect(one.last.framesPlayed > both.last.framesPlayed)
    }
}
