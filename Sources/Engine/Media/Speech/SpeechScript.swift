#if canImport(Glibc)
import Glibc
#endif

/// Who talks when in a synthetic room, and how loud every moment of that talk is.
///
/// `seats` participants take turns of `turnSeconds` each, in seat order, counted from `epoch` (wall-clock seconds,
/// the demo's start); before the epoch nobody talks. In its own turn a seat talks in phrases of 3 to 8 syllables
/// (4 to 6 a second, of varied lengths, each with a vowel, a loudness and a pitch accent) with short pauses between
/// phrases, and it is silent for `leadIn` at the start of the turn and `tail` at its end, so two speakers never overlap
/// even when their audio arrives late. Everything comes from a hash of the seat, the turn and the syllable's index:
/// the script is a pure value, and one copy in the audio thread (`SpeechSource`) and one in the video thread
/// (`FaceSource`) agree on every moment, so mouths, meters and the speaking marker move together.
public struct SpeechScript: Sendable, Hashable {
    public let seat: Int
    public let seats: Int
    public let epoch: Double
    public let turnSeconds: Double

    /// Silence at the start and at the end of every turn: together, the gap between two speakers.
    public static let leadIn = 0.25
    public static let tail = 0.3
    /// Syllables last 0.16 to 0.25 s: 4 to 6 a second.
    public static let syllableSeconds = 0.16...0.25
    /// How many vowels a syllable picks from (the voice's formant table and the mouth's widths have this many).
    public static let vowels = 5

    /// Out-of-range values are clamped (seat into 0..<seats, 1 to 64 seats, turns of 1.5 to 60 s; a non-finite epoch
    /// is 0), so any value makes a working script.
    public init(seat: Int, seats: Int, epoch: Double, turnSeconds: Double = 4) {
        self.seats = min(max(seats, 1), 64)
        self.seat = min(max(seat, 0), self.seats - 1)
        self.epoch = epoch.isFinite ? epoch : 0
        self.turnSeconds = turnSeconds.isFinite ? min(max(turnSeconds, 1.5), 60) : 4
    }

    /// The voice's base pitch: 100 to 230 Hz, fixed per seat (the demo's names alternate lower and higher voices).
    public var pitchHz: Double {
        let pitches: [Double] = [210, 190, 115, 225, 130, 200, 105, 180, 140, 220, 120]
        return pitches[seat % pitches.count]
    }

    /// The turn (0, 1, 2, ... from the epoch) that `t` falls in; nil before the epoch or beyond any sensible date.
    public func turn(at t: Double) -> Int? {
        guard t.isFinite else { return nil }
        let since = t - epoch
        guard since >= 0, since < 1e11 else { return nil }
        return Int((since / turnSeconds).rounded(.down))
    }

    /// Whose turn it is at `t` (nil before the epoch): exactly one seat at any time.
    public func speaker(at t: Double) -> Int? { turn(at: t).map { $0 % seats } }

    public func isTurn(at t: Double) -> Bool { speaker(at: t) == seat }

    /// When turn `j` begins (wall-clock seconds).
    public func turnStart(_ j: Int) -> Double { epoch + Double(j) * turnSeconds }

    /// 0...1: how loud this seat is at `t` (0 outside its syllables: in pauses, between turns, in others' turns).
    public func envelope(at t: Double) -> Double { syllable(at: t)?.envelope(at: t) ?? 0 }

    /// The syllable this seat is saying at `t`, if any.
    public func syllable(at t: Double) -> Syllable? {
        guard let j = turn(at: t), j % seats == seat else { return nil }
        return syllables(inTurn: j).first { $0.start <= t && t < $0.end }
    }

    /// Every syllable of turn `j` in order; empty when the turn is another seat's.
    public func syllables(inTurn j: Int) -> [Syllable] {
        guard j >= 0, j % seats == seat else { return [] }
        let end = turnStart(j) + turnSeconds - Self.tail
        let longest = Self.syllableSeconds.upperBound, shortest = Self.syllableSeconds.lowerBound
        func random(_ i: Int, _ salt: Int) -> Double { SeededHash.unit(seat, j, i, salt) }
        var out: [Syllable] = []
        var t = turnStart(j) + Self.leadIn
        var level = 0.0
        var left = 3 + Int(random(-1, 7) * 6)
        var i = 0
        while t + shortest <= end, i < 1_000 {
            let duration = shortest + (longest - shortest) * random(i, 0)
            guard t + duration <= end else { break }
            left -= 1
            // The phrase ends after its count, or when another syllable might not fit before the turn's tail.
            let phraseEnds = left <= 0 || t + duration + longest > end
            // A quarter of the joins close the lips (m, b, p): the sound stops; the others only dip (t, s, k).
            let endLevel = phraseEnds || random(i, 1) < 0.25 ? 0 : 0.3 + 0.15 * random(i, 2)
            out.append(Syllable(start: t, duration: duration, vowel: min(Self.vowels - 1, Int(random(i, 3) * Double(Self.vowels))),
                                peak: 0.8 + 0.2 * random(i, 4), pitch: 0.92 + 0.2 * random(i, 5),
                                startLevel: level, endLevel: endLevel))
            t += duration
            level = endLevel
            i += 1
            if phraseEnds {
                t += 0.18 + 0.27 * random(i, 6)
                left = 3 + Int(random(i, 7) * 6)
            }
        }
        return out
    }

    /// One syllable: a rise from `startLevel` to `peak`, a hold, and a fall to `endLevel` (the next one's start).
    public struct Syllable: Sendable, Equatable {
        public let start: Double
        public let duration: Double
        /// 0..<SpeechScript.vowels: a, e, i, o, u.
        public let vowel: Int
        public let peak: Double
        /// The pitch accent, a factor on the seat's pitch (0.92 to 1.12).
        public let pitch: Double
        public let startLevel: Double
        public let endLevel: Double
        public var end: Double { start + duration }

        /// 0...1 at `t` (raised-cosine rise over the first 30 %, fall over the last 35 %): continuous, so neither the
        /// sound nor the mouth jumps.
        public func envelope(at t: Double) -> Double {
            guard t.isFinite, duration > 0 else { return 0 }
            let u = min(max((t - start) / duration, 0), 1)
            func smooth(_ x: Double) -> Double { 0.5 - 0.5 * cos(Double.pi * min(max(x, 0), 1)) }
            if u < 0.3 { return startLevel + (peak - startLevel) * smooth(u / 0.3) }
            if u > 0.65 { return endLevel + (peak - endLevel) * smooth((1 - u) / 0.35) }
            return peak
        }
    }
}
