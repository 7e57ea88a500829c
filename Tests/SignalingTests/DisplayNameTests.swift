import Foundation
import Testing
@testable import Signaling

/// The display-name extension: `__join.name`, `_peers.names`, `_new_peer.name`, the cleaning rule,
/// and the original wire format, which sends no names.
@Suite struct DisplayNameMessageTests {
    static let a = SocketID("a1f2e3d4-0b1c-4d2e-8f3a-4b5c6d7e8f90")
    static let b = SocketID("b7e1c3d2-5a4f-4e8b-9c21-0f3a6d8e9b10")
    static let c = SocketID("c0ffee00-1111-4222-8333-444455556666")

    static func decode(_ text: String) throws(SignalingError) -> SkyRTCClientMessage {
        try SkyRTCClientMessage.decode(Array(text.utf8))
    }

    @Test func joinTextWithAndWithoutName() {
        #expect(SkyRTCClientMessage.join(SkyRTCJoin(room: "r1", name: "Ada")).jsonText
            == #"{"eventName":"__join","data":{"room":"r1","name":"Ada"}}"#)
        #expect(SkyRTCClientMessage.join(SkyRTCJoin(room: "r1")).jsonText
            == #"{"eventName":"__join","data":{"room":"r1"}}"#)
        #expect(SkyRTCClientMessage.join(SkyRTCJoin(room: "r1", name: nil)).jsonText
            == #"{"eventName":"__join","data":{"room":"r1"}}"#)
    }

