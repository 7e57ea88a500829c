/// A stateless hash of a few integers (SplitMix64's finaliser over each in turn), so a synthetic participant's looks,
/// blinks and syllables look random yet are the same on every call and in every process: the audio thread and the
/// video thread can each ask about any moment and agree without sharing state.
enum SeededHash {
    static func bits(_ values: Int...) -> UInt64 { hash(values) }

    /// 0 ≤ result < 1.
    static func unit(_ values: Int...) -> Double { Double(hash(values) >> 11) / Double(UInt64(1) << 53) }

    private static func hash(_ values: [Int]) -> UInt64 {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for v in values {
            var z = x ^ (UInt64(bitPattern: Int64(v)) &+ 0x9E37_79B9_7F4A_7C15)
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            x = z ^ (z >> 31)
        }
        return x
    }
}
