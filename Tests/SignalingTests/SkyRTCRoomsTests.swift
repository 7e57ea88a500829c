import Testing
@testable import Signaling

/// The pure room state machine: no sockets, exact actions checked.
@Suite struct SkyRTCRoomsTests {
    static let a = SocketID("aaaaaaaa-0000-4000-8000-000000000001")
    static let b = SocketID("bbbbbbbb-0000-4000-8000-000000000002")
    static let c = SocketID("cccccccc-0000-4000-8000-000000000003")

    static func msg(_ id: SocketID, _ text: String) -> SkyRTCRooms.Input { .message(id, Array(text.utf8), isBinary: false) }
    static func join(_ room: String) -> String { #"{"eventName":"__join","data":{"room":"\#(room)"}}"# }
    static func sends(_ actions: [SkyRTCRooms.Action]) -> [SkyRTCRooms.Action] {
        actions.filter { if case .log = $0 { return false } else { return true } }
    }
    static func send(_ id: SocketID, _ m: SkyRTCServerMessage, _ f: SkyRTCWireFormat = .conftui) -> SkyRTCRooms.Action {
        .send(id, m.jsonBytes(format: f))
    }

    static func opened(_ ids: SocketID..., format: SkyRTCWireFormat = .conftui) -> SkyRTCRooms {
        var r = SkyRTCRooms(format: format)
        for id in ids { _ = r.handle(.opened(id)) }
        return r
    }

    @Test func joinOrderingMatchesTheOriginal() {
        var rooms = Self.opened(Self.a, Self.b, Self.c)
        #expect(Self.sends(rooms.handle(Self.msg(Self.a, Self.join("r1")))) == [Self.send(Self.a, .peers(SkyRTCPeers(connections: [], you: Self.a)))])
        #expect(Self.sends(rooms.handle(Self.msg(Self.b, Self.join("r1")))) == [
            Self.send(Self.a, .newPeer(Self.b, name: nil)),
            Self.send(Self.b, .peers(SkyRTCPeers(connections: [Self.a], you: Self.b))),
        ])
        // _new_peer to each existing member in join order, then _peers to the joiner.
        #expect(Self.sends(rooms.handle(Self.msg(Self.c, Self.join("r1")))) == [
            Self.send(Self.a, .newPeer(Self.c, name: nil)),
            Self.send(Self.b, .newPeer(Self.c, name: nil)),
            Self.send(Self.c, .peers(SkyRTCPeers(connections: [Self.a, Self.b], you: Self.c))),
        ])
        #expect(rooms.members(of: "r1") == [Self.a, Self.b, Self.c])
        #expect(rooms.roomCount == 1 && rooms.joinedCount == 3)
    }

    @Test func closeSendsRemovePeerInReverseJoinOrderAndEmptiesRooms() {
        var rooms = Self.opened(Self.a, Self.b, Self.c)
        for id in [Self.a, Self.b, Self.c] { _ = rooms.handle(Self.msg(id, Self.join(""))) }
        #expect(rooms.members(of: "__default") == [Self.a, Self.b, Self.c])
        #expect(Self.sends(rooms.handle(.closed(Self.a))) == [Self.send(Self.c, .removePeer(Self.a)), Self.send(Self.b, .removePeer(Self.a))])
        #expect(Self.sends(rooms.handle(.closed(Self.b))) == [Self.send(Self.c, .removePeer(Self.b))])
        #expect(Self.sends(rooms.handle(.closed(Self.c))) == [])
        #expect(rooms.roomCount == 0 && rooms.socketCount == 0 && rooms.joinedCount == 0)
        // A socket that never joined closes silently.
        var r2 = Self.opened(Self.a)
        #expect(r2.handle(.closed(Self.a)) == [])
        #expect(r2.socketCount == 0)
    }

    @Test func rejoinAnotherRoomLeavesTheOldOneCleanly() {
        var rooms = Self.opened(Self.a, Self.b, Self.c)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1")))
        _ = rooms.handle(Self.msg(Self.b, Self.join("r1")))
        _ = rooms.handle(Self.msg(Self.c, Self.join("r2")))
        #expect(Self.sends(rooms.handle(Self.msg(Self.b, Self.join("r2")))) == [
            Self.send(Self.a, .removePeer(Self.b)),
            Self.send(Self.c, .newPeer(Self.b, name: nil)),
            Self.send(Self.b, .peers(SkyRTCPeers(connections: [Self.c], you: Self.b))),
        ])
        #expect(rooms.members(of: "r1") == [Self.a])
        #expect(rooms.members(of: "r2") == [Self.c, Self.b])
        // No ghost: when b closes, only r2 hears of it, and r1 is untouched.
        #expect(Self.sends(rooms.handle(.closed(Self.b))) == [Self.send(Self.c, .removePeer(Self.b))])
        // The last member of a room moving away deletes the room.
        _ = rooms.handle(Self.msg(Self.a, Self.join("r2")))
        #expect(rooms.roomCount == 1)
    }

    @Test func rejoinSameRoomIsIdempotent() {
        var rooms = Self.opened(Self.a, Self.b)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1")))
        _ = rooms.handle(Self.msg(Self.b, Self.join("r1")))
        // No duplicate _new_peer to a, no second entry; b gets a fresh _peers.
        #expect(Self.sends(rooms.handle(Self.msg(Self.b, Self.join("r1")))) == [Self.send(Self.b, .peers(SkyRTCPeers(connections: [Self.a], you: Self.b)))])
        #expect(rooms.members(of: "r1") == [Self.a, Self.b])
    }

    @Test func forwardingRewritesTheSenderAndKeepsOpaqueSDP() {
        var rooms = Self.opened(Self.a, Self.b)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1")))
        _ = rooms.handle(Self.msg(Self.b, Self.join("r1")))
        let offer = #"{"eventName":"__offer","data":{"socketId":"\#(Self.a)","sdp":{"type":"offer","sdp":"v=0\r\na=x/y\r\n","extra":[1]},"junk":true}}"#
        #expect(rooms.handle(Self.msg(Self.b, offer)) == [
            .send(Self.a, Array(#"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"v=0\r\na=x/y\r\n","extra":[1]},"socketId":"\#(Self.b)"}}"#.utf8)),
        ])
        let answer = #"{"eventName":"__answer","data":{"socketId":"\#(Self.b)","sdp":{"type":"answer","sdp":"v=0"}}}"#
        #expect(rooms.handle(Self.msg(Self.a, answer)) == [
            .send(Self.b, Array(#"{"eventName":"_answer","data":{"sdp":{"type":"answer","sdp":"v=0"},"socketId":"\#(Self.a)"}}"#.utf8)),
        ])
        let cand = #"{"eventName":"__ice_candidate","data":{"label":1,"candidate":"candidate:1 1 udp 9 10.0.0.1 9 typ host","socketId":"\#(Self.b)"}}"#
        #expect(rooms.handle(Self.msg(Self.a, cand)) == [
            .send(Self.b, Array(#"{"eventName":"_ice_candidate","data":{"label":1,"candidate":"candidate:1 1 udp 9 10.0.0.1 9 typ host","socketId":"\#(Self.a)","sdpMLineIndex":1}}"#.utf8)),
        ])
    }

    @Test func crossRoomAndUnjoinedForwardingIsRefused() {
        var rooms = Self.opened(Self.a, Self.b, Self.c)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1")))
        _ = rooms.handle(Self.msg(Self.b, Self.join("r2")))
        let toB = #"{"eventName":"__offer","data":{"socketId":"\#(Self.b)","sdp":{}}}"#
        let out = Self.sends(rooms.handle(Self.msg(Self.a, toB)))
        #expect(out.count == 1)
        #expect(out.first.map { if case .send(Self.a, let t) = $0 { String(decoding: t, as: UTF8.self).contains(#""code":"unknown_target""#) } else { false } } == true)
        // Self as target is refused too.
        let toSelf = #"{"eventName":"__offer","data":{"socketId":"\#(Self.a)","sdp":{}}}"#
        #expect(Self.sends(rooms.handle(Self.msg(Self.a, toSelf))).count == 1)
        // c never joined.
        let fromC = Self.sends(rooms.handle(Self.msg(Self.c, toB)))
        #expect(fromC.first.map { if case .send(Self.c, let t) = $0 { String(decoding: t, as: UTF8.self).contains(#""code":"not_joined""#) } else { false } } == true)
    }

    @Test func originalFormatForwardsAnywhereAndDropsSilently() {
        var rooms = Self.opened(Self.a, Self.b, Self.c, format: .original)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1")))
        _ = rooms.handle(Self.msg(Self.b, Self.join("r2")))
        let cand = #"{"eventName":"__ice_candidate","data":{"id":"audio","label":0,"candidate":"c","socketId":"\#(Self.b)"}}"#
        #expect(rooms.handle(Self.msg(Self.a, cand)) == [
            .send(Self.b, Array(#"{"eventName":"_ice_candidate","data":{"label":0,"candidate":"c","socketId":"\#(Self.a)"}}"#.utf8)),
        ])
        // Unknown target, bad JSON, unknown event: nothing on the wire.
        let nobody = #"{"eventName":"__offer","data":{"socketId":"nobody","sdp":{}}}"#
        #expect(Self.sends(rooms.handle(Self.msg(Self.a, nobody))) == [])
        #expect(Self.sends(rooms.handle(Self.msg(Self.a, "{oops"))) == [])
        #expect(Self.sends(rooms.handle(Self.msg(Self.a, #"{"eventName":"custom","data":{}}"#))) == [])
    }

    @Test func tooManyBadMessagesCloseWith1008() {
        var rooms = Self.opened(Self.a)
        var closes = 0
        for _ in 0..<SkyRTCRooms.maxErrorsPerSocket {
            for action in rooms.handle(Self.msg(Self.a, "x")) {
                if case .close(Self.a, .policyViolation, _) = action { closes += 1 }
            }
        }
        #expect(closes == 1)
        // A good message in between resets the count: occasional mistakes never close a client.
        var patient = Self.opened(Self.b)
        var patientCloses = 0
        for i in 0..<(2 * SkyRTCRooms.maxErrorsPerSocket) {
            let input = i % 16 == 15 ? Self.msg(Self.b, Self.join("ok")) : Self.msg(Self.b, "x")
            for action in patient.handle(input) {
                if case .close = action { patientCloses += 1 }
            }
        }
        #expect(patientCloses == 0)
    }

    @Test func messagesFromUnknownSocketsAreIgnored() {
        var rooms = SkyRTCRooms()
        #expect(rooms.handle(Self.msg(Self.a, Self.join("r"))) == [])
        #expect(rooms.roomCount == 0)
    }
}
