import EngineTransport
/// A synthetic camera made to be measured that still looks like someone in a call: a picture in the
/// participant's colour with their name in large letters, a sweeping bar (so motion is visible), the
/// frame counter in small seven-segment digits (so a person can check it is live), and along the
/// bottom a compact code strip of black and white blocks holding the frame counter, the capture time
/// and a checksum. The strip takes an eighth of the height (see `TestCard`); `TestCard.decode` reads
/// it back on the receiving side to count frames, detect freezes and measure glass-to-glass latency.
public final class TestCardSource: VideoSource {
    public let width: Int
    public let height: Int
    public let frameRate: Double
    /// 0...255: picks the card's colour so tiles can be told apart; also carried in the code.
    public let participant: UInt8
    /// Drawn large in the middle of the picture; nil draws no name (the colour alone tells tiles apart).
    public let name: String?
    private let clock: @Sendable () -> Double
    private var counter: UInt32 = 0

    /// - Parameter clock: capture time in seconds (wall clock, so peers on one machine can
    ///   compare); the card stores it in milliseconds modulo 2^32.
    public init(width: Int = 320, height: Int = 240, frameRate: Double = 15, participant: UInt8 = 0,
                name: String? = nil, clock: @escaping @Sendable () -> Double) throws(EngineError) {
        guard width >= 64, height >= 48, width % 2 == 0, height % 2 == 0 else {
            throw .invalidArgument("test card needs an even size of at least 64x48, not \(width)x\(height)")
        }
        self.width = width; self.height = height; self.frameRate = frameRate
        self.participant = participant; self.name = name; self.clock = clock
    }

    public func nextFrame() throws(EngineError) -> VideoFrame? {
        let now = clock()
        let millis = UInt32(truncatingIfNeeded: Int64((now * 1000).rounded(.down)))
        var canvas = I420Canvas(width: width, height: height)
        let colour = TestCard.colour(for: participant)
        let pictureHeight = TestCard.bandTop(height)
        canvas.fill(x: 0, y: 0, w: width, h: pictureHeight, yuv: colour)
        // The sweeping bar: a light stripe crossing the picture once every two seconds.
        let barWidth = max(2, width / 20)
        let period = max(1, Int(frameRate * 2))
        let bx = Int(counter % UInt32(period)) * (width - barWidth) / period
        canvas.fill(x: bx, y: 0, w: barWidth, h: pictureHeight, yuv: (200, 128, 128))
        if let name, !name.isEmpty { drawName(name, on: &canvas, pictureHeight: pictureHeight) }
        // The counter, small in the top-left corner: proof of life for a person, not the picture's subject.
        SevenSegment.draw(String(counter % 100_000), on: &canvas, x: width / 32, y: height / 24,
                          digitHeight: max(7, height / 8), yuv: (235, 128, 128))
        TestCard.encode(TestCard.Code(counter: counter, captureMillis: millis, participant: participant), on: &canvas)
        counter &+= 1
        return try canvas.frame(timestamp: now)
    }

    /// The name centred in the picture, as large as fits in 7/8 of the width and a quarter of the picture's height.
    private func drawName(_ name: String, on canvas: inout I420Canvas, pictureHeight: Int) {
        let text = String(name.prefix(12))
        let unitWidth = PixelFont.width(of: text, scale: 1)
        let scale = max(1, min(width * 7 / 8 / max(1, unitWidth), pictureHeight / 4 / PixelFont.glyphHeight))
        let textWidth = PixelFont.width(of: text, scale: scale), textHeight = PixelFont.glyphHeight * scale
        PixelFont.draw(text, on: &canvas, x: (width - textWidth) / 2, y: (pictureHeight - textHeight) / 2 + pictureHeight / 12,
                       scale: scale, yuv: (235, 128, 128))
    }
}

