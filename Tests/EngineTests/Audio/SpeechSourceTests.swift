import Testing
@testable import EngineMedia
@testable import Engine

/// `SpeechSource`: the demo's synthetic talker. Loud enough to be seen speaking, silent (exactly) when not, no clicks,
/// and in step with the face that says the same script.

/// `Room.speakOn` (RoomModel, which EngineTests does not import): the level at which a tile starts to show speaking.
private let speakingThreshold = 0.08

/// `count` consecutive frames of `script` from `start`.
private func speech(_ script: SpeechScript, from start: Double, frames count: Int) -> [AudioFrame] {
    var source = SpeechSource(script: script, clock: { start })
    return (0..<count).map { source.frame(startingAt: start + Double($0) * AudioFrame.duration) }
}

@Test func speechIsLoudDuringItsTurnAndExactlySilentOutsideIt() {
    let script = SpeechScript(seat: 1, seats: 3, epoch: 0, turnSeconds: 4)
    let frames = speech(script, from: 0, frames: 1_000)   // 20 s: turns 0 to 4, seat 1 talks in 1 and 4
    var inTurn = 0, loudInTurn = 0, voiced = 0, loudVoiced = 0, peak: Int16 = 0
    for (k, frame) in frames.enumerated() {
        let t0 = Double(k) * AudioFrame.duration, middle = t0 + AudioFrame.duration / 2
        let level = AudioAnalysis.rmsLevel(frame.samples)
        peak = max(peak, frame.samples.map { $0 == .min ? .max : abs($0) }.max()!)
        if !script.isTurn(at: t0) && !script.isTurn(at: t0 + AudioFrame.duration - 1e-9) {
            #expect(frame.samples.allSatisfy { $0 == 0 }, "digital silence outside the turn (frame at \(t0))")
            continue
        }
        // The turn without its lead-in and tail, where the talking happens.
        let into = (t0 - script.turnStart(script.turn(at: t0)!))
        guard into >= SpeechScript.leadIn, into + AudioFrame.duration <= 4 - SpeechScript.tail else { continue }
        inTurn += 1
        if level > speakingThreshold { loudInTurn += 1 }
        if script.envelope(at: middle) >= 0.5 {
            voiced += 1
            if level > speakingThreshold { loudVoiced += 1 }
        }
        let syllables = script.syllables(inTurn: script.turn(at: t0)!)
        if !syllables.contains(where: { $0.start < t0 + AudioFrame.duration && $0.end > t0 }) {
            #expect(level == 0, "a pause between phrases is digital silence too (frame at \(t0))")
        }
    }
    #expect(inTurn > 300)
    #expect(Double(loudInTurn) / Double(inTurn) > 0.6, "\(loudInTurn) of \(inTurn) frames of the turns above the threshold")
    #expect(loudVoiced == voiced, "every frame in a syllable's loud part is above the threshold (\(loudVoiced)/\(voiced))")
    #expect(Double(peak) <= SpeechSource.ceiling * 32_767 + 1 && Double(peak) > 0.25 * 32_767, "peak \(peak)")
}

@Test func whatAMeterSeesStaysAboveTheThresholdThroughAPhrase() {
    // The screen's meter measures the last 100 ms; the room keeps a tile speaking through 0.6 s below the threshold.
    let script = SpeechScript(seat: 0, seats: 2, epoch: 0, turnSeconds: 4)
    let samples = speech(script, from: 0, frames: 600).flatMap(\.samples)   // 12 s: seat 0 talks in turns 0 and 2
    var windows = 0, loud = 0
    for turn in stride(from: 0, to: 4, by: 2) {
        for s in script.syllables(inTurn: turn) where s.startLevel > 0 || s.endLevel > 0 {
            let middle = Int((s.start + s.duration / 2) * 48_000)
            let level = AudioAnalysis.rmsLevel(Array(samples[max(0, middle - 2_400)..<min(samples.count, middle + 2_400)]))
            windows += 1
            if level > speakingThreshold { loud += 1 }
        }
    }
    #expect(windows > 20 && loud == windows, "\(loud) of \(windows) 100 ms windows around syllables inside phrases")
}

