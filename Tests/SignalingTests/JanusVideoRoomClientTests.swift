import Testing
@testable import Signaling

/// `JanusVideoRoomClient` against a scripted Janus on a virtual clock: the conversation of janus_videoroom.c.
@Suite struct JanusVideoRoomClientTests {
    @Test func theHappyPathJoinsPublishesAndSubscribesToEveryone() throws {
        var h = JanusHarness()
        h.input(.connected)
        #expect(h.last["janus"] == .string("create"))
        h.janus(Janus.success(h.lastTransaction, id: Janus.session))
        #expect(h.last["janus"] == .string("attach") && h.last["plugin"] == .string("janus.plugin.videoroom"))
        #expect(h.last["session_id"]?.integerValue == Int(Janus.session))
        h.janus(Janus.success(h.lastTransaction, id: Janus.publisherHandle))
        let join = try #require(h.lastBody)
        #expect(join["request"] == .string("join") && join["ptype"] == .string("publisher"))
        #expect(join["room"]?.integerValue == 1234 && join["display"] == .string("me") && join["pin"] == nil)
        #expect(h.last["handle_id"]?.integerValue == Int(Janus.publisherHandle))
        let joinTransaction = h.lastTransaction
        #expect(h.janus(Janus.ack(joinTransaction)).isEmpty)
        #expect(h.janus(Janus.event(transaction: joinTransaction, data: Janus.joined(id: 10))) == [.joined(feed: 10)])

        // Our offer → publish with the JSEP → configured + answer.
        #expect(h.input(.publisherOffer(sdp: Janus.publisherOffer)).isEmpty)
        #expect(h.lastRequest == "publish" && h.last["jsep"]?["type"] == .string("offer"))
        #expect(h.last["jsep"]?["sdp"] == .string(Janus.publisherOffer))
        let publish = h.lastTransaction
        h.janus(Janus.ack(publish))
        let answered = h.janus(Janus.event(transaction: publish, data: #"{"videoroom":"event","room":1234,"configured":"ok"}"#,
                                           jsep: ("answer", Janus.sdp("answer"))))
        #expect(answered == [.publisherAnswer(sdp: Janus.decodedSDP("answer"))])

        // A second publisher: a subscriber handle, its join for that feed with our private_id.
        let bob = h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob")])))
        #expect(bob == [.participant(feed: 20, display: "bob"), .participantMedia(feed: 20, audioSending: true, videoSending: true)])
        #expect(h.last["janus"] == .string("attach"))
        h.janus(Janus.success(h.lastTransaction, id: Janus.subscriberHandle))
        let subJoin = try #require(h.lastBody)
        #expect(subJoin["ptype"] == .string("subscriber") && subJoin["streams"]?.feeds == [20])
        #expect(subJoin["private_id"]?.integerValue == 555 && subJoin["use_msid"] == .bool(false))
        #expect(h.last["handle_id"]?.integerValue == Int(Janus.subscriberHandle))
        let subJoinTransaction = h.lastTransaction
        h.janus(Janus.ack(subJoinTransaction))
        let attached = h.janus(Janus.event(Janus.subscriberHandle, transaction: subJoinTransaction,
                                           data: #"{"videoroom":"attached","room":1234,"streams":\#(Janus.streams([20]))}"#,
                                           jsep: ("offer", Janus.sdp("sub1"))))
        let streams20 = [JanusSubscriberStream(mid: "0", kind: .audio, feed: 20, display: "p20", active: true),
                         JanusSubscriberStream(mid: "1", kind: .video, feed: 20, display: "p20", active: true)]
        #expect(attached == [.subscriberOffer(sdp: Janus.decodedSDP("sub1"), streams: streams20)])
        h.input(.subscriberAnswer(sdp: "v=0\r\ns=sub-answer\r\n"))
        #expect(h.lastRequest == "start" && h.last["jsep"]?["type"] == .string("answer"))
        let start = h.lastTransaction
        h.janus(Janus.ack(start))
        #expect(h.janus(Janus.event(Janus.subscriberHandle, transaction: start, data: #"{"videoroom":"event","started":"ok"}"#)).isEmpty)

        // A third: `subscribe` for it alone → updated with an offer → start again.
        h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(30, "carol")])))
        #expect(h.lastRequest == "subscribe" && h.lastBody?["streams"]?.feeds == [30])
        let subscribe = h.lastTransaction
        h.janus(Janus.ack(subscribe))
        let updated = h.janus(Janus.event(Janus.subscriberHandle, transaction: subscribe,
                                          data: #"{"videoroom":"updated","room":1234,"streams":\#(Janus.streams([20, 30]))}"#,
                                          jsep: ("offer", Janus.sdp("sub2"))))
        guard case .subscriberOffer(let sdp2, let streams2)? = updated.first else { Issue.record("no offer: \(updated)"); return }
        #expect(sdp2 == Janus.decodedSDP("sub2") && streams2.map(\.feed) == [20, 20, 30, 30])
        h.input(.subscriberAnswer(sdp: "v=0\r\n"))
        #expect(h.lastRequest == "start")

        // Bob leaves: participantLeft once (unpublished, then leaving), and Janus's autoupdate offer.
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"unpublished":20}"#)) == [.participantLeft(feed: 20)])
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"leaving":20,"display":"bob"}"#)).isEmpty)
        let auto = h.janus(Janus.event(Janus.subscriberHandle, data: #"{"videoroom":"updated","room":1234,"streams":\#(Janus.streams([nil, 30]))}"#,
                                       jsep: ("offer", Janus.sdp("sub3"))))
        guard case .subscriberOffer(_, let streams3)? = auto.first else { Issue.record("no autoupdate offer: \(auto)"); return }
        #expect(streams3.map(\.active) == [false, false, true, true] && streams3.map(\.feed) == [nil, nil, 30, 30])
        #expect(h.client.feed == 10)
        // Every request had its own transaction.
        let transactions = h.sent.compactMap { $0.frame["transaction"]?.stringValue }
        #expect(Set(transactions).count == transactions.count)
    }

    @Test func publishersAlreadyInTheRoomAreSubscribedAtOnce() throws {
        var h = JanusHarness()
        let effects = h.joinRoom(others: [Janus.publisher(20, "bob"), Janus.publisher(21, "eve", audio: true, video: false)])
        #expect(effects == [.joined(feed: 10), .participant(feed: 20, display: "bob"),
                            .participantMedia(feed: 20, audioSending: true, videoSending: true),
                            .participant(feed: 21, display: "eve"),
                            .participantMedia(feed: 21, audioSending: true, videoSending: false)])
        #expect(h.last["janus"] == .string("attach"))
        h.janus(Janus.success(h.lastTransaction, id: Janus.subscriberHandle))
        #expect(h.lastBody?["streams"]?.feeds == [20, 21])
    }

    @Test func aMissingRoomIsCreatedThenJoined() throws {
        var h = JanusHarness()
        h.input(.connected)
        h.janus(Janus.success(h.lastTransaction, id: Janus.session))
        h.janus(Janus.success(h.lastTransaction, id: Janus.publisherHandle))
        let join = h.lastTransaction
        h.janus(Janus.ack(join))
        h.janus(Janus.event(transaction: join, data: #"{"videoroom":"event","error_code":426,"error":"No such room (1234)"}"#))
        let create = try #require(h.lastBody)
        #expect(create["request"] == .string("create") && create["room"]?.integerValue == 1234)
        #expect(create["publishers"]?.integerValue == 16 && create["fir_freq"]?.integerValue == 10)
        #expect(create["audiolevel_event"] == .bool(true) && create["audiocodec"] == .string("opus") && create["videocodec"] == .string("vp8"))
        h.janus(Janus.pluginSuccess(h.lastTransaction, data: #"{"videoroom":"created","room":1234,"permanent":false}"#))
        #expect(h.lastRequest == "join")
        let again = h.lastTransaction
        h.janus(Janus.ack(again))
        let joined = h.janus(Janus.event(transaction: again, data: Janus.joined(id: 11)))
        #expect(joined == [.joined(feed: 11)])
    }

    @Test func aRoomCreatedByAnotherClientMeanwhileIsJoined() {
        var h = JanusHarness()
        h.input(.connected)
        h.janus(Janus.success(h.lastTransaction, id: Janus.session))
        h.janus(Janus.success(h.lastTransaction, id: Janus.publisherHandle))
        h.janus(Janus.event(transaction: h.lastTransaction, data: #"{"videoroom":"event","error_code":426,"error":"No such room (1234)"}"#))
        h.janus(Janus.pluginSuccess(h.lastTransaction, data: #"{"videoroom":"event","error_code":427,"error":"Room 1234 already exists"}"#))
        #expect(h.lastRequest == "join")
        #expect(h.janus(Janus.event(transaction: h.lastTransaction, data: Janus.joined(id: 12))) == [.joined(feed: 12)])
    }

    @Test func noSuchRoomWithCreationOffFailsClearly() {
        var h = JanusHarness(JanusVideoRoomConfiguration(room: Janus.room, display: "me", createRoomIfMissing: false))
        h.input(.connected)
        h.janus(Janus.success(h.lastTransaction, id: Janus.session))
        h.janus(Janus.success(h.lastTransaction, id: Janus.publisherHandle))
        let effects = h.janus(Janus.event(transaction: h.lastTransaction, data: #"{"videoroom":"event","error_code":426,"error":"No such room (1234)"}"#))
        #expect(effects.failure == "Janus: no such room 1234 (426)")
        #expect(h.last["janus"] == .string("destroy"))
        #expect(h.deadline == nil)
        // Nothing more happens, and leave ends at once.
        #expect(h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob")]))).withoutLogs.isEmpty)
        #expect(h.input(.leave) == [.ended])
    }

    @Test func aWrongPinIsUnauthorized() {
        var configuration = JanusVideoRoomConfiguration(room: Janus.room, display: "me", pin: "nope")
        configuration.createRoomIfMissing = false
        var h = JanusHarness(configuration)
        h.input(.connected)
        h.janus(Janus.success(h.lastTransaction, id: Janus.session))
        h.janus(Janus.success(h.lastTransaction, id: Janus.publisherHandle))
        #expect(h.lastBody?["pin"] == .string("nope"))
        let effects = h.janus(Janus.event(transaction: h.lastTransaction, data: #"{"videoroom":"event","error_code":433,"error":"Unauthorized (wrong pin)"}"#))
        #expect(effects.failure == "Janus: unauthorized to join room 1234: Unauthorized (wrong pin) (433)")
    }

    @Test func aFullRoomFailsWhenThePublishIsRefused() {
        var h = JanusHarness()
        _ = h.joinRoom()
        h.input(.publisherOffer(sdp: Janus.publisherOffer))
        let publish = h.lastTransaction
        h.janus(Janus.ack(publish))
        let effects = h.janus(Janus.event(transaction: publish, data: #"{"videoroom":"event","error_code":432,"error":"Maximum number of publishers (16) already reached"}"#))
        #expect(effects.failure == "room 1234 is full (Maximum number of publishers (16) already reached, 432)")
    }

    @Test func aCoreErrorBeforeJoiningFails() {
        var h = JanusHarness()
        h.input(.connected)
        h.janus(Janus.success(h.lastTransaction, id: Janus.session))
        let effects = h.janus(Janus.error(h.lastTransaction, code: 460, reason: "No such plugin 'janus.plugin.videoroom'"))
        #expect(effects.failure == "Janus has no VideoRoom plugin (460: No such plugin 'janus.plugin.videoroom')")
    }

    @Test func requestsThatAreNotAnsweredTimeOut() {
        var h = JanusHarness()
        h.input(.connected)
        #expect(h.deadline == h.now + 10)
        #expect(h.advance(by: 9.9).isEmpty)
        // Janus not answering is a lost session (a new one may fare better), not a refusal.
        let silent = h.advance(by: 0.2)
        #expect(silent.loss == "Janus did not answer 'create' within 10 s" && silent.failure == nil)

        var g = JanusHarness()
        g.input(.connected)
        g.janus(Janus.success(g.lastTransaction, id: Janus.session))
        g.now = g.now + 3
        #expect(g.advance(by: 11).loss == "Janus did not answer 'attach' within 10 s")

        // An ack does not end the wait for the plugin's event.
        var j = JanusHarness()
        j.input(.connected)
        j.janus(Janus.success(j.lastTransaction, id: Janus.session))
        j.janus(Janus.success(j.lastTransaction, id: Janus.publisherHandle))
        j.janus(Janus.ack(j.lastTransaction))
        // A garbled answer is no answer: dropped, and the join still times out.
        let garbled = j.janus(Janus.event(transaction: j.lastTransaction, data: #"{"videoroom":"joined","room":1234,"id":"10"}"#))
        #expect(garbled.withoutLogs.isEmpty && garbled.logs.count == 1)
        #expect(j.advance(by: 10).loss == "Janus did not answer 'join' within 10 s")
    }

    @Test func theSessionLivesPastSeventyFiveSecondsWithKeepalives() {
        var h = JanusHarness()
        _ = h.joinRoom()
        _ = h.publish()
        let start = h.now
        // Janus acks each keepalive, as it does.
        let effects = h.advance(by: 200) { harness, frame in
            if frame["janus"] == .string("keepalive"), let t = frame["transaction"]?.stringValue {
                #expect(harness.janus(Janus.ack(t)).isEmpty)
            }
        }
        #expect(effects.withoutLogs.isEmpty && effects.failure == nil)
        let keepalives = h.sent.filter { $0.frame["janus"] == .string("keepalive") }
        #expect(keepalives.count >= 7)
        #expect(keepalives.allSatisfy { $0.frame["session_id"]?.integerValue == Int(Janus.session) })
        // No gap of more than 25 s between frames sent, from joining to the end.
        var times = h.sent.map(\.at).filter { $0 >= start }
        times.insert(start, at: 0)
        times.append(h.now)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 <= 25.000_001 }, "\(gaps)")
    }

    @Test func aKeepaliveNotAcknowledgedLosesTheSession() {
        var h = JanusHarness()
        _ = h.joinRoom()
        #expect(h.advance(by: 25).isEmpty)
        #expect(h.last["janus"] == .string("keepalive"))
        let effects = h.advance(by: 10)
        #expect(effects.loss == "Janus did not answer 'keepalive' within 10 s")
        // Janus may still hold the session: destroyed, best effort, so that it does not linger in the room.
        #expect(h.last["janus"] == .string("destroy"))
        #expect(h.advance(by: 60).isEmpty && h.deadline == nil)
    }

    /// What ends a session for good (the room's decision) is `.failed`; what loses it otherwise is `.lost`, which a
    /// driver answers by joining again.
    @Test func theRoomPuttingUsOutFailsAndLosingTheSessionIsALoss() {
        var h = JanusHarness()
        _ = h.joinRoom()
        let timedOut = h.janus(#"{"janus":"timeout","session_id":\#(Janus.session)}"#)
        #expect(timedOut.loss == "Janus timed out our session (no request for its session_timeout)" && timedOut.failure == nil)
        var g = JanusHarness()
        _ = g.joinRoom()
        #expect(g.janus(#"{"janus":"detached","session_id":\#(Janus.session),"sender":\#(Janus.publisherHandle)}"#).loss
                == "Janus detached our publisher handle")
        var k = JanusHarness()
        _ = k.joinRoom()
        #expect(k.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"leaving":"ok","reason":"kicked"}"#)).failure
                == "kicked from room 1234")
        var d = JanusHarness()
        _ = d.joinRoom()
        #expect(d.janus(Janus.event(data: #"{"videoroom":"destroyed","room":1234}"#)).failure == "room 1234 was destroyed")
        var c = JanusHarness()
        _ = c.joinRoom()
        let closed = c.input(.disconnected)
        #expect(closed.loss == "the connection to Janus closed unexpectedly" && closed.failure == nil)
        // Nothing more comes of that client but `.ended` on leaving.
        #expect(c.input(.connected).withoutLogs.isEmpty && c.janus(Janus.ack("c1")).withoutLogs.isEmpty)
        #expect(c.input(.leave) == [.ended])
        var s = JanusHarness()
        _ = s.joinRoom()
        _ = s.publish()
        s.input(.setSending(audio: false, video: true))
        #expect(s.lastRequest == "configure")
        // A core error after joining is logged, unless the session (458) is gone.
        let logged = s.janus(Janus.error(s.lastTransaction, code: 490, reason: "Unknown"))
        #expect(logged.withoutLogs.isEmpty && logged.logs == ["Janus refused 'configure': Unknown (490)"])
        s.input(.setSending(audio: true, video: true))
        #expect(s.janus(Janus.error(s.lastTransaction, code: 458, reason: "No such session")).loss == "Janus: session not found (458)")
    }

    /// A new client destroys the sessions its predecessors lost, so the room does not show them frozen beside it.
    @Test func aNewClientDiscardsTheLostSessionsWithoutWaitingForJanus() {
        var h = JanusHarness()
        // Not before the WebSocket is up: there is nothing to send it on.
        #expect(h.input(.discard(session: 77)).logs.count == 1 && h.sent.isEmpty)
        h.input(.connected)
        #expect(h.last["janus"] == .string("create"))
        let create = h.lastTransaction
        #expect(h.input(.discard(session: 77)).withoutLogs.isEmpty)
        #expect(h.last["janus"] == .string("destroy") && h.last["session_id"]?.integerValue == 77)
        // Nothing waits for its answer: the join goes on and no timeout follows from it.
        #expect(h.deadline == h.now + 10)
        // Janus answers for the lost session by its id (destroyed, or already gone after a restart): logged.
        let destroyed = h.janus(#"{"janus":"success","session_id":77,"transaction":"discard-77"}"#)
        #expect(destroyed.withoutLogs.isEmpty && destroyed.logs == ["Janus: our lost session 77: destroyed"])
        let gone = h.janus(#"{"janus":"error","session_id":77,"transaction":"discard-77","error":{"code":458,"reason":"No such session 77"}}"#)
        #expect(gone.withoutLogs.isEmpty && gone.logs == ["Janus: our lost session 77: already gone"])
        // Our own session is joined as usual, and is never discarded.
        h.janus(Janus.success(create, id: Janus.session))
        #expect(h.last["janus"] == .string("attach"))
        #expect(h.input(.discard(session: Janus.session)).logs.count == 1 && h.last["janus"] == .string("attach"))
        #expect(h.client.sessionID == Janus.session)
        // Ids Janus never gives are not sent.
        #expect(h.input(.discard(session: 0)).logs.count == 1 && h.input(.discard(session: 1 << 60)).logs.count == 1)
        #expect(h.last["janus"] == .string("attach"))
    }

    @Test func janusConnectionEventsAreLogged() {
        var h = JanusHarness()
        _ = h.joinRoom()
        let s = Janus.session, p = Janus.publisherHandle
        for text in [#"{"janus":"webrtcup","session_id":\#(s),"sender":\#(p)}"#,
                     #"{"janus":"media","session_id":\#(s),"sender":\#(p),"type":"audio","receiving":true}"#,
                     #"{"janus":"slowlink","session_id":\#(s),"sender":\#(p),"uplink":true,"lost":12}"#,
                     #"{"janus":"hangup","session_id":\#(s),"sender":\#(p),"reason":"DTLS alert"}"#] {
            let effects = h.janus(text)
            #expect(effects.count == 1 && effects.logs.count == 1, "\(text)")
        }
    }

    @Test func talkingEvents() {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Janus.publisher(20, "bob")])
        #expect(h.janus(Janus.event(data: #"{"videoroom":"talking","room":1234,"id":20,"mindex":0,"mid":"0","audio-level-dBov-avg":-42.5}"#))
                == [.talking(feed: 20, true)])
        #expect(h.janus(Janus.event(data: #"{"videoroom":"stopped-talking","room":1234,"id":20,"mindex":0,"mid":"0","audio-level-dBov-avg":-80.1}"#))
                == [.talking(feed: 20, false)])
        // Janus tells the speaker too.
        #expect(h.janus(Janus.event(data: #"{"videoroom":"talking","room":1234,"id":10,"mindex":0,"mid":"0","audio-level-dBov-avg":-30}"#))
                == [.talking(feed: 10, true)])
    }

    @Test func mediaStateFollowsDisabledStreamsAndMuteIsAConfigure() throws {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Janus.publisher(20, "bob")])
        // A publisher renegotiated with its video inactive: Janus re-announces it with `disabled`.
        let off = h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob", audio: true, video: false)])))
        #expect(off == [.participantMedia(feed: 20, audioSending: true, videoSending: false)])
        // The same state again says nothing; a new display name is a `.participant` again.
        #expect(h.janus(Janus.event(data: Janus.publishersEvent([Janus.publisher(20, "bob", audio: true, video: false)]))).isEmpty)
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"id":20,"display":"robert"}"#))
                == [.participant(feed: 20, display: "robert")])
        let attachCount = h.sent.filter { $0.frame["janus"] == .string("attach") }.count
        #expect(attachCount == 2)   // publisher + one subscriber handle, never a second

        // Our mute before the answer waits for it; then a configure with per-mid send, mids from our offer.
        h.input(.setSending(audio: false, video: true))
        #expect(h.lastRequest != "configure")
        _ = h.publish()
        let body = try #require(h.lastBody)
        #expect(body["request"] == .string("configure"))
        #expect(body["streams"] == .array([.object([("mid", .string("a0")), ("send", .bool(false))]),
                                           .object([("mid", .string("v1")), ("send", .bool(true))])]))
        let count = h.sent.count
        h.input(.setSending(audio: false, video: true))
        #expect(h.sent.count == count)   // nothing changed, nothing sent
        h.input(.setSending(audio: true, video: false))
        #expect(h.lastBody?["streams"] == .array([.object([("mid", .string("a0")), ("send", .bool(true))]),
                                                  .object([("mid", .string("v1")), ("send", .bool(false))])]))
    }

    @Test func anAdminMuteIsMediaStateToo() {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Janus.publisher(20, "bob")])
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"id":20,"mid":"0","moderation":"muted"}"#))
                == [.participantMedia(feed: 20, audioSending: false, videoSending: true)])
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"id":20,"mid":"0","moderation":"unmuted"}"#))
                == [.participantMedia(feed: 20, audioSending: true, videoSending: true)])
        // Ours is logged; an unknown mid or feed says nothing.
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"id":10,"mid":"0","moderation":"muted"}"#)).logs.count == 1)
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"id":20,"mid":"7","moderation":"muted"}"#)).isEmpty)
    }

    @Test func aRenegotiationIsAConfigureWithTheOffer() {
        var h = JanusHarness()
        _ = h.joinRoom()
        _ = h.publish()
        h.input(.publisherOffer(sdp: Janus.publisherOffer))
        #expect(h.lastRequest == "configure" && h.last["jsep"]?["type"] == .string("offer"))
        // A refused renegotiation keeps the call that stands.
        let refused = h.janus(Janus.event(transaction: h.lastTransaction, data: #"{"videoroom":"event","error_code":437,"error":"Invalid SDP"}"#))
        #expect(refused.withoutLogs.isEmpty && refused.logs.count == 1)
        h.input(.publisherOffer(sdp: Janus.publisherOffer))
        #expect(h.lastRequest == "configure")
        // An offer made before joining waits for `joined`.
        var g = JanusHarness()
        g.input(.connected)
        g.input(.publisherOffer(sdp: Janus.publisherOffer))
        #expect(g.last["janus"] == .string("create"))
        _ = g.janus(Janus.success(g.lastTransaction, id: Janus.session))
        _ = g.janus(Janus.success(g.lastTransaction, id: Janus.publisherHandle))
        _ = g.janus(Janus.event(transaction: g.lastTransaction, data: Janus.joined(id: 10)))
        #expect(g.lastRequest == "publish")
    }

    @Test func leaveSendsLeaveAndDestroyThenEnds() {
        var h = JanusHarness()
        _ = h.joinRoom()
        #expect(h.input(.leave).isEmpty)
        let last2 = h.sent.suffix(2).map(\.frame)
        #expect(last2.first?["body"]?["request"] == .string("leave") && last2.last?["janus"] == .string("destroy"))
        #expect(h.deadline == h.now + 2)
        let leaveTransaction = last2.first?["transaction"]?.stringValue
        let left = h.janus(Janus.event(transaction: leaveTransaction, data: #"{"videoroom":"event","leaving":"ok"}"#))
        #expect(left.isEmpty)
        #expect(h.janus(Janus.sessionSuccess(h.lastTransaction)) == [.ended])
        #expect(h.deadline == nil)
        #expect(h.input(.leave).isEmpty)

        // Janus never answers: ended after 2 s.
        var g = JanusHarness()
        _ = g.joinRoom()
        g.input(.leave)
        let effects = g.advance(by: 3)
        #expect(effects.withoutLogs == [.ended])
        // The socket closing while leaving ends it too.
        var c = JanusHarness()
        _ = c.joinRoom()
        c.input(.leave)
        #expect(c.input(.disconnected) == [.ended])
    }

    @Test func aBadConfigurationFailsAtConnect() {
        var h = JanusHarness(JanusVideoRoomConfiguration(room: 0, display: "me"))
        #expect(h.input(.connected).failure == "room 0 is not a Janus room id (1...2^53)")
        var g = JanusHarness(JanusVideoRoomConfiguration(room: 1, display: String(repeating: "x", count: 300)))
        #expect(g.input(.connected).failure == "the display name is 300 bytes, over 256")
    }
}
