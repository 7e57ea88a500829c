import Testing
@testable import EngineMedia
@testable import EngineTransport

/// `FaceSource`: a still face whose mouth follows a speech script and whose eyes blink, and nothing else moves.

/// A clock the test sets (one test thread only).
final class SetClock: @unchecked Sendable {
    var now = 0.0
}

/// The pixels of `box` in each plane (luma, then both chroma planes at half resolution).
func region(_ f: VideoFrame, _ box: FrameBox) -> [UInt8] {
    let p = box.pixels(width: f.width, height: f.height)
    var out: [UInt8] = []
    for row in p.y..<(p.y + p.h) {
        let start: Int = row * f.yStride + p.x
        out += f.y[start..<(start + p.w)]
    }
    for row in (p.y / 2)..<((p.y + p.h) / 2) {
        let u0: Int = row * f.uStride + p.x / 2, v0: Int = row * f.vStride + p.x / 2
        out += f.u[u0..<(u0 + p.w / 2)]
        out += f.v[v0..<(v0 + p.w / 2)]
    }
    return out
}

/// Every position (plane, x, y in luma pixels) where two frames differ.
func differences(_ a: VideoFrame, _ b: VideoFrame) -> [(x: Int, y: Int)] {
    var out: [(Int, Int)] = []
    for row in 0..<a.height { for col in 0..<a.width where a.y[row * a.yStride + col] != b.y[row * b.yStride + col] { out.append((col, row)) } }
    for row in 0..<a.chromaHeight {
        for col in 0..<a.chromaWidth where a.u[row * a.uStride + col] != b.u[row * b.uStride + col]
            || a.v[row * a.vStride + col] != b.v[row * b.vStride + col] {
            out.append((col * 2, row * 2)); out.append((col * 2 + 1, row * 2 + 1))
        }
    }
    return out
}

func inside(_ point: (x: Int, y: Int), _ box: FrameBox, width: Int = 320, height: Int = 240) -> Bool {
    let p = box.pixels(width: width, height: height)
    return point.x >= p.x && point.x < p.x + p.w && point.y >= p.y && point.y < p.y + p.h
}

/// A time in 0..<limit when `participant` does not blink for the next `span` seconds.
func blinkFree(_ participant: UInt8, from start: Double, span: Double) -> Double {
    var t = start
    while (0..<Int(span * 100)).contains(where: { FaceSource.isBlinking(participant: participant, at: t + Double($0) / 100) }) { t += 0.05 }
    return t
}

@Test func aSpeakersMouthMovesWhileASilentMouthStaysPixelIdentical() throws {
    let epoch = 1_000.0
    let speaker = SpeechScript(seat: 0, seats: 2, epoch: epoch, turnSeconds: 4)
    let listener = SpeechScript(seat: 1, seats: 2, epoch: epoch, turnSeconds: 4)
    let clock = SetClock()
    let talking = try FaceSource(participant: 6, name: "Ada", speech: speaker, clock: { clock.now })
    let silent = try FaceSource(participant: 226, name: "Grace", speech: listener, clock: { clock.now })
    // A second inside the speaker's turn (the listener's silence), frames 1/15 s apart as the call sends them.
    let start = blinkFree(226, from: epoch + 0.5, span: 1.1)
    #expect(speaker.isTurn(at: start) && speaker.isTurn(at: start + 1))
    var talkingMouths: [[UInt8]] = [], silentFrames: [VideoFrame] = [], talkingFrames: [VideoFrame] = []
    for k in 0...15 {
        clock.now = start + Double(k) / 15
        talkingFrames.append(try #require(try talking.nextFrame()))
        talkingMouths.append(region(talkingFrames[k], FaceSource.mouthBox))
        silentFrames.append(try #require(try silent.nextFrame()))
    }
    for frame in talkingFrames.dropFirst() {
        #expect(differences(talkingFrames[0], frame).allSatisfy { inside($0, FaceSource.mouthBox) || inside($0, FaceSource.eyeBox) },
                "the talking face changes only in its mouth (and eyes)")
    }
    let changes = zip(talkingMouths, talkingMouths.dropFirst()).filter { $0 != $1 }.count
    #expect(changes >= 5, "the speaker's mouth changed between \(changes) of 15 frame pairs")
    for frame in silentFrames.dropFirst() {
        #expect(region(frame, FaceSource.mouthBox) == region(silentFrames[0], FaceSource.mouthBox))
        #expect(frame.y == silentFrames[0].y && frame.u == silentFrames[0].u && frame.v == silentFrames[0].v,
                "a silent face that does not blink is the same picture")
    }
}

