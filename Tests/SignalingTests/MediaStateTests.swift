import Testing
@testable import Signaling

/// The media-state extension (docs/skyrtc-protocol.md §9): `__media_state` in, `_media_state` to the others and
/// `_peers.media` for later joiners; checked like every other message; absent from the original wire format.
@Suite struct MediaStateTests {
    typealias T = SkyRTCRoomsTests
    static func state(_ muted: Bool, _ videoOn: Bool) -> String {
        #"{"eventName":"__media_state","data":{"audioMuted":\#(muted),"videoOn":\#(videoOn)}}"#
    }
    static func errorCode(_ actions: [SkyRTCRooms.Action], to id: SocketID) -> String? {
        for case .send(let to, let bytes) in actions where to == id {
            guard case .error(let e)? = try? SkyRTCServerMessage.decode(bytes) else { continue }
            return e.code.rawValue
        }
        return nil
    }

    @Test func aStateIsRelayedToTheOthersInJoinOrderAndNotToTheSender() {
        var rooms = T.opened(T.a, T.b, T.c)
        for id in [T.a, T.b, T.c] { _ = rooms.handle(T.msg(id, T.join("r"))) }
        let off = SkyRTCMediaState(audioMuted: true, videoOn: false)
        #expect(T.sends(rooms.handle(T.msg(T.b, Self.state(true, false)))) == [
            T.send(T.a, .mediaState(T.b, off)), T.send(T.c, .mediaState(T.b, off)),
        ])
        // The exact wire text.
        #expect(SkyRTCServerMessage.mediaState(T.b, off).jsonText()
                == #"{"eventName":"_media_state","data":{"socketId":"\#(T.b)","audioMuted":true,"videoOn":false}}"#)
    }

    @Test func aLaterJoinerLearnsTheStatesInPeersAndARoomChangeCarriesTheState() throws {
        var rooms = T.opened(T.a, T.b, T.c)
        _ = rooms.handle(T.msg(T.a, T.join("r")))
        _ = rooms.handle(T.msg(T.a, Self.state(false, false)))
        _ = rooms.handle(T.msg(T.b, T.join("r")))
        let out = T.sends(rooms.handle(T.msg(T.c, T.join("r"))))
        let peers = SkyRTCPeers(connections: [T.a, T.b], you: T.c, media: [T.a: SkyRTCMediaState(audioMuted: false, videoOn: false)])
        #expect(out.last == T.send(T.c, .peers(peers)))
        let text = peers.connections.isEmpty ? "" : SkyRTCServerMessage.peers(peers).jsonText()
        #expect(text.contains(#""media":{"\#(T.a)":{"audioMuted":false,"videoOn":false}}"#))
        #expect(try SkyRTCServerMessage.decode(Array(text.utf8)) == .peers(peers))
        // a moves to another room where c waits: c learns a's state with `_new_peer`.
        _ = rooms.handle(T.msg(T.c, T.join("s")))
        let moved = T.sends(rooms.handle(T.msg(T.a, T.join("s"))))
        #expect(moved.contains(T.send(T.c, .newPeer(T.a, name: nil))))
        #expect(moved.contains(T.send(T.c, .mediaState(T.a, SkyRTCMediaState(audioMuted: false, videoOn: false)))))
    }

    @Test func badStatesAreRefusedWithBadFieldAndTheConnectionStays() {
        var rooms = T.opened(T.a, T.b)
        _ = rooms.handle(T.msg(T.a, T.join("r")))
        _ = rooms.handle(T.msg(T.b, T.join("r")))
        for bad in [#"{"eventName":"__media_state","data":{"audioMuted":1,"videoOn":true}}"#,
                    #"{"eventName":"__media_state","data":{"audioMuted":true}}"#,
                    #"{"eventName":"__media_state","data":{"audioMuted":"true","videoOn":false}}"#,
                    #"{"eventName":"__media_state","data":[]}"#] {
            let out = rooms.handle(T.msg(T.a, bad))
            #expect(Self.errorCode(out, to: T.a) == "bad_field", "\(bad)")
            #expect(!out.contains { if case .send(T.b, _) = $0 { true } else { false } }, "\(bad) reached b")
            #expect(!out.contains { if case .close = $0 { true } else { false } })
        }
        // Before joining: not_joined.
        var fresh = T.opened(T.c)
        #expect(Self.errorCode(fresh.handle(T.msg(T.c, Self.state(true, true))), to: T.c) == "not_joined")
        // The good message after bad ones still goes through.
        #expect(T.sends(rooms.handle(T.msg(T.a, Self.state(true, true)))) == [T.send(T.b, .mediaState(T.a, SkyRTCMediaState(audioMuted: true, videoOn: true)))])
    }

    @Test func theOriginalFormatKnowsNothingOfIt() {
        var rooms = T.opened(T.a, T.b, format: .original)
        _ = rooms.handle(T.msg(T.a, T.join("r")))
        _ = rooms.handle(T.msg(T.b, T.join("r")))
        #expect(T.sends(rooms.handle(T.msg(T.a, Self.state(true, false)))) == [])
        // Nor does a later `_peers` carry it.
        var r2 = T.opened(T.a, T.b, T.c, format: .original)
        _ = r2.handle(T.msg(T.a, T.join("r")))
        _ = r2.handle(T.msg(T.a, Self.state(true, false)))
        let out = T.sends(r2.handle(T.msg(T.b, T.join("r"))))
        #expect(out.last == T.send(T.b, .peers(SkyRTCPeers(connections: [T.a], you: T.b)), .original))
    }

    @Test func theClientWritesAndTheServerReadsTheSameMessage() throws {
        let message = SkyRTCClientMessage.mediaState(SkyRTCMediaState(audioMuted: false, videoOn: true))
        #expect(message.jsonText == #"{"eventName":"__media_state","data":{"audioMuted":false,"videoOn":true}}"#)
        #expect(try SkyRTCClientMessage.decode(Array(message.jsonText.utf8)) == message)
        // A server's relay with a non-boolean is refused by the client's decoder.
        let bad = #"{"eventName":"_media_state","data":{"socketId":"x","audioMuted":null,"videoOn":true}}"#
        #expect(throws: SignalingError.self) { try SkyRTCServerMessage.decode(Array(bad.utf8)) }
    }
}