/// The code strip's layout and the decoder that reads it back.
///
/// The strip is the bottom eighth of the picture, black, holding 2 rows of 40 blocks (80 bits: the
/// counter, the capture time, the participant and a checksum), white for 1. A block is 1/40 of the
/// width and 1/20 of the height (8x12 pixels at 320x240), with a black margin of 1/40 of the height
/// under the rows. Every size is a fixed fraction of the picture, so a card scaled to any size on
/// the way decodes at that size, and the decoder reads only the middle half of each block, so blur
/// at block edges from VP8 at low bitrates or from scaling does not matter. Its Python twin, for
/// pictures received by aiortc and Chromium, is Tests/testsupport/card_reader.py: change both together.
public enum TestCard {
    public struct Code: Sendable, Equatable {
        public var counter: UInt32
        public var captureMillis: UInt32
        public var participant: UInt8
    }

    static let columns = 40
    /// Rows of blocks: counter and time (64 bits) then participant and checksum (16 bits).
    static let rows = 2
    static let bits = 80
    static func blockWidth(_ width: Int) -> Int { width / columns }
    static func blockHeight(_ height: Int) -> Int { height / 20 }
    static func bottomMargin(_ height: Int) -> Int { height / 40 }
    /// The first row of the strip: everything above it is the picture.
    static func bandTop(_ height: Int) -> Int { height - blockHeight(height) * rows - bottomMargin(height) }

    /// A distinct, mid-bright colour per participant (hue steps of 360/7 degrees), as Y'CbCr.
    public static func colour(for participant: UInt8) -> (UInt8, UInt8, UInt8) {
        let hues: [(UInt8, UInt8, UInt8)] = [
            (81, 90, 240), (145, 54, 34), (110, 200, 60), (90, 180, 200),
            (140, 70, 180), (120, 170, 150), (100, 110, 90),
        ]
        return hues[Int(participant) % hues.count]
    }

    /// A checksum over the payload, so a half-decoded or foreign picture is rejected, not misread.
    static func checksum(_ c: Code) -> UInt8 {
        var x = c.counter ^ (c.captureMillis &* 0x9E37_79B9) ^ UInt32(c.participant) &* 0x85EB_CA6B
        x ^= x >> 16
        x = x &* 0x7FEB_352D
        x ^= x >> 15
        return UInt8(truncatingIfNeeded: x)
    }

    /// The 80 bits, most significant first: counter (32), capture time (32), participant (8), checksum (8).
    static func bits(of c: Code) -> [Bool] {
        let words: [UInt16] = [UInt16(c.counter >> 16), UInt16(c.counter & 0xFFFF),
                               UInt16(c.captureMillis >> 16), UInt16(c.captureMillis & 0xFFFF),
                               UInt16(c.participant) << 8 | UInt16(checksum(c))]
        return words.flatMap { w in (0..<16).map { (w >> (15 - $0)) & 1 == 1 } }
    }

    /// Where block `i` (0..<80) sits: left to right, then the next row.
    static func blockOrigin(_ i: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let bw = blockWidth(width), left = (width - bw * columns) / 2
        return (left + (i % columns) * bw, bandTop(height) + (i / columns) * blockHeight(height))
    }

    static func encode(_ code: Code, on canvas: inout I420Canvas) {
        let top = bandTop(canvas.height)
        canvas.fill(x: 0, y: top, w: canvas.width, h: canvas.height - top, yuv: (16, 128, 128))
        let bw = blockWidth(canvas.width), bh = blockHeight(canvas.height)
        for (i, bit) in bits(of: code).enumerated() where bit {
            let origin = blockOrigin(i, width: canvas.width, height: canvas.height)
            canvas.fill(x: origin.x, y: origin.y, w: bw, h: bh, yuv: (235, 128, 128))
        }
    }