@Test func theMouthOpensWithTheEnvelopeAndIsClosedWithoutSpeech() throws {
    let script = SpeechScript(seat: 0, seats: 1, epoch: 0, turnSeconds: 4)
    let clock = SetClock()
    let face = try FaceSource(participant: 11, name: "Linus", speech: script, clock: { clock.now })
    let mute = try FaceSource(participant: 11, name: "Linus", clock: { clock.now })
    clock.now = blinkFree(11, from: 0, span: 0.1)
    let closed = region(try #require(try mute.nextFrame()), FaceSource.mouthBox)
    // The open mouth (lips, opening and teeth: the pixels no longer bare skin) grows with the envelope.
    let skin = closed[0]
    func openArea(_ mouth: [UInt8]) -> Int {
        let p = FaceSource.mouthBox.pixels(width: 320, height: 240)
        return mouth.prefix(p.w * p.h).filter { $0 != skin }.count
    }
    var byVowel: [Int: [Int: Int]] = [:]   // vowel → level → open area (o and u are rounder, so narrower)
    var t = 0.0
    while t < 8 {
        clock.now = t
        let envelope = script.envelope(at: t)
        #expect(face.mouthOpenness(at: t) == envelope)
        #expect(mute.mouthOpenness(at: t) == 0)
        let mouth = region(try #require(try face.nextFrame()), FaceSource.mouthBox)
        if envelope == 0 {
            #expect(mouth == closed, "closed when the script is silent (t = \(t))")
        } else if envelope > 0.3 {
            #expect(mouth != closed, "open while it talks (t = \(t), envelope \(envelope))")
            byVowel[script.syllable(at: t)!.vowel, default: [:]][FaceSource.mouthLevel(envelope)] = openArea(mouth)
        }
        t += 0.01
    }
    #expect(byVowel.values.filter { $0.count >= 3 }.count >= 3)
    for (vowel, byLevel) in byVowel {
        let levels = byLevel.keys.sorted()
        for (a, b) in zip(levels, levels.dropFirst()) { #expect(byLevel[a]! < byLevel[b]!, "vowel \(vowel): \(byLevel)") }
    }
    #expect(FaceSource.mouthLevel(0) == 0 && FaceSource.mouthLevel(0.01) == 1 && FaceSource.mouthLevel(1) == FaceSource.mouthLevels)
    #expect(FaceSource.mouthLevel(.nan) == 0)
}

@Test func aBlinkChangesOnlyTheEyesEveryThreeToSixSeconds() throws {
    var starts: [Double] = []
    var t = 0.0, was = false
    while t < 120 {
        let now = FaceSource.isBlinking(participant: 6, at: t)
        if now && !was { starts.append(t) }
        was = now
        t += 0.005
    }
    #expect(starts.count >= 18 && starts.count <= 41)
    for (a, b) in zip(starts, starts.dropFirst()) { #expect(b - a >= 3 - 0.01 && b - a <= 6 + 0.01, "\(a) → \(b)") }
    let shutFor = stride(from: starts[0], to: starts[0] + 1, by: 0.005).filter { FaceSource.isBlinking(participant: 6, at: $0) }
    #expect(abs(Double(shutFor.count) * 0.005 - FaceSource.blinkSeconds) < 0.011, "a blink lasts 150 ms")
    let clock = SetClock()
    let face = try FaceSource(participant: 6, name: "Ada", clock: { clock.now })
    clock.now = starts[1] - 0.2
    let open = try #require(try face.nextFrame())
    clock.now = starts[1] + 0.07
    let shut = try #require(try face.nextFrame())
    clock.now = starts[1] + 0.2
    let openAgain = try #require(try face.nextFrame())
    let changed = differences(open, shut)
    #expect(changed.count > 50, "the blink shows")
    #expect(changed.allSatisfy { inside($0, FaceSource.eyeBox) }, "only inside the eye box")
    #expect(openAgain.y == open.y && openAgain.u == open.u && openAgain.v == open.v)
}

@Test func eachParticipantHasTheirOwnLooksAndTheBoxesSitInsideTheFrame() throws {
    let people: [UInt8] = [6, 226, 11, 225]   // Ada, Grace, Linus, Radia as the demo numbers them
    let frames = try people.map { try #require(try FaceSource(participant: $0, clock: { 0 }).nextFrame()) }
    let corners = Set(frames.map { [$0.y[0], $0.u[0], $0.v[0]] })
    #expect(corners.count == 4, "four backgrounds")
    let heads = Set(frames.map { $0.y[(20 * 320)..<(60 * 320)] })
    #expect(heads.count == 4, "four heads of hair")
    for (w, h) in [(64, 48), (320, 240), (640, 360)] {
        let f = try #require(try FaceSource(width: w, height: h, name: "Radia", clock: { 0 }).nextFrame())
        #expect(f.width == w && f.height == h)
        for box in [FaceSource.eyeBox, FaceSource.mouthBox, FaceSource.nameBand] {
            let p = box.pixels(width: w, height: h)
            #expect(p.x % 2 == 0 && p.y % 2 == 0 && p.w % 2 == 0 && p.h % 2 == 0 && p.w > 0 && p.h > 0)
            #expect(p.x + p.w <= w && p.y + p.h <= h)
        }
    }
    #expect(throws: EngineError.self) { try FaceSource(width: 63, height: 48, clock: { 0 }) }
    #expect(throws: EngineError.self) { try FaceSource(width: 62, height: 46, clock: { 0 }) }
    func pixels(_ box: FrameBox) -> [Int] { let p = box.pixels(width: 320, height: 240); return [p.x, p.y, p.w, p.h] }
    #expect(pixels(FaceSource.mouthBox) == [128, 96, 64, 36])
    #expect(pixels(FaceSource.eyeBox) == [120, 54, 80, 24])
    #expect(pixels(FaceSource.nameBand) == [0, 160, 320, 80])
}

@Test func theCatalogOpensTheFaceWithItsNameAndScript() throws {
    let script = SpeechScript(seat: 0, seats: 1, epoch: 0)
    let source = try SourceCatalog.open("face", width: 320, height: 240, frameRate: 15, participant: 225,
                                        displayName: "Radia", speech: script, clock: { 1 })
    let face = try #require(source as? FaceSource)
    #expect(face.name == "Radia" && face.participant == 225 && face.speech == script)
    #expect(SourceCatalog.switchOrder(initial: "face", cameras: []) == ["face", "card", "bars", "clock"])
}
