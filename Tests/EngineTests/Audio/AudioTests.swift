import Testing
@testable import EngineMedia
@testable import EngineTransport

private func frames(_ tone: inout ToneSource, _ n: Int) -> [AudioFrame] { (0..<n).map { _ in tone.nextFrame() } }

@Test(arguments: [220.0, 440.0, 1000.0, 2500.0])
func aToneSourceProducesItsFrequency(hz: Double) throws {
    var tone = ToneSource(frequency: hz, amplitude: 0.5)
    let samples = frames(&tone, 5).flatMap(\.samples)
    let measured = try #require(AudioAnalysis.dominantFrequency(samples))
    #expect(abs(measured - hz) <= 2, "measured \(measured) Hz")
    #expect(abs(AudioAnalysis.rmsLevel(samples) - 0.5 / 2.0.squareRoot()) < 0.01)
}

@Test func silenceHasNoFrequencyAndNoLevel() {
    #expect(AudioAnalysis.dominantFrequency(AudioFrame.silence.samples) == nil)
    #expect(AudioAnalysis.rmsLevel(AudioFrame.silence.samples) == 0)
    #expect(AudioAnalysis.dbfs(AudioFrame.silence.samples) == -120)
}

@Test(arguments: [440.0, 660.0, 1200.0])
func opusRoundTripKeepsAToneFrequency(hz: Double) throws {
    let encoder = try OpusEncoder(bitrate: 32_000)
    let decoder = try OpusDecoder()
    var tone = ToneSource(frequency: hz, amplitude: 0.3)
    var decoded: [Int16] = []
    for frame in frames(&tone, 50) {
        let (packet, _) = try encoder.encode(frame)
        decoded += try decoder.decode(packet).samples
    }
    let tail = Array(decoded.suffix(4_800))   // the last 100 ms, past the codec's start-up
    let measured = try #require(AudioAnalysis.dominantFrequency(tail))
    #expect(abs(measured - hz) <= 3, "measured \(measured) Hz after Opus")
    let level = AudioAnalysis.rmsLevel(tail)
    #expect(level > 0.15 && level < 0.3, "level \(level) (sent 0.212)")
}

/// Regression: the analysis once scanned a 20 Hz grid over half-second windows and stepped over the main lobe of
/// any tone off that grid; through Opus, 550 Hz then read as 299-699 Hz (440/660/1200 Hz hid it).
@Test(arguments: [333.0, 550.0, 1234.0, 2017.0])
func aToneOffAnyGridIsMeasuredThroughOpusForTenSeconds(hz: Double) throws {
    let encoder = try OpusEncoder(bitrate: 32_000)
    let decoder = try OpusDecoder()
    var tone = ToneSource(frequency: hz, amplitude: 0.3)
    var decoded: [Int16] = []
    var readings: [Double] = []
    for (i, frame) in frames(&tone, 500).enumerated() {
        let (packet, _) = try encoder.encode(frame)
        decoded += try decoder.decode(packet).samples
        if i % 50 == 49 { readings.append(AudioAnalysis.dominantFrequency(Array(decoded.suffix(24_000))) ?? 0) }
    }
    #expect(readings.count == 10)
    #expect(readings.allSatisfy { abs($0 - hz) <= 2 }, "readings every second over 0.5 s windows: \(readings)")
}

/// A concealed or fading frame at the end of the window must not decide the reading (the coarse scan averages
/// over the whole window).
@Test func aFadedLastFrameDoesNotSwayTheFrequency() throws {
    var tone = ToneSource(frequency: 550, amplitude: 0.3)
    var samples = frames(&tone, 23).flatMap(\.samples)
    var noise = SplitMixRandom(seed: 7)
    samples += (0..<1_920).map { _ in Int16(truncatingIfNeeded: Int(noise.next() % 2_000) - 1_000) }
    let measured = try #require(AudioAnalysis.dominantFrequency(samples))
    #expect(abs(measured - 550) <= 2, "measured \(measured) Hz")
}

@Test func mutedAudioIsSilenceAtTheReceiverAndDTXMarksIt() throws {
    let encoder = try OpusEncoder()
    let decoder = try OpusDecoder()
    var dtx = 0
    var levels: [Double] = []
    for _ in 0..<50 {
        let (packet, isDTX) = try encoder.encode(.silence)
        if isDTX { dtx += 1 }
        levels.append(AudioAnalysis.rmsLevel(try decoder.decode(packet).samples))
    }
    #expect(levels.suffix(20).allSatisfy { $0 < 0.001 })
    #expect(dtx > 30, "DTX packets for silence: \(dtx) of 50")
}

@Test func lostFramesAreRecoveredOrConcealedWithoutStoppingTheStream() throws {
    let encoder = try OpusEncoder(expectedLossPercent: 20)
    let decoder = try OpusDecoder()
    var tone = ToneSource(frequency: 500)
    let packets = try frames(&tone, 30).map { try encoder.encode($0).packet }
    var out: [Int16] = []
    for i in 0..<30 {
        if i == 20 { out += try decoder.recover(from: packets[21]).samples; continue }   // FEC
        if i == 24 { out += try decoder.conceal().samples; continue }                     // PLC
        out += try decoder.decode(packets[i]).samples
    }
    #expect(out.count == 30 * 960)
    let around = Array(out[(19 * 960)..<(26 * 960)])
    let measured = try #require(AudioAnalysis.dominantFrequency(around))
    #expect(abs(measured - 500) <= 5, "tone kept through the gaps: \(measured)")
}