@Test func framesJoinWithoutClicksAndTheVoiceIsNotATone() {
    let script = SpeechScript(seat: 3, seats: 4, epoch: 100, turnSeconds: 4)
    let frames = speech(script, from: 112, frames: 200)
    let samples = frames.flatMap(\.samples).map(Int.init)
    var largestStepInside = 0, largestStepAtJoins = 0
    for i in 1..<samples.count {
        let step = abs(samples[i] - samples[i - 1])
        if i % AudioFrame.samplesPerFrame == 0 { largestStepAtJoins = max(largestStepAtJoins, step) } else { largestStepInside = max(largestStepInside, step) }
    }
    #expect(largestStepInside > 0)
    #expect(largestStepAtJoins <= largestStepInside, "a join is no bigger a step than the wave's own")
    // Syllables change vowel and pitch: the strongest frequency moves from one syllable to the next.
    let peaks = Set(script.syllables(inTurn: 3).prefix(12).compactMap { s -> Int? in
        let from = Int((s.start - 112) * 48_000) + 2_000, to = Int((s.end - 112) * 48_000) - 2_000
        guard from >= 0, to - from >= 2_000, to <= samples.count else { return nil }
        return AudioAnalysis.dominantFrequency(samples[from..<to].map { Int16($0) }).map { Int($0 / 40) }
    })
    #expect(peaks.count >= 3, "the spectrum moves: \(peaks)")
}

@Test func theFacesMouthIsOpenExactlyWhenTheVoiceSounds() throws {
    let script = SpeechScript(seat: 0, seats: 2, epoch: 50, turnSeconds: 4)
    let face = try FaceSource(speech: script, clock: { 0 })
    for (k, frame) in speech(script, from: 50, frames: 400).enumerated() {
        let t0 = 50 + Double(k) * AudioFrame.duration
        let mouths = stride(from: t0, to: t0 + AudioFrame.duration, by: 0.001).map { FaceSource.mouthLevel(face.mouthOpenness(at: $0)) }
        let level = AudioAnalysis.rmsLevel(frame.samples)
        if mouths.allSatisfy({ $0 == 0 }) { #expect(level == 0, "mouth shut for the whole frame at \(t0): silence") }
        if level > speakingThreshold { #expect(mouths.contains { $0 >= 3 }, "loud frame at \(t0) with the mouth open") }
    }
}

@Test func aSpeechMicrophoneFollowsTheClockAndCatchesUpAfterAStall() throws {
    final class Clock: @unchecked Sendable { var now = 0.0 }   // one test thread
    let clock = Clock()
    let script = SpeechScript(seat: 0, seats: 1, epoch: 0, turnSeconds: 4)
    var live = SpeechSource(script: script, clock: { clock.now })
    var reference = SpeechSource(script: script, clock: { 0 })
    // Called on time (or a little late), the frames continue one another. From 11.72 s: the gap between two turns.
    for k in 0..<10 {
        let t = 11.72 + Double(k) * 0.02
        clock.now = t + 0.003
        let frame = live.nextFrame()
        #expect(frame == reference.frame(startingAt: t))
        #expect(frame == .silence)
    }
    // Stalled for over a second, it does not play the old schedule on (silent here) but the script at the new time.
    let loud = try #require(script.syllables(inTurn: 3).first { $0.peak > 0.8 })
    clock.now = loud.start + loud.duration * 0.4
    let late = live.nextFrame()
    #expect(AudioAnalysis.rmsLevel(late.samples) > speakingThreshold)
}

@Test func aSpeechMicrophoneSaysItsScriptAndItsFaceFollowsTheSameOne() throws {
    let script = SpeechScript(seat: 1, seats: 3, epoch: 0)
    let choice = MicrophoneChoice.speech(script)
    #expect(choice.speechScript == script && MicrophoneChoice.tone(hz: 440).speechScript == nil)
    let (input, note) = MediaPipeline.openMicrophone(choice)
    guard case .speech(let source) = input else { Issue.record("expected the speech source, got \(String(describing: input))"); return }
    #expect(source.script == script)
    #expect(note == "microphone: synthetic speech (seat 2 of 3, 190 Hz voice)")
    var options = MediaPipeline.Options()
    options.audioInput = choice
    #expect(options.toneHz == 0)
}