    @Test(arguments: [
        (#"{"eventName":"__join","data":{"room":"r1","name":"Ada"}}"#, "Ada" as String?),
        (#"{"eventName":"__join","data":{"room":"r1"}}"#, nil),
        (#"{"eventName":"__join","data":{"room":"r1","name":null}}"#, nil),
        (#"{"eventName":"__join","data":{"room":"r1","name":""}}"#, nil),
        (#"{"eventName":"__join","data":{"room":"r1","name":"  \t "}}"#, nil),
        (#"{"eventName":"__join","data":{"room":"r1","name":"  Ada Lovelace  "}}"#, "Ada Lovelace"),
        (#"{"eventName":"__join","data":{"room":"r1","name":"\u001b[2JEve"}}"#, "[2JEve"),
        (#"{"eventName":"__join","data":{"room":"r1","name":"\u202Eevil"}}"#, "evil"),
        (#"{"name":"Ada","data":{"name":"Bob","room":"r1"},"eventName":"__join"}"#, "Bob"),
    ])
    func joinNameIsDecodedAndCleaned(_ text: String, _ name: String?) throws {
        #expect(try Self.decode(text) == .join(SkyRTCJoin(room: "r1", name: name)))
    }

    @Test(arguments: [
        #"{"eventName":"__join","data":{"room":"r1","name":42}}"#,
        #"{"eventName":"__join","data":{"room":"r1","name":true}}"#,
        #"{"eventName":"__join","data":{"room":"r1","name":["Ada"]}}"#,
        #"{"eventName":"__join","data":{"room":"r1","name":{"first":"Ada"}}}"#,
    ])
    func nonStringNamesAreRefused(_ text: String) {
        #expect(throws: SignalingError.self) { try Self.decode(text) }
        do {
            _ = try Self.decode(text)
        } catch {
            guard case .badMessage(let code, let message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(code == .badField)
            #expect(message == "__join: name must be a string")
        }
    }

    @Test func peersTextCarriesNamesOnlyInTheConftuiFormat() {
        let peers = SkyRTCPeers(connections: [Self.a, Self.c], you: Self.b, names: [Self.c: "Cy", Self.a: "Ada"])
        #expect(SkyRTCServerMessage.peers(peers).jsonText(format: .conftui)
            == #"{"eventName":"_peers","data":{"connections":["\#(Self.a)","\#(Self.c)"],"you":"\#(Self.b)","names":{"\#(Self.a)":"Ada","\#(Self.c)":"Cy"}}}"#)
        #expect(SkyRTCServerMessage.peers(peers).jsonText(format: .original)
            == #"{"eventName":"_peers","data":{"connections":["\#(Self.a)","\#(Self.c)"],"you":"\#(Self.b)"}}"#)
        // No names: the key is omitted entirely.
        #expect(SkyRTCServerMessage.peers(SkyRTCPeers(connections: [Self.a], you: Self.b)).jsonText(format: .conftui)
            == #"{"eventName":"_peers","data":{"connections":["\#(Self.a)"],"you":"\#(Self.b)"}}"#)
    }

    @Test func newPeerTextCarriesTheNameOnlyInTheConftuiFormat() {
        #expect(SkyRTCServerMessage.newPeer(Self.b, name: "Bob").jsonText(format: .conftui)
            == #"{"eventName":"_new_peer","data":{"socketId":"\#(Self.b)","name":"Bob"}}"#)
        #expect(SkyRTCServerMessage.newPeer(Self.b, name: "Bob").jsonText(format: .original)
            == #"{"eventName":"_new_peer","data":{"socketId":"\#(Self.b)"}}"#)
        #expect(SkyRTCServerMessage.newPeer(Self.b, name: nil).jsonText(format: .conftui)
            == #"{"eventName":"_new_peer","data":{"socketId":"\#(Self.b)"}}"#)
    }

    @Test func clientDecodesNamesAndToleratesTheirAbsence() throws {
        let withNames = SkyRTCServerMessage.peers(SkyRTCPeers(connections: [Self.a], you: Self.b, names: [Self.a: "Ada"]))
        #expect(try SkyRTCServerMessage.decode(Array(withNames.jsonText().utf8)) == withNames)
        let original = #"{"eventName":"_peers","data":{"connections":["\#(Self.a)"],"you":"\#(Self.b)"}}"#
        #expect(try SkyRTCServerMessage.decode(Array(original.utf8)) == .peers(SkyRTCPeers(connections: [Self.a], you: Self.b)))
        #expect(try SkyRTCServerMessage.decode(Array(#"{"eventName":"_new_peer","data":{"socketId":"x","name":"Bob"}}"#.utf8))
            == .newPeer(SocketID("x"), name: "Bob"))
        #expect(try SkyRTCServerMessage.decode(Array(#"{"eventName":"_new_peer","data":{"socketId":"x"}}"#.utf8))
            == .newPeer(SocketID("x"), name: nil))
        // A server is not trusted more than a client: names are cleaned again, non-strings skipped.
        let hostile = #"{"eventName":"_peers","data":{"connections":["x","y","z"],"you":"w","names":{"x":"\u001b]0;pwned\u0007Ann","y":7,"z":"\u2066"}}}"#
        #expect(try SkyRTCServerMessage.decode(Array(hostile.utf8))
            == .peers(SkyRTCPeers(connections: [SocketID("x"), SocketID("y"), SocketID("z")], you: SocketID("w"), names: [SocketID("x"): "]0;pwnedAnn"])))
        #expect(try SkyRTCServerMessage.decode(Array(#"{"eventName":"_peers","data":{"connections":[],"you":"w","names":"Ada"}}"#.utf8))
            == .peers(SkyRTCPeers(connections: [], you: SocketID("w"))))
        #expect(try SkyRTCServerMessage.decode(Array(#"{"eventName":"_new_peer","data":{"socketId":"x","name":5}}"#.utf8))
            == .newPeer(SocketID("x"), name: nil))
    }
}

@Suite struct DisplayNameCleaningTests {
    @Test(arguments: [
        ("Ada", "Ada" as String?),
        ("", nil),
        ("   ", nil),
        ("\u{1B}[2J\u{1B}[H", "[2J[H"),
        ("Bob\u{7}\u{7F}\u{85}\u{9B}31m", "Bob31m"),
        ("line\nbreak\r\ttab", "linebreaktab"),
        ("\u{202E}olleH\u{202C}", "olleH"),
        ("\u{2066}a\u{2067}b\u{2068}c\u{2069}\u{200E}\u{200F}\u{061C}", "abc"),
        ("zero\u{200B}width\u{FEFF}\u{2060}", "zerowidth"),
        ("para\u{2028}graph\u{2029}", "paragraph"),
        ("\u{3000}Zoë\u{00A0}", "Zoë"),
        ("\u{1B}", nil),
        ("\u{202E} \u{202D}", nil),
        ("👩‍👩‍👧", "👩‍👩‍👧"),
    ])
    func stripsControlsAndOverridesAndTrims(_ raw: String, _ expected: String?) {
        #expect(SkyRTCDisplayName.clean(raw) == expected)
    }

    @Test func capsAt64BytesOnACharacterBoundary() throws {
        #expect(SkyRTCDisplayName.clean(String(repeating: "x", count: 10_000)) == String(repeating: "x", count: 64))
        #expect(SkyRTCDisplayName.clean(String(repeating: "x", count: 64)) == String(repeating: "x", count: 64))
        // Two-byte letters: 32 fit exactly.
        #expect(SkyRTCDisplayName.clean(String(repeating: "é", count: 40)) == String(repeating: "é", count: 32))
        // Three-byte letters: 21 fit (63 bytes), the 22nd would cross 64.
        #expect(SkyRTCDisplayName.clean(String(repeating: "語", count: 30)) == String(repeating: "語", count: 21))
        // An emoji family is one character of 18 bytes: three fit (54), never a broken fourth.
        let family = "👩‍👩‍👧"
        #expect(family.utf8.count == 18)
        #expect(SkyRTCDisplayName.clean(String(repeating: family, count: 10)) == String(repeating: family, count: 3))
        // "e" + combining acute is one character: the cut never separates them.
        let name = String(repeating: "a", count: 63) + "e\u{301}"
        #expect(SkyRTCDisplayName.clean(name) == String(repeating: "a", count: 63))
        // White space left at the cut is trimmed.
        #expect(SkyRTCDisplayName.clean(String(repeating: "a", count: 63) + " bcd") == String(repeating: "a", count: 63))
        // Controls do not count against the cap: they are gone before it.
        #expect(SkyRTCDisplayName.clean(String(repeating: "\u{1B}", count: 100) + "Ada") == "Ada")
        for n in 0..<200 {
            let cleaned = try #require(SkyRTCDisplayName.clean(String(repeating: "ü語👍", count: n + 1)))
            #expect(cleaned.utf8.count <= SkyRTCDisplayName.maxBytes)
        }
    }
}

@Suite struct DisplayNameRoomsTests {
    static let a = SocketID("aaaaaaaa-0000-4000-8000-000000000001")
    static let b = SocketID("bbbbbbbb-0000-4000-8000-000000000002")
    static let c = SocketID("cccccccc-0000-4000-8000-000000000003")

    static func msg(_ id: SocketID, _ text: String) -> SkyRTCRooms.Input { .message(id, Array(text.utf8), isBinary: false) }
    static func join(_ room: String, _ name: String? = nil) -> String {
        SkyRTCClientMessage.join(SkyRTCJoin(room: room, name: name)).jsonText
    }
    static func sends(_ actions: [SkyRTCRooms.Action]) -> [SkyRTCRooms.Action] {
        actions.filter { if case .log = $0 { return false } else { return true } }
    }
    static func opened(_ ids: SocketID..., format: SkyRTCWireFormat = .conftui) -> SkyRTCRooms {
        var r = SkyRTCRooms(format: format)
        for id in ids { _ = r.handle(.opened(id)) }
        return r
    }

    @Test func namesFollowTheJoinOrdering() {
        var rooms = Self.opened(Self.a, Self.b, Self.c)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1", "Ada")))
        #expect(Self.sends(rooms.handle(Self.msg(Self.b, Self.join("r1", "Bob")))) == [
            .send(Self.a, Array(#"{"eventName":"_new_peer","data":{"socketId":"\#(Self.b)","name":"Bob"}}"#.utf8)),
            .send(Self.b, Array(#"{"eventName":"_peers","data":{"connections":["\#(Self.a)"],"you":"\#(Self.b)","names":{"\#(Self.a)":"Ada"}}}"#.utf8)),
        ])
        // c gives no name: members get a plain _new_peer, and c sees both names.
        #expect(Self.sends(rooms.handle(Self.msg(Self.c, Self.join("r1")))) == [
            .send(Self.a, Array(#"{"eventName":"_new_peer","data":{"socketId":"\#(Self.c)"}}"#.utf8)),
            .send(Self.b, Array(#"{"eventName":"_new_peer","data":{"socketId":"\#(Self.c)"}}"#.utf8)),
            .send(Self.c, Array(#"{"eventName":"_peers","data":{"connections":["\#(Self.a)","\#(Self.b)"],"you":"\#(Self.c)","names":{"\#(Self.a)":"Ada","\#(Self.b)":"Bob"}}}"#.utf8)),
        ])
        #expect(rooms.name(of: Self.a) == "Ada")
        #expect(rooms.name(of: Self.c) == nil)
        // After a leaves, its name is forgotten with it.
        _ = rooms.handle(.closed(Self.a))
        #expect(rooms.name(of: Self.a) == nil)
    }

    @Test func aRejoinReplacesTheName() {
        var rooms = Self.opened(Self.a, Self.b, Self.c)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1", "Ada")))
        _ = rooms.handle(Self.msg(Self.b, Self.join("r1", "Bob")))
        // Same room, new name: a fresh _peers for a, nothing for b (no duplicate _new_peer).
        #expect(Self.sends(rooms.handle(Self.msg(Self.a, Self.join("r1", "Ada L.")))) == [
            .send(Self.a, Array(#"{"eventName":"_peers","data":{"connections":["\#(Self.b)"],"you":"\#(Self.a)","names":{"\#(Self.b)":"Bob"}}}"#.utf8)),
        ])
        #expect(rooms.name(of: Self.a) == "Ada L.")
        // A later joiner sees the new name; dropping the name on a rejoin is also remembered.
        _ = rooms.handle(Self.msg(Self.b, Self.join("r1")))
        #expect(Self.sends(rooms.handle(Self.msg(Self.c, Self.join("r1", "Cy")))) == [
            .send(Self.a, Array(#"{"eventName":"_new_peer","data":{"socketId":"\#(Self.c)","name":"Cy"}}"#.utf8)),
            .send(Self.b, Array(#"{"eventName":"_new_peer","data":{"socketId":"\#(Self.c)","name":"Cy"}}"#.utf8)),
            .send(Self.c, Array(#"{"eventName":"_peers","data":{"connections":["\#(Self.a)","\#(Self.b)"],"you":"\#(Self.c)","names":{"\#(Self.a)":"Ada L."}}}"#.utf8)),
        ])
        // Another room, another name: the new room's members hear it.
        _ = rooms.handle(Self.msg(Self.c, Self.join("r2", "Cyrus")))
        #expect(Self.sends(rooms.handle(Self.msg(Self.a, Self.join("r2", "Ada")))) == [
            .send(Self.b, Array(#"{"eventName":"_remove_peer","data":{"socketId":"\#(Self.a)"}}"#.utf8)),
            .send(Self.c, Array(#"{"eventName":"_new_peer","data":{"socketId":"\#(Self.a)","name":"Ada"}}"#.utf8)),
            .send(Self.a, Array(#"{"eventName":"_peers","data":{"connections":["\#(Self.c)"],"you":"\#(Self.a)","names":{"\#(Self.c)":"Cyrus"}}}"#.utf8)),
        ])
    }

    @Test func theOriginalFormatSendsNoNames() {
        var rooms = Self.opened(Self.a, Self.b, format: .original)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1", "Ada")))
        #expect(Self.sends(rooms.handle(Self.msg(Self.b, Self.join("r1", "Bob")))) == [
            .send(Self.a, Array(#"{"eventName":"_new_peer","data":{"socketId":"\#(Self.b)"}}"#.utf8)),
            .send(Self.b, Array(#"{"eventName":"_peers","data":{"connections":["\#(Self.a)"],"you":"\#(Self.b)"}}"#.utf8)),
        ])
    }

    @Test func aNonStringNameIsRefusedAndNobodyElseHearsOfIt() {
        var rooms = Self.opened(Self.a, Self.b)
        _ = rooms.handle(Self.msg(Self.a, Self.join("r1", "Ada")))
        let bad = #"{"eventName":"__join","data":{"room":"r1","name":42}}"#
        #expect(Self.sends(rooms.handle(Self.msg(Self.b, bad))) == [
            .send(Self.b, Array(#"{"eventName":"_error","data":{"code":"bad_field","message":"__join: name must be a string"}}"#.utf8)),
        ])
        #expect(rooms.room(of: Self.b) == nil)
        #expect(rooms.members(of: "r1") == [Self.a])
    }
}