@Test func hostileOpusPacketsAreErrorsNotCrashes() throws {
    let decoder = try OpusDecoder()
    #expect(throws: EngineError.self) { try decoder.decode([]) }
    var rng = SplitMixRandom(seed: 7)
    var errors = 0
    for _ in 0..<20_000 {
        let n = Int(rng.next() % 200) + 1
        let packet = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        do { _ = try decoder.decode(packet) } catch { errors += 1 }
    }
    // Random bytes are mostly valid Opus TOC + frames of some length, or refused; never a crash.
    #expect(errors > 0)
}

@Test func theMixerSumsWithSaturation() {
    let loud = AudioFrame(samples: [Int16](repeating: 30_000, count: 960))
    let mixed = AudioMixer().mix([loud, loud])
    #expect(mixed.samples.allSatisfy { $0 == Int16.max })
    #expect(AudioMixer().mix([]) == .silence)
    var a = ToneSource(frequency: 300), b = ToneSource(frequency: 1_700)
    let both = AudioMixer().mix([a.nextFrame(), b.nextFrame()])
    #expect(AudioAnalysis.rmsLevel(both.samples) > AudioAnalysis.rmsLevel(a.nextFrame().samples))
}

@Test func alsaNullDeviceOpensPlaysAndCaptures() throws {
    // ALSA's "null" PCM needs no sound card: it is how CI exercises the real ALSA code path.
    let playback = try AlsaPCM(device: "null", direction: .playback)
    var tone = ToneSource(frequency: 440)
    for _ in 0..<5 { try playback.write(tone.nextFrame()) }
    let capture = try AlsaPCM(device: "null", direction: .capture)
    let frame = try capture.read()
    #expect(frame.samples.count == 960)
}

@Test func aMissingDeviceFallsBackAndSaysSo() {
    let (input, note) = AudioInput.open(device: "conftui-no-such-device", fallbackTone: 440)
    guard case .tone(let t) = input else { Issue.record("expected the tone fallback"); return }
    #expect(t.frequency == 440)
    #expect(note.hasPrefix("microphone: a 440 Hz tone (cannot open ALSA conftui-no-such-device"))
    let (output, outNote) = AudioOutput.open(device: "conftui-no-such-device")
    guard case .null = output else { Issue.record("expected the null sink"); return }
    #expect(outNote.contains("levels measured only"))
    var sink = AudioOutput.null
    var tone = ToneSource(frequency: 440, amplitude: 0.5)
    #expect(sink.play(tone.nextFrame()) > 0.3, "the null sink still measures the level")
}

#if canImport(Glibc)
import Glibc
#endif

/// The kernel's snd-aloop card, when loaded, gives a real playback → capture path.
private let aloopLoaded = access("/proc/asound/Loopback", F_OK) == 0

@Test(.enabled(if: aloopLoaded, "snd-aloop is not loaded (no /proc/asound/Loopback; this kernel or container cannot load modules): loopback audio test skipped"))
func aToneThroughTheALSALoopbackKeepsItsFrequency() throws {
    let play = try AlsaPCM(device: "plughw:Loopback,0,0", direction: .playback)
    let capture = try AlsaPCM(device: "plughw:Loopback,1,0", direction: .capture)
    var tone = ToneSource(frequency: 880, amplitude: 0.4)
    var got: [Int16] = []
    for _ in 0..<25 {
        try play.write(tone.nextFrame())
        got += try capture.read().samples
    }
    let measured = try #require(AudioAnalysis.dominantFrequency(Array(got.suffix(4_800))))
    #expect(abs(measured - 880) <= 3)
}

/// The analysis runs eight frequencies per pass; each lane must be exactly the one-frequency Goertzel recurrence, so
/// that grouping can never move a reading (the tone tests compare frequencies to the hertz).
@Test func goertzelLanesEqualTheScalarRecurrence() {
    var generator = SystemRandomNumberGenerator()
    let x = (0..<2_400).map { _ in Double(Int16.random(in: .min ... .max, using: &generator)) }
    let frequencies = (0..<19).map { _ in Double.random(in: 20...8_000, using: &generator) }
    let powers = AudioAnalysis.goertzelPowers(x, frequencies, sampleRate: 48_000)
    #expect(powers.count == frequencies.count)
    for (f, power) in zip(frequencies, powers) {
        let coeff = 2 * cos(2 * Double.pi * f / 48_000)
        var s1 = 0.0, s2 = 0.0
        for v in x { let s0 = v + coeff * s1 - s2; s2 = s1; s1 = s0 }
        #expect(power == s1 * s1 + s2 * s2 - coeff * s1 * s2, "at \(f) Hz")
    }
}
