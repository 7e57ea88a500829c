#if canImport(Glibc)
import Glibc
#endif

/// The one monotonic clock of every target (CLOCK_MONOTONIC): for timeouts, waits, pacing and elapsed times, never
/// wall-clock time, which can step (NTP, a suspended laptop's resync). Its origin is arbitrary; only differences mean
/// anything. It lives here, below both Engine and Signaling, because both read it; `EngineTransport` and `Signaling`
/// re-export it, so whoever imports either sees it. The sans-IO cores never call it: their `now` is an input.
public enum MonotonicClock {
    /// Seconds from the clock's origin.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The same reading in whole nanoseconds (for integer instants such as Engine's `TransportTime`).
    public static func nanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
