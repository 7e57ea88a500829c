import Testing
@testable import Signaling

@Suite struct SkyRTCMessageTests {
    static let a = SocketID("a1f2e3d4-0b1c-4d2e-8f3a-4b5c6d7e8f90")
    static let b = SocketID("b7e1c3d2-5a4f-4e8b-9c21-0f3a6d8e9b10")

    static func decode(_ text: String) throws(SignalingError) -> SkyRTCClientMessage {
        try SkyRTCClientMessage.decode(Array(text.utf8))
    }

    static func code(_ text: String) -> SkyRTCErrorCode? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            if case .badMessage(let code, _) = error { return code }
            return nil
        }
    }

    @Test(arguments: [
        (#"{"eventName":"__join","data":{"room":"r1"}}"#, "r1"),
        (#"{"eventName":"__join","data":{"room":""}}"#, "__default"),
        (#"{"eventName":"__join","data":{"room":null}}"#, "__default"),
        (#"{"eventName":"__join","data":{}}"#, "__default"),
        (#"{"eventName":"__join","data":{"room":0}}"#, "__default"),
        (#"{"eventName":"__join","data":{"room":false}}"#, "__default"),
        (#"{"eventName":"__join","data":{"room":100}}"#, "100"),
        ("{\n  \"eventName\" : \"__join\",\n  \"data\" : {\n    \"room\" : \"100\"\n  }\n}", "100"),
    ])
    func joinRoomFollowsTheOriginalFalsyRule(_ text: String, _ room: String) throws {
        #expect(try Self.decode(text) == .join(SkyRTCJoin(room: room)))
    }

    @Test func candidatesAcceptBothNamings() throws {
        let ios = try Self.decode(#"{"eventName":"__ice_candidate","data":{"id":"audio","label":0,"candidate":"candidate:1","socketId":"x"}}"#)
        #expect(ios == .iceCandidate(SkyRTCCandidate(id: "audio", label: 0, candidate: "candidate:1", socketId: SocketID("x"))))
        let w3c = try Self.decode(#"{"eventName":"__ice_candidate","data":{"sdpMid":"0","sdpMLineIndex":1,"candidate":"c","socketId":"x"}}"#)
        #expect(w3c == .iceCandidate(SkyRTCCandidate(id: "0", label: 1, candidate: "c", socketId: SocketID("x"))))
        let browser = try Self.decode(#"{"eventName":"__ice_candidate","data":{"label":2,"candidate":"c","socketId":"x"}}"#)
        #expect(browser == .iceCandidate(SkyRTCCandidate(id: nil, label: 2, candidate: "c", socketId: SocketID("x"))))
    }

    @Test(arguments: [
        ("not json", SkyRTCErrorCode.badJSON),
        ("{\"eventName\":\"__join\"", .badJSON),
        ("null", .badEnvelope),
        ("[1,2]", .badEnvelope),
        ("\"__join\"", .badEnvelope),
        (#"{"data":{}}"#, .badEnvelope),
        (#"{"eventName":5,"data":{}}"#, .badEnvelope),
        (#"{"eventName":"error","data":{}}"#, .unknownEvent),
        (#"{"eventName":"send_offer","data":{}}"#, .unknownEvent),
        (#"{"eventName":"__join"}"#, .badField),
        (#"{"eventName":"__join","data":null}"#, .badField),
        (#"{"eventName":"__join","data":{"room":{}}}"#, .badField),
        (#"{"eventName":"__offer","data":{"sdp":{"type":"offer","sdp":"v=0"}}}"#, .badField),
        (#"{"eventName":"__offer","data":{"socketId":7,"sdp":{}}}"#, .badField),
        (#"{"eventName":"__answer","data":{"socketId":"x"}}"#, .badField),
        (#"{"eventName":"__ice_candidate","data":{"socketId":"x","label":0}}"#, .badField),
        (#"{"eventName":"__ice_candidate","data":{"socketId":"x","label":"0","candidate":"c"}}"#, .badField),
        (#"{"eventName":"__ice_candidate","data":{"socketId":"x","label":-1,"candidate":"c"}}"#, .badField),
        (#"{"eventName":"__ice_candidate","data":{"socketId":"x","candidate":"c"}}"#, .badField),
        (#"{"eventName":"__ice_candidate","data":{"socketId":"x","id":3,"candidate":"c"}}"#, .badField),
    ])
    func badMessagesGetStableCodes(_ text: String, _ expected: SkyRTCErrorCode) {
        #expect(Self.code(text) == expected)
    }

    @Test func serverMessagesUseTheOriginalKeyOrder() {
        let sdp = JSONValue.object([("type", .string("offer")), ("sdp", .string("v=0\r\n"))])
        #expect(SkyRTCServerMessage.offer(SkyRTCDescription(sdp: sdp, socketId: Self.b)).jsonText()
            == #"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"v=0\r\n"},"socketId":"b7e1c3d2-5a4f-4e8b-9c21-0f3a6d8e9b10"}}"#)
        #expect(SkyRTCServerMessage.peers(SkyRTCPeers(connections: [Self.a], you: Self.b)).jsonText()
            == #"{"eventName":"_peers","data":{"connections":["a1f2e3d4-0b1c-4d2e-8f3a-4b5c6d7e8f90"],"you":"b7e1c3d2-5a4f-4e8b-9c21-0f3a6d8e9b10"}}"#)
        let c = SkyRTCCandidate(id: "audio", label: 0, candidate: "candidate:842163049 1 udp 1677729535 203.0.113.7 48741 typ srflx", socketId: Self.b)
        #expect(SkyRTCServerMessage.iceCandidate(c).jsonText(format: .conftui)
            == #"{"eventName":"_ice_candidate","data":{"id":"audio","label":0,"candidate":"candidate:842163049 1 udp 1677729535 203.0.113.7 48741 typ srflx","socketId":"b7e1c3d2-5a4f-4e8b-9c21-0f3a6d8e9b10","sdpMLineIndex":0,"sdpMid":"audio"}}"#)
        #expect(SkyRTCServerMessage.iceCandidate(c).jsonText(format: .original)
            == #"{"eventName":"_ice_candidate","data":{"label":0,"candidate":"candidate:842163049 1 udp 1677729535 203.0.113.7 48741 typ srflx","socketId":"b7e1c3d2-5a4f-4e8b-9c21-0f3a6d8e9b10"}}"#)
        #expect(SkyRTCServerMessage.error(SkyRTCErrorReply(code: .unknownTarget, message: "m")).jsonText()
            == #"{"eventName":"_error","data":{"code":"unknown_target","message":"m"}}"#)
    }

    @Test func serverMessagesDecodeBack() throws {
        let messages: [SkyRTCServerMessage] = [
            .peers(SkyRTCPeers(connections: [Self.a], you: Self.b)), .newPeer(Self.a, name: nil), .removePeer(Self.b),
            .answer(SkyRTCDescription(sdp: .object([("type", .string("answer"))]), socketId: Self.a)),
            .iceCandidate(SkyRTCCandidate(id: "0", label: 0, candidate: "c", socketId: Self.a)),
            .error(SkyRTCErrorReply(code: .badJSON, message: "x")),
        ]
        for m in messages {
            #expect(try SkyRTCServerMessage.decode(Array(m.jsonText().utf8)) == m)
        }
        #expect(try SkyRTCServerMessage.decode(Array(#"{"eventName":"custom","data":1}"#.utf8)) == .other(eventName: "custom", data: .integer(1)))
    }

    @Test func clientMessagesRoundTripThroughTheServerDecoder() throws {
        let messages: [SkyRTCClientMessage] = [
            .join(SkyRTCJoin(room: "r")),
            .offer(SkyRTCDescription(sdp: .object([("type", .string("offer")), ("sdp", .string("v=0"))]), socketId: Self.a)),
            .iceCandidate(SkyRTCCandidate(id: "audio", label: 1, candidate: "candidate:1", socketId: Self.a)),
        ]
        for m in messages {
            #expect(try SkyRTCClientMessage.decode(Array(m.jsonText.utf8)) == m)
        }
        // The server's own decoder (`SkyRTCInbound`) reads every field of a `__join`, the resume token included.
        let join = SkyRTCClientMessage.join(SkyRTCJoin(room: "r", name: "Ada", resume: "0123456789abcdef0123456789abcdef"))
        #expect(try SkyRTCInbound.decode(Array(join.jsonText.utf8), isBinary: false) == .message(join))
    }

    @Test func socketIDsAreLowercaseUUIDv4() {
        let id = SocketID.random().rawValue
        #expect(id.count == 36)
        #expect(id == id.lowercased())
        #expect(Array(id)[14] == "4")
        #expect(SocketID.random() != SocketID.random())
    }
}
