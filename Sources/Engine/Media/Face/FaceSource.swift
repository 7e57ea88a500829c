import EngineTransport

/// A synthetic camera that reads as a person: a drawn face (its own background, skin, hair and shirt per participant)
/// with the participant's name large in a dark band at the bottom. The eyes blink (every 3 to 6 s, for 150 ms, on a
/// schedule of its own per participant) and the mouth opens with the envelope of a `SpeechScript` (closed when the
/// script is silent, or when there is none, e.g. your own `--camera face`). Nothing else moves: no light, no counter,
/// no head motion, so between frames only `eyeBox` and `mouthBox` can differ (`FaceLayout.swift`), and a silent face
/// is the same picture frame after frame (its encoder sends almost nothing).
///
/// Cheap enough for several per process: the still picture is drawn once; a frame is the still planes with the eyes
/// and mouth painted in, and is drawn again only when the blink or the mouth's opening changes.
public final class FaceSource: VideoSource {
    public let width: Int
    public let height: Int
    public let frameRate: Double
    /// 0...255: picks the background (modulo 7, like the test card's colour) and the person's looks.
    public let participant: UInt8
    public let name: String?
    /// What the mouth says; nil keeps it closed.
    public let speech: SpeechScript?
    /// How many steps the mouth's opening has (0 is closed).
    public static let mouthLevels = 8
    /// Blinks: one every `blinkPeriod` ± `blinkJitter` seconds on average (so 3 to 6 s apart), each `blinkSeconds` long.
    public static let blinkPeriod = 4.5, blinkJitter = 0.75, blinkSeconds = 0.15

    private let clock: @Sendable () -> Double
    private let look: FaceLook
    private let still: I420Canvas
    private var last: (state: State, frame: VideoFrame)?

    /// What the moving parts show; equal states make identical pictures.
    struct State: Equatable {
        var eyesOpen: Bool
        var mouthLevel: Int
        var vowel: Int
    }

    /// - Parameter clock: wall-clock seconds, the time base of `speech`.
    public init(width: Int = 320, height: Int = 240, frameRate: Double = 15, participant: UInt8 = 0, name: String? = nil,
                speech: SpeechScript? = nil, clock: @escaping @Sendable () -> Double) throws(EngineError) {
        guard width >= 64, height >= 48, width <= 4096, height <= 4096, width % 2 == 0, height % 2 == 0 else {
            throw .invalidArgument("the face needs an even size from 64x48 to 4096x4096, not \(width)x\(height)")
        }
        self.width = width; self.height = height; self.frameRate = frameRate
        self.participant = participant; self.name = name; self.speech = speech; self.clock = clock
        look = FaceLook(participant: participant)
        var canvas = I420Canvas(width: width, height: height)
        FacePainter.drawStill(look, name: name, on: &canvas)
        still = canvas
    }

    public func nextFrame() throws(EngineError) -> VideoFrame? {
        let now = clock()
        let state = state(at: now)
        if let last, last.state == state {
            var frame = last.frame
            frame.timestamp = now
            return frame
        }
        var canvas = still
        FacePainter.drawEyes(open: state.eyesOpen, look, on: &canvas,
                             clip: PixelRect(Self.eyeBox.pixels(width: width, height: height)))
        FacePainter.drawMouth(level: state.mouthLevel, vowel: state.vowel, look, on: &canvas,
                              clip: PixelRect(Self.mouthBox.pixels(width: width, height: height)))
        let frame = try canvas.frame(timestamp: now)
        last = (state, frame)
        return frame
    }

    /// How open the mouth is at `t`, 0...1: the speech script's envelope (0 without a script).
    public func mouthOpenness(at t: Double) -> Double { speech?.envelope(at: t) ?? 0 }

    /// The mouth's step for an openness: 0 (closed) ... `mouthLevels`; anything audible opens it at least one step.
    public static func mouthLevel(_ openness: Double) -> Int {
        guard openness.isFinite, openness > 0 else { return 0 }
        return min(mouthLevels, max(1, Int((openness * Double(mouthLevels)).rounded())))
    }

    func state(at t: Double) -> State {
        let level = Self.mouthLevel(mouthOpenness(at: t))
        let vowel = level > 0 ? speech?.syllable(at: t)?.vowel ?? 0 : 0
        return State(eyesOpen: !Self.isBlinking(participant: participant, at: t), mouthLevel: level, vowel: vowel)
    }

    /// Whether `participant`'s eyes are shut at `t`. Blink k starts at (k + phase)·period ± jitter, with the phase and
    /// the jitter from a hash of the participant and k: any moment can be asked about, and people do not blink together.
    public static func isBlinking(participant: UInt8, at t: Double) -> Bool {
        guard t.isFinite, abs(t) < 1e11 else { return false }
        let p = Int(participant)
        let phase = SeededHash.unit(p, 0xB11)
        let k = Int((t / blinkPeriod - phase).rounded(.down))
        for j in (k - 1)...(k + 1) {
            let start = (Double(j) + phase) * blinkPeriod + blinkJitter * (2 * SeededHash.unit(p, j) - 1)
            if t >= start && t < start + blinkSeconds { return true }
        }
        return false
    }
}
