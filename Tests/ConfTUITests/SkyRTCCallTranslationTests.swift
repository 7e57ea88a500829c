import Testing
@testable import ConfTUI
import Engine
import Signaling

/// The SkyRTC wire as the call's signals see it (docs/skyrtc-protocol.md §3).
@Test func outgoingSignalsBecomeTheOriginalClientsMessages() {
    let candidate = SkyRTCCallTranslation.message(for: .candidate(to: RemotePeerID("peer-1"), candidate: "candidate:1 1 udp 1 127.0.0.1 5000 typ host",
                                                                   mid: "0", mLineIndex: 0))
    #expect(candidate.jsonText == #"{"eventName":"__ice_candidate","data":{"id":"0","label":0,"candidate":"candidate:1 1 udp 1 127.0.0.1 5000 typ host","socketId":"peer-1"}}"#)
    let offer = SkyRTCCallTranslation.message(for: .offer(to: RemotePeerID("peer-1"), sdp: "v=0\r\n"))
    #expect(offer.jsonText == #"{"eventName":"__offer","data":{"socketId":"peer-1","sdp":{"type":"offer","sdp":"v=0\r\n"}}}"#)
}

@Test func incomingMessagesBecomeCallSignals() throws {
    func decode(_ text: String) throws -> SkyRTCServerMessage { try SkyRTCServerMessage.decode(Array(text.utf8)) }
    #expect(SkyRTCCallTranslation.signal(for: try decode(#"{"eventName":"_peers","data":{"connections":["a"],"you":"me"}}"#))
            == .joined(you: RemotePeerID("me"), others: [RemotePeerID("a")]))
    #expect(SkyRTCCallTranslation.signal(for: try decode(#"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"v=0"},"socketId":"a"}}"#))
            == .offer(from: RemotePeerID("a"), sdp: "v=0"))
    // The original server forwards candidates with only label and candidate (no sdpMid).
    #expect(SkyRTCCallTranslation.signal(for: try decode(#"{"eventName":"_ice_candidate","data":{"label":1,"candidate":"candidate:x","socketId":"a"}}"#))
            == .candidate(from: RemotePeerID("a"), candidate: "candidate:x", mid: nil, mLineIndex: 1))
    #expect(SkyRTCCallTranslation.signal(for: try decode(#"{"eventName":"_new_peer","data":{"socketId":"b","name":"Bob"}}"#)) == .newPeer(RemotePeerID("b")))
    #expect(SkyRTCCallTranslation.signal(for: try decode(#"{"eventName":"_error","data":{"code":"bad_json","message":"x"}}"#)) == nil)
    #expect(SkyRTCCallTranslation.signal(for: try decode(#"{"eventName":"custom","data":{}}"#)) == nil)
}

/// What the screen and the bot hear of a SkyRTC room, in the session's neutral terms.
@Test func incomingMessagesBecomeNeutralSessionEvents() throws {
    func decode(_ text: String) throws -> SkyRTCServerMessage { try SkyRTCServerMessage.decode(Array(text.utf8)) }
    func event(_ text: String) throws -> SessionEvent? { SkyRTCCallTranslation.sessionEvent(for: try decode(text)) }
    #expect(try event(#"{"eventName":"_new_peer","data":{"socketId":"b","name":"Bob"}}"#) == .peerJoined(RemotePeerID("b"), name: "Bob"))
    #expect(try event(#"{"eventName":"_new_peer","data":{"socketId":"b"}}"#) == .peerJoined(RemotePeerID("b"), name: nil))
    #expect(try event(#"{"eventName":"_remove_peer","data":{"socketId":"b"}}"#) == .peerLeft(RemotePeerID("b")))
    #expect(try event(#"{"eventName":"_media_state","data":{"socketId":"b","audioMuted":true,"videoOn":false}}"#)
            == .peerMedia(RemotePeerID("b"), RemoteMediaState(audioMuted: true, videoOn: false)))
    #expect(try event(#"{"eventName":"_error","data":{"code":"room_full","message":"room is full"}}"#) == .serverError("room_full: room is full"))
    // What only the call acts on, custom events, and `_peers` outside a join say nothing to the screen.
    #expect(try event(#"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"v=0"},"socketId":"a"}}"#) == nil)
    #expect(try event(#"{"eventName":"_ice_candidate","data":{"label":1,"candidate":"candidate:x","socketId":"a"}}"#) == nil)
    #expect(try event(#"{"eventName":"custom","data":{}}"#) == nil)
    #expect(try event(#"{"eventName":"_peers","data":{"connections":["a"],"you":"me"}}"#) == nil)
}

@Test func theJoinsPeersBecomeTheJoinedEvent() throws {
    let text = #"{"eventName":"_peers","data":{"connections":["a","b"],"you":"me","names":{"a":"Ada"},"media":{"b":{"audioMuted":false,"videoOn":true}}}}"#
    guard case .peers(let peers) = try SkyRTCServerMessage.decode(Array(text.utf8)) else {
        Issue.record("not _peers")
        return
    }
    #expect(SkyRTCCallTranslation.joined(peers) == .joined(
        you: RemotePeerID("me"), peers: [RemotePeerID("a"), RemotePeerID("b")], names: [RemotePeerID("a"): "Ada"],
        media: [RemotePeerID("b"): RemoteMediaState(audioMuted: false, videoOn: true)]))
}

@Test func theStatusBarShowsHostAndPortOfTheServer() {
    #expect(hostPart(of: "ws://127.0.0.1:3000/") == "127.0.0.1:3000")
    #expect(hostPart(of: "wss://example.org:443/rooms/x") == "example.org:443")
    #expect(hostPart(of: "example.org:3000") == "example.org:3000")
}

@Test func messagesNamingAnOverlongMemberIdAreRefused() throws {
    func decode(_ text: String) throws -> SkyRTCServerMessage { try SkyRTCServerMessage.decode(Array(text.utf8)) }
    let long = String(repeating: "z", count: 129)
    #expect(SkyRTCCallTranslation.refusal(of: try decode(#"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"v=0"},"socketId":"a"}}"#)) == nil)
    for text in [#"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"v=0"},"socketId":"\#(long)"}}"#,
                 #"{"eventName":"_new_peer","data":{"socketId":"\#(long)"}}"#,
                 #"{"eventName":"_ice_candidate","data":{"label":1,"candidate":"candidate:x","socketId":"\#(long)"}}"#,
                 #"{"eventName":"_peers","data":{"connections":["a","\#(long)"],"you":"me"}}"#] {
        let why = try #require(SkyRTCCallTranslation.refusal(of: try decode(text)), "\(text.prefix(40)) was accepted")
        #expect(why.contains("129 bytes") && why.utf8.count < 200, "\(why)")
    }
}
