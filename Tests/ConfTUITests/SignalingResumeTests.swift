import Testing
@testable import ConfTUI
import Signaling

/// What the session keeps so that a lost signaling connection comes back as the same member (`SkyRTCPresence`), and
/// how it notices that the machine's addresses changed under it (`HostAddressWatch`).
@Suite struct SignalingResumeTests {
    let me = SocketID("me"), a = SocketID("a"), b = SocketID("b"), c = SocketID("c")

    /// `_peers` as a server sends it (its initializer is the Signaling module's own).
    func peers(_ connections: [SocketID], you: SocketID, resume: String? = nil) throws -> SkyRTCPeers {
        let ids = connections.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        let token = resume.map { ",\"resume\":\"\($0)\"" } ?? ""
        let text = "{\"eventName\":\"_peers\",\"data\":{\"connections\":[\(ids)],\"you\":\"\(you.rawValue)\"\(token)}}"
        guard case .peers(let p) = try SkyRTCServerMessage.decode(Array(text.utf8)) else { throw SignalingError.timeout }
        return p
    }

    @Test func aReconnectAnsweredWithTheSameIdIsAResumeThatTellsWhoLeftAndWhoCame() throws {
        var presence = SkyRTCPresence()
        presence.joined(try peers([a], you: me, resume: "t1"))
        presence.track(.newPeer(b, name: "Bob"))
        presence.track(.newPeer(me, name: nil))   // never ourselves
        #expect(presence.members == [a, b] && presence.resumeToken == "t1")
        // Meanwhile a left and c came.
        #expect(presence.rejoined(try peers([b, c], you: me, resume: "t2")) == .resumed(left: [a], came: [c]))
        #expect(presence.members == [b, c] && presence.resumeToken == "t2")
        presence.track(.removePeer(b))
        #expect(presence.members == [c])
    }

    @Test func anotherIdMeansTheRoomKnowsUsAsANewcomer() throws {
        var presence = SkyRTCPresence()
        presence.joined(try peers([a], you: me, resume: "t1"))
        #expect(presence.rejoined(try peers([a], you: c, resume: "t9")) == .newcomer)
        #expect(presence.you == c && presence.resumeToken == "t9" && presence.members == [a])
        // The original server gives no token: nothing to resume with next time.
        presence.joined(try peers([], you: b))
        #expect(presence.resumeToken == nil)
    }

    @Test func theWatchTellsEachChangeOnceAndLooksOnlyOnceASecond() {
        final class Addresses { var now: [String]? = ["10.1.0.2"] }
        let addresses = Addresses()
        var watch = HostAddressWatch(now: 0, list: { addresses.now })
        #expect(watch.poll(now: 0.5) == nil)
        addresses.now = ["10.3.0.2"]
        #expect(watch.poll(now: 0.9) == nil, "not due yet")
        #expect(watch.poll(now: 1.0) == HostAddressWatch.Change(gone: ["10.1.0.2"], added: ["10.3.0.2"]))
        #expect(watch.poll(now: 2.0) == nil, "told once")
        addresses.now = ["10.3.0.2", "192.168.1.5"]
        #expect(watch.poll(now: 3.0) == HostAddressWatch.Change(gone: [], added: ["192.168.1.5"]))
    }

    @Test func aListingThatFailsIsNoChangeNotEveryAddressGone() {
        final class Addresses { var now: [String]? = ["10.1.0.2"] }
        let addresses = Addresses()
        var watch = HostAddressWatch(now: 0, list: { addresses.now })
        addresses.now = nil   // getifaddrs failed (no file descriptor left)
        #expect(watch.poll(now: 1.0) == nil)
        addresses.now = ["10.1.0.2"]
        #expect(watch.poll(now: 2.0) == nil, "nothing changed, so nothing to restart")
    }
}
