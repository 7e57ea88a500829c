import Testing
@testable import EngineTransport

/// RFC 7675 consent freshness on the selected pair.
@Suite struct IceConsentTests {
    /// Binding requests A sent after `t` (connectivity checks are over by then, so these are consent checks).
    func requestTimes(_ h: IcePairHarness, from name: String, after t: TransportTime) -> [TransportTime] {
        h.sent[name, default: []].compactMap { (at, transmit) in
            guard at > t, let m = try? StunMessage(decoding: transmit.bytes), m.type == .bindingRequest else { return nil }
            return at
        }
    }

    @Test func consentChecksEveryFourToSixSeconds() throws {
        let h = IcePairHarness(seed: 21)
        h.start()
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        let connectedAt = h.now
        h.run(for: .seconds(120))
        for name in ["A", "B"] {
            let times = requestTimes(h, from: name, after: connectedAt)
            // RFC 7675 §5.1: 5 s randomized by [0.8, 1.2] → gaps of 4-6 s, about 24 checks in 120 s.
            #expect((20...30).contains(times.count), "\(name) sent \(times.count) consent checks")
            let gaps = zip(times.dropFirst(), times).map { ($0.0 - $0.1) }
            #expect(gaps.allSatisfy { $0 >= .seconds(4) && $0 <= .seconds(6) })
            #expect(Set(gaps).count > 1, "jitter must vary the interval")
        }
        #expect(h.a.state == .connected && h.b.state == .connected)
    }

    @Test func lossOfConsentGoesDisconnectedThenFailed() throws {
        let h = IcePairHarness(seed: 22)
        h.start()
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        h.run(for: .seconds(12))
        let cutAt = h.now
        h.network.configure { $0.cut = true }
        h.run(for: .seconds(40))
        for name in ["A", "B"] {
            let disconnected = try #require(h.firstTime(name, reaches: .disconnected))
            let failed = try #require(h.firstTime(name, reaches: .failed))
            // The last valid response came at most one consent interval (≤ 6 s) before the cut.
            #expect(disconnected - cutAt <= .seconds(8), "\(name) disconnected late")
            #expect(disconnected - cutAt >= .seconds(2), "\(name) disconnected early")
            // RFC 7675 §5.1: consent expires 30 s after the last valid response, never earlier.
            #expect(failed - cutAt <= .seconds(30))
            #expect(failed - cutAt >= .seconds(24))
            #expect(h.states(name).map(\.1).suffix(2) == [.disconnected, .failed])
            // §5.1: after expiry the agent stops sending on the pair.
            #expect(h.sent[name, default: []].allSatisfy { $0.0 <= failed })
        }
    }

    @Test func shortOutageRecoversFromDisconnected() throws {
        let h = IcePairHarness(seed: 23)
        h.start()
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        h.network.configure { $0.cut = true }
        h.run(for: .seconds(12))
        #expect(h.a.state == .disconnected)
        h.network.configure { $0.cut = false }
        #expect(h.run(for: .seconds(10)) { $0.bothConnected })
        #expect(h.states("A").map(\.1) == [.checking, .connected, .disconnected, .connected])
    }

    @Test func roundTripTimeIsMeasuredFromChecks() {
        let h = IcePairHarness(seed: 24)
        h.network.configure { $0.delay = .milliseconds(35) }
        h.start()
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        h.run(for: .seconds(20))
        // Two one-way delays of 35 ms, measured from consent checks on the selected pair.
        #expect(h.a.roundTripTime == .milliseconds(70))
        #expect(h.b.roundTripTime == .milliseconds(70))
    }
}
