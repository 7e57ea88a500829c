import Testing
@testable import EngineMedia
@testable import EngineTransport

/// A deterministic clock for sources: starts at `start`, advances `step` per call.
final class FakeClock: @unchecked Sendable {
    // Only touched from the one test that owns it (sequential calls), never shared across threads.
    private var t: Double
    private let step: Double
    init(start: Double, step: Double) { t = start; self.step = step }
    func callAsFunction() -> Double { defer { t += step }; return t }
}

@Test func theTestCardCarriesItsCounterTimeAndParticipant() throws {
    let clock = FakeClock(start: 1_700_000_000.25, step: 1.0 / 16)   // exact in binary: no drift
    let card = try TestCardSource(width: 320, height: 240, participant: 3, clock: { clock() })
    for expected in 0..<20 as Range<UInt32> {
        let frame = try #require(try card.nextFrame())
        let code = try #require(TestCard.decode(frame))
        #expect(code.counter == expected)
        #expect(code.participant == 3)
        let expectedMillis = UInt32(truncatingIfNeeded: Int64(((1_700_000_000.25 + Double(expected) / 16) * 1000).rounded(.down)))
        #expect(code.captureMillis == expectedMillis)
    }
}

@Test func participantsGetDistinctColours() {
    let colours = (0..<7).map { TestCard.colour(for: UInt8($0)) }
    for i in 0..<colours.count {
        for j in (i + 1)..<colours.count {
            let a = colours[i], b = colours[j]
            let d = abs(Int(a.0) - Int(b.0)) + abs(Int(a.1) - Int(b.1)) + abs(Int(a.2) - Int(b.2))
            #expect(d > 40, "participants \(i) and \(j) look alike")
        }
    }
}

@Test func aFrameWithoutTheBandDecodesToNothing() throws {
    let bars = try ColorBarsSource(width: 320, height: 240)
    #expect(TestCard.decode(try #require(try bars.nextFrame())) == nil)
    let grey = try VideoFrame(width: 320, height: 240, y: .init(repeating: 128, count: 320 * 240),
                              u: .init(repeating: 128, count: 160 * 120), v: .init(repeating: 128, count: 160 * 120), timestamp: 0)
    #expect(TestCard.decode(grey) == nil)
    // Black at the bottom (aiortc's half-white picture, a dark room): the all-zero band passes the checksum.
    let dark = try VideoFrame(width: 320, height: 240, y: .init(repeating: 16, count: 320 * 240),
                              u: .init(repeating: 128, count: 160 * 120), v: .init(repeating: 128, count: 160 * 120), timestamp: 0)
    #expect(TestCard.decode(dark) == nil)
}

private func meanPlane(_ p: [UInt8], stride: Int, x: Int, y: Int, w: Int, h: Int) -> Double {
    var sum = 0
    for r in y..<(y + h) { for c in x..<(x + w) { sum += Int(p[r * stride + c]) } }
    return Double(sum) / Double(w * h)
}

/// The sizes conftui sends and a low bitrate for each (the pipeline's own floor under congestion is 30 kbps at any size).
@Test(arguments: [(320, 240, 150), (320, 240, 60), (640, 480, 200), (1280, 720, 400)])
func vp8RoundTripAtALowBitrateKeepsTheTestCardReadableAndItsColour(size: (Int, Int, Int)) throws {
    let (width, height, kbps) = size
    let clock = FakeClock(start: 5_000, step: 1.0 / 15)
    let card = try TestCardSource(width: width, height: height, participant: 1, name: "alice", clock: { clock() })
    let encoder = try VP8Encoder(width: width, height: height, bitrateKbps: kbps)
    let decoder = try VP8Decoder()
    var readable = 0, total = 0
    var lastSent: VideoFrame?
    var lastDecoded: VideoFrame?
    for _ in 0..<45 {
        let frame = try #require(try card.nextFrame())
        guard let encoded = try encoder.encode(frame) else { continue }
        guard let decoded = try decoder.decode(encoded.data, timestamp: encoded.timestamp) else { continue }
        total += 1
        if let code = TestCard.decode(decoded), code == TestCard.decode(frame) { readable += 1 }
        lastSent = frame
        lastDecoded = decoded
    }
    #expect(total >= 40)
    #expect(Double(readable) / Double(total) >= 0.95, "\(readable) of \(total) frames readable after VP8 at \(kbps) kbps, \(width)x\(height)")
    // The card's background colour survives (a patch in the top right, above the name and the strip).
    let sent = try #require(lastSent), got = try #require(lastDecoded)
    let (x, y, side) = (width * 25 / 32, height / 12, width / 8)
    for (plane, stride, scale) in [(\VideoFrame.y, width, 1), (\VideoFrame.u, width / 2, 2), (\VideoFrame.v, width / 2, 2)] {
        let a = meanPlane(sent[keyPath: plane], stride: stride, x: x / scale, y: y / scale, w: side / scale, h: side / scale)
        let b = meanPlane(got[keyPath: plane], stride: stride, x: x / scale, y: y / scale, w: side / scale, h: side / scale)
        #expect(abs(a - b) < 8, "plane mean \(a) sent, \(b) decoded")
    }
}