    /// Reads the code from a decoded frame (any size the card was sent at), or nil when the strip is
    /// not there or its checksum fails.
    public static func decode(_ frame: VideoFrame) -> Code? {
        let bw = blockWidth(frame.width), bh = blockHeight(frame.height)
        guard bw >= 2, bh >= 2 else { return nil }
        var words = [UInt16](repeating: 0, count: bits / 16)
        for i in 0..<bits {
            let origin = blockOrigin(i, width: frame.width, height: frame.height)
            let x0 = origin.x + bw / 4, y0 = origin.y + bh / 4
            var sum = 0, n = 0
            for y in y0..<(y0 + max(1, bh / 2)) {
                for x in x0..<(x0 + max(1, bw / 2)) { sum += Int(frame.y[y * frame.yStride + x]); n += 1 }
            }
            let mean = sum / max(1, n)
            // Black is 16 and white 235: anything far from both is not our strip.
            if mean > 90 && mean < 160 { return nil }
            if mean >= 126 { words[i / 16] |= 1 << (15 - UInt16(i % 16)) }
        }
        // An all-black strip reads as counter 0, time 0, participant 0, whose checksum is 0: any picture that is dark
        // at the bottom (aiortc's half-white test picture) would pass. A card's time is the wall clock, never 0.
        guard words.contains(where: { $0 != 0 }) else { return nil }
        let code = Code(counter: UInt32(words[0]) << 16 | UInt32(words[1]),
                        captureMillis: UInt32(words[2]) << 16 | UInt32(words[3]),
                        participant: UInt8(words[4] >> 8))
        return checksum(code) == UInt8(words[4] & 0xFF) ? code : nil
    }
}

/// A tightly packed I420 picture being drawn, with rectangle fills in Y'CbCr.
struct I420Canvas {
    let width: Int, height: Int
    var y: [UInt8], u: [UInt8], v: [UInt8]

    init(width: Int, height: Int) {
        self.width = width; self.height = height
        y = [UInt8](repeating: 16, count: width * height)
        u = [UInt8](repeating: 128, count: (width / 2) * (height / 2))
        v = u
    }

    mutating func fill(x: Int, y top: Int, w: Int, h: Int, yuv: (UInt8, UInt8, UInt8)) {
        let x0 = max(0, x), y0 = max(0, top), x1 = min(width, x + w), y1 = min(height, top + h)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 { for col in x0..<x1 { y[row * width + col] = yuv.0 } }
        let cw = width / 2
        for row in (y0 / 2)..<((y1 + 1) / 2) where row < height / 2 {
            for col in (x0 / 2)..<((x1 + 1) / 2) where col < cw {
                u[row * cw + col] = yuv.1; v[row * cw + col] = yuv.2
            }
        }
    }

    func frame(timestamp: Double) throws(EngineError) -> VideoFrame {
        try VideoFrame(width: width, height: height, y: y, u: u, v: v, timestamp: timestamp)
    }
}

/// Seven-segment digits drawn with rectangles: big, legible at any size, no font needed.
enum SevenSegment {
    //  a
    // f b
    //  g
    // e c
    //  d
    static let segments: [Character: String] = [
        "0": "abcdef", "1": "bc", "2": "abged", "3": "abgcd", "4": "fgbc", "5": "afgcd",
        "6": "afgedc", "7": "abc", "8": "abcdefg", "9": "abcdfg", ":": ":",
    ]

    static func draw(_ text: String, on canvas: inout I420Canvas, x: Int, y: Int, digitHeight: Int, yuv: (UInt8, UInt8, UInt8)) {
        let h = max(7, digitHeight), w = h / 2, t = max(1, h / 8)
        var cx = x
        for ch in text {
            guard let segs = segments[ch] else { cx += w + t * 2; continue }
            if ch == ":" {
                canvas.fill(x: cx, y: y + h / 3, w: t, h: t, yuv: yuv)
                canvas.fill(x: cx, y: y + 2 * h / 3, w: t, h: t, yuv: yuv)
                cx += t * 3
                continue
            }
            for s in segs {
                switch s {
                case "a": canvas.fill(x: cx, y: y, w: w, h: t, yuv: yuv)
                case "b": canvas.fill(x: cx + w - t, y: y, w: t, h: h / 2, yuv: yuv)
                case "c": canvas.fill(x: cx + w - t, y: y + h / 2, w: t, h: h - h / 2, yuv: yuv)
                case "d": canvas.fill(x: cx, y: y + h - t, w: w, h: t, yuv: yuv)
                case "e": canvas.fill(x: cx, y: y + h / 2, w: t, h: h - h / 2, yuv: yuv)
                case "f": canvas.fill(x: cx, y: y, w: t, h: h / 2, yuv: yuv)
                case "g": canvas.fill(x: cx, y: y + h / 2 - t / 2, w: w, h: t, yuv: yuv)
                default: break
                }
            }
            cx += w + t * 2
        }
    }
}
