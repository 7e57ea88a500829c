import Testing
@testable import Signaling

/// Janus coalesces and postpones subscriber offers ("clients should never expect an offer any time they request
/// one"): the client never waits for one, never asks for a feed twice, and asks for late feeds after `attached`.
@Suite struct JanusSubscriptionTests {
    /// Joined as feed 10 with publisher 20; the subscriber handle attached, joined and its offer answered.
    static func subscribed() -> JanusHarness {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Janus.publisher(20, "bob")])
        h.janus(Janus.success(h.lastTransaction, id: Janus.subscriberHandle))
        let join = h.lastTransaction
        h.janus(Janus.ack(join))
        h.janus(Janus.event(Janus.subscriberHandle, transaction: join,
                            data: #"{"videoroom":"attached","room":1234,"streams":\#(Janus.streams([20]))}"#, jsep: ("offer", Janus.sdp("s1"))))
        return h
    }

    func subscribes(_ h: JanusHarness) -> [[Int]] {
        h.sent.filter { $0.frame["body"]?["request"] == .string("subscribe") }.map { $0.frame["body"]?["streams"]?.feeds ?? [] }
    }

    @Test func feedsArrivingWhileTheSubscriberAttachesOrJoinsAreAskedForAfter() throws {
        var h = JanusHarness()
        _ = h.joinRoom()
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob")])))
        #expect(h.last["janus"] == .string("attach"))
        let count = h.sent.count
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(21, "eve")])))
        #expect(h.sent.count == count)   // no second handle
        h.janus(Janus.success(h.lastTransaction, id: Janus.subscriberHandle))
        #expect(h.lastBody?["streams"]?.feeds == [20, 21])
        let join = h.lastTransaction
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(22, "dan")])))
        #expect(h.lastTransaction == join)   // nothing while the join is in flight
        let offer = h.janus(Janus.event(Janus.subscriberHandle, transaction: join,
                                        data: #"{"videoroom":"attached","room":1234,"streams":\#(Janus.streams([20, 21]))}"#,
                                        jsep: ("offer", Janus.sdp("s1"))))
        #expect(offer.count == 1)
        #expect(subscribes(h) == [[22]])
    }

    @Test func twoSubscribesAnsweredByOneOfferNeverDeadlock() throws {
        var h = Self.subscribed()
        // The first offer is not answered yet: Janus postpones both subscribes with `updating`.
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(30, "a")])))
        let first = h.lastTransaction
        #expect(h.janus(Janus.event(Janus.subscriberHandle, transaction: first, data: #"{"videoroom":"updating","room":1234}"#)).withoutLogs.isEmpty)
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(31, "b")])))
        let second = h.lastTransaction
        #expect(first != second)
        h.janus(Janus.event(Janus.subscriberHandle, transaction: second, data: #"{"videoroom":"updating","room":1234}"#))
        #expect(subscribes(h) == [[30], [31]])
        // Our answer to the first offer; Janus then pushes one offer for both, on no transaction.
        h.input(.subscriberAnswer(sdp: "v=0\r\n"))
        let start = h.lastTransaction
        h.janus(Janus.event(Janus.subscriberHandle, transaction: start, data: #"{"videoroom":"event","started":"ok"}"#))
        let offers = h.janus(Janus.event(Janus.subscriberHandle, data: #"{"videoroom":"updated","room":1234,"streams":\#(Janus.streams([20, 30, 31]))}"#,
                                         jsep: ("offer", Janus.sdp("s2"))))
        guard case .subscriberOffer(_, let streams)? = offers.first else { Issue.record("\(offers)"); return }
        #expect(offers.count == 1 && Set(streams.compactMap(\.feed)) == [20, 30, 31])
        // A later publisher is asked for at once: nothing was waiting for an offer.
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(32, "c")])))
        #expect(subscribes(h) == [[30], [31], [32]])
        // No request is left to time out.
        let late = h.advance(by: 40) { harness, frame in
            if frame["janus"] == .string("keepalive"), let t = frame["transaction"]?.stringValue { harness.janus(Janus.ack(t)) }
        }
        #expect(late.failure == nil)
        #expect(late.logs.allSatisfy { $0.contains("subscribe") }, "\(late)")   // only 32's unanswered subscribe
    }

    @Test func anUpdatedWithoutAnOfferIsLoggedAndNothingWaits() {
        var h = Self.subscribed()
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(30, "a")])))
        let effects = h.janus(Janus.event(Janus.subscriberHandle, transaction: h.lastTransaction, data: #"{"videoroom":"updated","room":1234}"#))
        #expect(effects.withoutLogs.isEmpty && effects.logs.count == 1)
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(31, "b")])))
        #expect(subscribes(h) == [[30], [31]])
    }

    @Test func aFeedIsNeverAskedForTwice() {
        var h = Self.subscribed()
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob")])))
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob", audio: true, video: false)])))
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob")])))
        #expect(subscribes(h).isEmpty)
        // An unanswered subscribe is not sent again either.
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(30, "a")])))
        _ = h.advance(by: 11)
        #expect(subscribes(h) == [[30]])
        // But a feed that unpublished and publishes again is a new subscription.
        h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"unpublished":20}"#))
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob")])))
        #expect(subscribes(h) == [[30], [20]])
    }

    @Test func aRefusedSubscribeIsRetriedAfterPausesThenGivenUp() {
        var h = Self.subscribed()
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(30, "a")])))
        // Janus announces a publisher before its PeerConnection is up and refuses it until then: each refusal is
        // asked again after a pause (0.5, 1, 2, 4, 8 s), six times in all.
        var pauses: [Double] = []
        for _ in 0..<8 {
            h.janus(Janus.event(Janus.subscriberHandle, transaction: h.lastTransaction,
                                data: #"{"videoroom":"event","error_code":428,"error":"No such feed (30)"}"#))
            let before = subscribes(h).count
            var waited = 0.0
            while subscribes(h).count == before && waited < 20 {
                _ = h.advance(by: 0.25) { harness, frame in
                    if frame["janus"] == .string("keepalive"), let t = frame["transaction"]?.stringValue { harness.janus(Janus.ack(t)) }
                }
                waited += 0.25
            }
            if subscribes(h).count > before { pauses.append(waited) }
        }
        #expect(subscribes(h) == Array(repeating: [30], count: 6))
        #expect(pauses == [0.5, 1, 2, 4, 8], "\(pauses)")
        // A publisher without any media is not subscribed to until it has some.
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(40, "quiet", audio: false, video: false)])))
        #expect(subscribes(h).count == 6)
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(40, "quiet", audio: true, video: false)])))
        #expect(subscribes(h).last == [40])
    }

    @Test func aFeedRefusedWithOthersIsAskedForAloneAndHoldsNobodyUp() {
        var h = Self.subscribed()
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(30, "a"), Janus.publisher(31, "b")])))
        #expect(subscribes(h) == [[30, 31]])
        // 31's PeerConnection is not up yet: Janus refuses the whole request.
        h.janus(Janus.event(Janus.subscriberHandle, transaction: h.lastTransaction,
                            data: #"{"videoroom":"event","error_code":428,"error":"No such feed (31)"}"#))
        _ = h.advance(by: 0.5)
        #expect(subscribes(h) == [[30, 31], [30]])
        // 30 comes; 31 is asked for after it, alone.
        h.janus(Janus.event(Janus.subscriberHandle, transaction: h.lastTransaction,
                            data: #"{"videoroom":"updated","room":1234,"streams":\#(Janus.streams([20, 30]))}"#,
                            jsep: ("offer", Janus.sdp("s2"))))
        #expect(subscribes(h) == [[30, 31], [30], [31]])
        // A new publisher meanwhile is asked for on its own request, not behind 31.
        h.janus(Janus.event(Janus.subscriberHandle, transaction: h.lastTransaction,
                            data: #"{"videoroom":"event","error_code":428,"error":"No such feed (31)"}"#))
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(32, "c")])))
        #expect(subscribes(h).last == [32])
        _ = h.advance(by: 1)
        #expect(subscribes(h).last == [31])
    }

    @Test func aSubscriberJoinThatTimesOutIsRetriedOnANewHandle() {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Janus.publisher(20, "bob")])
        h.janus(Janus.success(h.lastTransaction, id: Janus.subscriberHandle))
        #expect(h.lastBody?["ptype"] == .string("subscriber"))
        let effects = h.advance(by: 10.5)
        #expect(effects.logs.contains("Janus did not answer 'join' within 10 s") && effects.failure == nil)
        #expect(h.last["janus"] == .string("attach"))
    }

    @Test func answersWithoutAnOfferAreIgnored() {
        var h = JanusHarness()
        _ = h.joinRoom()
        let before = h.sent.count
        #expect(h.input(.subscriberAnswer(sdp: "v=0\r\n")).logs.count == 1)
        #expect(h.sent.count == before)
    }
}