@Test func aForcedKeyframeIsAKeyframe() throws {
    let bars = try ColorBarsSource(width: 320, height: 240)
    let encoder = try VP8Encoder(width: 320, height: 240)
    var kinds: [Bool] = []
    for i in 0..<10 {
        let frame = try #require(try bars.nextFrame())
        if let e = try encoder.encode(frame, forceKeyframe: i == 6) {
            kinds.append(e.isKeyframe)
            #expect(VP8Decoder.isKeyframe(e.data) == e.isKeyframe, "the payload's frame tag agrees")
        }
    }
    #expect(kinds.first == true, "the first frame is a keyframe")
    #expect(kinds[1..<6].allSatisfy { !$0 }, "no keyframes until asked")
    #expect(kinds[6] == true, "the forced frame is a keyframe")
}

@Test func theDecoderSurvivesGarbage() throws {
    let decoder = try VP8Decoder()
    #expect(throws: EngineError.self) { try decoder.decode([], timestamp: 0) }
    var rng = SplitMixRandom(seed: 11)
    for _ in 0..<2_000 {
        let junk = (0..<Int(rng.next() % 300 + 1)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        _ = try? decoder.decode(junk, timestamp: 0)
    }
    // Still decodes a real stream afterwards (from its keyframe).
    let bars = try ColorBarsSource(width: 160, height: 120)
    let encoder = try VP8Encoder(width: 160, height: 120)
    let source = try #require(try bars.nextFrame())
    let e = try #require(try encoder.encode(source))
    let f = try #require(try decoder.decode(e.data, timestamp: 1))
    #expect(f.width == 160 && f.height == 120)
}

@Test func switchingSourcesKeepsSizeAndMonotonicTimestamps() throws {
    let clock = FakeClock(start: 100, step: 1.0 / 15)
    let card = try TestCardSource(width: 640, height: 480, clock: { clock() })
    let bars = try ColorBarsSource(width: 160, height: 120)     // its own timestamps start at 0
    let clockSource = try ClockSource(width: 320, height: 240, clock: { 1_700_000_000 })
    let switcher = try SourceSwitcher(entries: [.init(name: "card", source: card), .init(name: "bars", source: bars),
                                                .init(name: "clock", source: clockSource)],
                                      width: 320, height: 240, clock: { clock() })
    var last = -Double.infinity
    var names: [String] = []
    for i in 0..<30 {
        if i % 10 == 9 { switcher.next() }
        let f = try switcher.nextFrame()
        names.append(switcher.currentName)
        #expect(f.width == 320 && f.height == 240)
        #expect(f.timestamp > last)
        last = f.timestamp
    }
    #expect(Set(names) == ["card", "bars", "clock"])
    #expect(switcher.currentName == "card", "three switches cycle back to the first")
    #expect(switcher.next() == "bars")
}

@Test func theScalerAveragesAndKeepsFlatColours() throws {
    let f = try VideoFrame(width: 4, height: 2, y: [0, 100, 200, 250, 0, 100, 200, 250], u: [10, 20], v: [30, 40], timestamp: 0)
    let half = try I420Scaler.scale(f, width: 2, height: 2)
    #expect(half.y == [50, 225, 50, 225])
    let grown = try I420Scaler.scale(f, width: 8, height: 4)
    #expect(grown.y.prefix(8) == [0, 0, 100, 100, 200, 200, 250, 250])
}

/// Halving (a simulcast low layer) has its own loop; it must give what the general area average gives, strides and
/// odd chroma sizes included.
@Test(arguments: [(320, 240), (322, 242), (6, 2)])
func theHalvingLoopEqualsTheAreaAverage(width: Int, height: Int) throws {
    var generator = SystemRandomNumberGenerator()
    let stride = width + 7, cw = (width + 1) / 2, ch = (height + 1) / 2
    func noise(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) } }
    let f = try VideoFrame(width: width, height: height, y: noise(stride * height), yStride: stride,
                           u: noise((cw + 3) * ch), uStride: cw + 3, v: noise(cw * ch), vStride: cw, timestamp: 0)
    let half = try I420Scaler.scale(f, width: width / 2, height: height / 2)
    func reference(_ src: [UInt8], _ stride: Int, _ sw: Int, _ sh: Int, _ dw: Int, _ dh: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: dw * dh)
        for dy in 0..<dh {
            let y0 = dy * sh / dh, y1 = max(y0 + 1, (dy + 1) * sh / dh)
            for dx in 0..<dw {
                let x0 = dx * sw / dw, x1 = max(x0 + 1, (dx + 1) * sw / dw)
                var sum = 0
                for sy in y0..<y1 { for sx in x0..<x1 { sum += Int(src[sy * stride + sx]) } }
                out[dy * dw + dx] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
            }
        }
        return out
    }
    let hw = width / 2, hh = height / 2, hcw = (hw + 1) / 2, hch = (hh + 1) / 2
    #expect(half.y == reference(f.y, stride, width, height, hw, hh))
    #expect(half.u == reference(f.u, cw + 3, cw, ch, hcw, hch))
    #expect(half.v == reference(f.v, cw, cw, ch, hcw, hch))
}
