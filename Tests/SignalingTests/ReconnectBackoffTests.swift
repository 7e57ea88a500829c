import EngineTestSupport
import Testing
@testable import Signaling

/// The signaling reconnect backoff (`ReconnectBackoff`) on a virtual monotonic clock.
@Suite struct ReconnectBackoffTests {
    @Test func aReconnectStormGrowsCapsJittersAndResets() {
        var backoff = ReconnectBackoff(random: SplitMixRandom(seed: 42))
        var now = MonotonicInstant(seconds: 5)
        for cycle in 0..<50 {
            // Each cycle: lost, wait up to six times (each attempt fails), then one join succeeds.
            var expected = 0.5
            for _ in 0..<6 {
                let at = backoff.failed(now: now)
                let wait = at - now
                #expect(wait >= expected * 0.8 - 1e-9 && wait <= expected * 1.2 + 1e-9, "cycle \(cycle): \(wait) for \(expected)")
                let early = backoff.isDue(now: MonotonicInstant(seconds: at.seconds.nextDown))
                let due = backoff.isDue(now: at)
                #expect(!early && due)
                now = at
                expected = min(expected * 2, 10)
            }
            #expect(backoff.base == .seconds(10))   // capped after 0.5, 1, 2, 4, 8, 16 → 10
            backoff.joined()
            #expect(backoff.base == .milliseconds(500) && backoff.failures == 0 && backoff.nextDeadline == nil)
            now = now + 3
        }
    }

    @Test func theJitterIsSeededAndSpreadWithinTwentyPercent() {
        var x = ReconnectBackoff(random: SplitMixRandom(seed: 7)), y = ReconnectBackoff(random: SplitMixRandom(seed: 7))
        var seen = Set<Double>()
        for _ in 0..<100 {
            let w = x.failed(now: MonotonicInstant(seconds: 0))
            let v = y.failed(now: MonotonicInstant(seconds: 0))
            #expect(w == v)   // same seed, same waits: reproducible
            #expect(w.seconds >= 0.4 && w.seconds <= 0.6)
            seen.insert(w.seconds)
            x.joined(); y.joined()
        }
        #expect(seen.count > 50)   // spread, not one value
    }
}
