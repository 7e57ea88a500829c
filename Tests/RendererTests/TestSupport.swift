@testable import Renderer

/// Small helpers shared by the renderer tests.
enum TestSupport {
    static func esc(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// A readable form of terminal bytes for failure messages.
    static func show(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\u{1B}", with: "⎋")
    }

    /// An RGB picture from rows of colours.
    static func picture(_ rows: [[RGB]]) -> RGBImage {
        var pixels: [UInt8] = []
        for row in rows { for c in row { pixels += [c.r, c.g, c.b] } }
        return try! RGBImage(width: rows[0].count, height: rows.count, pixels: pixels)
    }

    /// A deterministic generator (SplitMix64) so failures reproduce from the seed.
    struct Rng {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
        }
        mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    }
}

extension String {
    func replacingOccurrences(of a: String, with b: String) -> String {
        var out = ""
        for ch in self { out += String(ch) == a ? b : String(ch) }
        return out
    }
}
