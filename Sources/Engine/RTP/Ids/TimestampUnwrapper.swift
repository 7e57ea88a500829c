/// Extends 32-bit RTP timestamps to 64 bits the same way `SequenceUnwrapper` extends sequence
/// numbers: each new value is placed nearest to the highest one seen. The first value lands in
/// cycle 1 so a reordered earlier value stays non-negative.
public struct TimestampUnwrapper: Sendable {
    private var highest: Int64?

    public init() {}

    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let h = highest else {
            let v = Int64(1) << 32 + Int64(timestamp)
            highest = v
            return v
        }
        let delta = Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: h)))
        let v = max(0, h + delta)
        if v > h { highest = v }
        return v
    }
}
