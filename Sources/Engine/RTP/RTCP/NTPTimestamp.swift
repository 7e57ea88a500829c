import EngineTransport
/// A 64-bit NTP timestamp (RFC 3550 §4): seconds since 1900 in the high 32 bits, fraction in the
/// low 32. Only differences matter to conftui (RTT per §6.4.1), so the session maps its
/// `TransportTime` origin onto any NTP instant it likes (`ntpEpoch`).
public struct NTPTimestamp: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// 2026-01-01T00:00:00Z in NTP seconds: a plausible wall clock for the SR when the caller has none.
    public static let defaultEpochSeconds: UInt64 = 3_976_214_400

    public init(_ time: TransportTime, epochSeconds: UInt64 = NTPTimestamp.defaultEpochSeconds) {
        let ns = UInt64(max(0, time.nanoseconds))
        let secs = ns / 1_000_000_000 + epochSeconds
        let frac = ((ns % 1_000_000_000) << 32) / 1_000_000_000
        rawValue = secs << 32 | frac
    }

    /// The middle 32 bits, the unit of LSR and DLSR (1/65536 s).
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }
}
