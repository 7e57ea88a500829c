import Testing
import EngineTestSupport
@testable import Engine

/// A member's host address changes mid-call (a laptop moves from Wi-Fi to a phone's hotspot): its call binds sockets
/// on the new address and restarts ICE on them through a re-offer (RFC 8445 §9), on the same connections and the
/// same DTLS association, and media resumes within seconds; the room never sees anyone leave.
@Suite struct AddressChangeTests {
    func connectedRoom(seed: UInt64, _ names: [String]) -> CallRoomHarness {
        let h = CallRoomHarness(seed: seed)
        for name in names { h.add(name) }
        for name in names { h.join(name) }
        #expect(h.run(for: .seconds(10), until: { h.fullyConnected }))
        h.run(for: .seconds(1))
        return h
    }

    @Test(.timeLimit(.minutes(1)))
    func aMovedMemberRestartsICEOnItsNewAddressAndMediaResumesWithinTwoSeconds() throws {
        let h = connectedRoom(seed: 71, ["Ana", "Ben", "Cy"])
        let ana = h.member("Ana"), ben = h.member("Ben"), cy = h.member("Cy")
        let heard = (ben: ben.videoFrom["Ana"]?.count ?? 0, cy: cy.videoFrom["Ana"]?.count ?? 0)
        let ids = h.members.map(\.id)
        h.move("Ana", to: IPAddress("127.0.0.42")!)
        h.run(for: .seconds(2))
        for other in [ben, cy] {
            let otherID = try #require(other.id), anaID = try #require(ana.id)
            let connection = try #require(ana.core.connection(of: otherID))
            #expect(connection.selectedPair?.localBase.ip == IPAddress("127.0.0.42"), "\(other.name)")
            #expect(connection.iceRestarts == 1)
            #expect(connection.state == .connected)
            let theirs = try #require(other.core.connection(of: anaID))
            #expect(theirs.selectedPair?.remoteAddress.ip == IPAddress("127.0.0.42"), "\(other.name) sends to the new address")
        }
        // Two seconds at 15 frames a second: most of them arrived, from the new address, on both sides.
        h.run(for: .seconds(2))
        #expect((ben.videoFrom["Ana"]?.count ?? 0) - heard.ben > 40)
        #expect((cy.videoFrom["Ana"]?.count ?? 0) - heard.cy > 40)
        #expect((ana.videoFrom["Ben"]?.count ?? 0) > 0)
        #expect(h.members.map(\.id) == ids, "nobody rejoined")
        #expect(!ben.states.contains { $0.hasPrefix("Ana:") && $0 != "Ana:connecting" && $0 != "Ana:connected" && $0 != "Ana:new" })
        #expect(ana.log.contains { $0.contains("host addresses changed") })
        #expect(ana.misattributed == 0 && ben.misattributed == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func anUnchangedAddressListRestartsNothing() throws {
        let h = connectedRoom(seed: 72, ["Ana", "Ben"])
        let ana = h.member("Ana")
        h.move("Ana", to: ana.ip)
        h.run(for: .seconds(1))
        let ben = try #require(h.member("Ben").id)
        #expect(ana.core.connection(of: ben)?.iceRestarts == 0)
    }
}
