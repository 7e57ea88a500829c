import Testing
@testable import Engine

/// A publisher in a forwarding server's room stops the simulcast encoding nobody takes, and only then.
@Suite struct SimulcastDemandTests {
    let a = RemotePeerID("a"), b = RemotePeerID("b"), c = RemotePeerID("c")

    @Test func aRoomWithNobodyElseKeepsBoth() {
        #expect(SimulcastDemand().layers == (true, true))
    }

    @Test func somebodyWhoNeverSaidKeepsBoth() {
        var d = SimulcastDemand()
        d.joined(a); d.joined(b)
        d.heard(.low, from: a)
        #expect(d.layers == (true, true))   // b may be a browser, taking either
        d.heard(.low, from: b)
        #expect(d.layers == (false, true))
    }

    @Test func everyoneTakingTheFullOneStopsTheLowOne() {
        var d = SimulcastDemand()
        for p in [a, b, c] { d.joined(p); d.heard(.full, from: p) }
        #expect(d.layers == (true, false))
        d.heard(.low, from: b)   // b's tiles shrank
        #expect(d.layers == (true, true))
    }

    @Test func aWishHeardBeforeTheJoinCountsOnceTheyAreIn() {
        var d = SimulcastDemand()
        d.joined(a); d.heard(.low, from: a)
        d.heard(.full, from: b)   // the data channel outran the server's event
        #expect(d.layers == (false, true))
        d.joined(b)
        #expect(d.layers == (true, true))
    }

    @Test func whoLeavesNoLongerCounts() {
        var d = SimulcastDemand()
        d.joined(a); d.joined(b)
        d.heard(.low, from: a); d.heard(.full, from: b)
        d.left(b)
        #expect(d.layers == (false, true))
        d.joined(b)   // back, as a newcomer: nothing said yet
        #expect(d.layers == (true, true))
        d.left(a); d.left(b)
        #expect(d.layers == (true, true))
    }
}
