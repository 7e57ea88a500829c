import Testing
@testable import EngineMedia

/// The sizes cards are sent at (`conftui call`, the bot, the demo's tiles) and a few a receiver may scale them to.
private let cardSizes = [(160, 120), (320, 240), (640, 480), (1280, 720)]

@Test(arguments: cardSizes)
func theCodeStripTakesAtMostAnEighthOfThePicture(size: (Int, Int)) throws {
    let (width, height) = size
    #expect(height - TestCard.bandTop(height) <= height / 8, "the strip is \(height - TestCard.bandTop(height)) of \(height) rows")
    // Measured on a real frame: the rows that are not the participant's colour, the bar, the name or the counter.
    let card = try TestCardSource(width: width, height: height, participant: 2, name: "bob", clock: { 1_700_000_000 })
    let frame = try #require(try card.nextFrame())
    let colour = TestCard.colour(for: 2)
    let rightEdge = width - 1   // past the name, the counter and (on the first frame) the bar
    let firstStripRow = (0..<height).first { frame.y[$0 * frame.yStride + rightEdge] != colour.0 } ?? height
    #expect(firstStripRow >= height - height / 8, "the picture ends at row \(firstStripRow) of \(height)")
}

@Test func thePictureIsLedByTheParticipantsColourAndName() throws {
    let card = try TestCardSource(width: 320, height: 240, participant: 4, name: "carol", clock: { 1_700_000_000 })
    let frame = try #require(try card.nextFrame())
    let colour = TestCard.colour(for: 4)
    let pictureRows = TestCard.bandTop(240)
    var inColour = 0, white = 0
    for row in 0..<pictureRows {
        for col in 0..<320 {
            let luma = frame.y[row * frame.yStride + col]
            if luma == colour.0 { inColour += 1 } else if luma == 235 { white += 1 }
        }
    }
    #expect(Double(inColour) / Double(pictureRows * 320) > 0.7, "mostly the participant's colour")
    // The name's letters: large enough to read in a tile (a 5x7 glyph at 3 or more pixels a pixel).
    let nameOnly = try TestCardSource(width: 320, height: 240, participant: 4, clock: { 1_700_000_000 })
    let withoutName = try #require(try nameOnly.nextFrame())
    let nameRows = (0..<pictureRows).filter { row in
        (0..<320).contains { frame.y[row * frame.yStride + $0] != withoutName.y[row * withoutName.yStride + $0] }
    }
    #expect(nameRows.count >= 21, "the name spans \(nameRows.count) rows")
    #expect(white > 0)
}

@Test(arguments: [(640, 480, 320, 240), (1280, 720, 320, 180), (320, 240, 160, 120), (1280, 720, 640, 360)])
func theCodeSurvivesScaling(size: (Int, Int, Int, Int)) throws {
    let (width, height, toWidth, toHeight) = size
    let clock = FakeClock(start: 1_700_000_000.5, step: 1.0 / 15)
    let card = try TestCardSource(width: width, height: height, participant: 6, name: "dave", clock: { clock() })
    for _ in 0..<3 {
        let frame = try #require(try card.nextFrame())
        let sent = try #require(TestCard.decode(frame))
        let scaled = try I420Scaler.scale(frame, width: toWidth, height: toHeight)
        #expect(TestCard.decode(scaled) == sent, "\(width)x\(height) scaled to \(toWidth)x\(toHeight)")
    }
}

@Test func theCodeSurvivesVP8AtTheFloorBitrateAfterScaling() throws {
    // The harshest path a card takes: made at 640x480, scaled to the 320x240 that is sent, VP8 at the
    // pipeline's 30 kbps floor. Most frames must still read (the first ones are the encoder settling).
    let clock = FakeClock(start: 9_000, step: 1.0 / 15)
    let card = try TestCardSource(width: 640, height: 480, participant: 3, name: "erin", clock: { clock() })
    let encoder = try VP8Encoder(width: 320, height: 240, bitrateKbps: 30)
    let decoder = try VP8Decoder()
    var readable = 0, total = 0
    for _ in 0..<45 {
        let frame = try I420Scaler.scale(try #require(try card.nextFrame()), width: 320, height: 240)
        guard let encoded = try encoder.encode(frame), let decoded = try decoder.decode(encoded.data, timestamp: encoded.timestamp)
        else { continue }
        total += 1
        if let code = TestCard.decode(decoded), code == TestCard.decode(frame) { readable += 1 }
    }
    #expect(total >= 30)
    #expect(Double(readable) / Double(total) >= 0.8, "\(readable) of \(total) frames readable at 30 kbps")
}
