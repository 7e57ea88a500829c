import Testing
@testable import Engine

/// The weakest link does not set everyone's picture: at most two encodings, split at the widest gap.
@Suite struct EncodingPlanTests {
    let a = RemotePeerID("a"), b = RemotePeerID("b"), c = RemotePeerID("c"), d = RemotePeerID("d")

    @Test func peersWithSimilarTargetsShareOneEncodingAtTheLowest() {
        let plan = EncodingPlan.make(targets: [a: 300, b: 280, c: 260], ceilingKbps: 300, previous: nil)
        #expect(plan == EncodingPlan(fullKbps: 260))
        #expect(plan.layer(of: a) == .full && plan.layer(of: c) == .full)
    }

    @Test func oneSlowPeerGetsItsOwnEncodingAndTheOthersKeepTheFullRate() {
        // Three peers with room for more than the 300 kbit/s ceiling, one behind a 300 kbit/s link (its video
        // target is what is left after audio and the estimator's margin).
        let plan = EncodingPlan.make(targets: [a: 1200, b: 900, c: 2000, d: 210], ceilingKbps: 300, previous: nil)
        #expect(plan == EncodingPlan(fullKbps: 300, lowKbps: 210, lowPeers: [d]))
    }

    @Test func theSplitIsAtTheWidestGap() {
        let plan = EncodingPlan.make(targets: [a: 100, b: 120, c: 400, d: 450], ceilingKbps: 500, previous: nil)
        #expect(plan == EncodingPlan(fullKbps: 400, lowKbps: 100, lowPeers: [a, b]))
    }

    @Test func aSplitPlanStaysSplitUntilTheGapClosesWellBelowTheSplitThreshold() {
        let split = EncodingPlan.make(targets: [a: 300, d: 200], ceilingKbps: 300, previous: nil)
        #expect(split.lowKbps == 200)
        // 300/250 = 1.2: not enough to split afresh, enough to stay split (no keyframe for a flip).
        let stays = EncodingPlan.make(targets: [a: 300, d: 250], ceilingKbps: 300, previous: split)
        #expect(stays == EncodingPlan(fullKbps: 300, lowKbps: 250, lowPeers: [d]))
        #expect(EncodingPlan.make(targets: [a: 300, d: 250], ceilingKbps: 300, previous: nil).lowKbps == nil)
        // 300/280 < 1.1: merged again.
        #expect(EncodingPlan.make(targets: [a: 300, d: 280], ceilingKbps: 300, previous: stays) == EncodingPlan(fullKbps: 280))
    }

    @Test func targetsAreClampedAndAnEmptyRoomKeepsTheCeiling() {
        #expect(EncodingPlan.make(targets: [:], ceilingKbps: 300, previous: nil) == EncodingPlan(fullKbps: 300))
        #expect(EncodingPlan.make(targets: [a: 1, b: 5], ceilingKbps: 300, previous: nil) == EncodingPlan(fullKbps: EncodingPlan.minimumKbps))
    }

    @Test func aPlanIsCloseToAnotherOnlyWithTheSameLayersAndRatesWithinTenPercent() {
        let plan = EncodingPlan(fullKbps: 400, lowKbps: 200, lowPeers: [d])
        #expect(plan.isClose(to: EncodingPlan(fullKbps: 440, lowKbps: 185, lowPeers: [d])))
        #expect(!plan.isClose(to: EncodingPlan(fullKbps: 450, lowKbps: 200, lowPeers: [d])), "12 % off in the full rate")
        #expect(!plan.isClose(to: EncodingPlan(fullKbps: 400, lowKbps: 170, lowPeers: [d])), "15 % off in the low rate")
        #expect(!plan.isClose(to: EncodingPlan(fullKbps: 400, lowKbps: 200, lowPeers: [c])), "another peer on the low layer")
        #expect(!plan.isClose(to: EncodingPlan(fullKbps: 400)), "one encoding instead of two")
        #expect(EncodingPlan(fullKbps: 400).isClose(to: EncodingPlan(fullKbps: 370)))
    }
}
