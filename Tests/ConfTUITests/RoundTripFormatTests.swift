import Testing
@testable import ConfTUI

/// Loopback and LAN round trips are fractions of a millisecond: the stats overlay keeps tenths below 10 ms.
@Suite struct RoundTripFormatTests {
    @Test func tenthsBelowTenMillisecondsWholeAbove() {
        #expect(RoomView.rtt(0.04) == "0.0ms")
        #expect(RoomView.rtt(0.4) == "0.4ms")
        #expect(RoomView.rtt(3.24) == "3.2ms")
        #expect(RoomView.rtt(9.96) == "10ms")
        #expect(RoomView.rtt(45.2) == "45ms")
    }
}
