@testable import EngineTransport

/// The seeded PRNG of the transport tests: Engine's SplitMix64 (`SplitMixRandom`), plus helpers.
typealias SplitMix64 = SplitMixRandom

extension SplitMixRandom {
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &self) } }
    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}

/// Parses "00 01 a1 ..." (whitespace and newlines ignored) into bytes; test fixtures are typed this way.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { $0.isHexDigit }
    var out: [UInt8] = []
    var i = digits.startIndex
    while i < digits.endIndex {
        let j = digits.index(i, offsetBy: 2)
        out.append(UInt8(digits[i..<j], radix: 16)!)
        i = j
    }
    return out
}
