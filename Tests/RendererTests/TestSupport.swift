import EngineTestSupport
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

}

/// The renderer tests' draws from the shared generator, kept as they were so each seed still makes the same pictures.
extension SplitMixRandom {
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
}

extension String {
    func replacingOccurrences(of a: String, with b: String) -> String {
        var out = ""
        for ch in self { out += String(ch) == a ? b : String(ch) }
        return out
    }
}
