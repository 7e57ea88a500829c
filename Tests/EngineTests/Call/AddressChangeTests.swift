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
        // Ben joined second: Ana answered his offer, and he answered Cy's. His restart re-offers on both kinds.
        let h = connectedRoom(seed: 71, ["Ana", "Ben", "Cy"])
        let ben = h.member("Ben"), others = [h.member("Ana"), h.member("Cy")]
        let benID = try #require(ben.id)
        #expect(ben.core.connection(of: try #require(others[0].id))?.role == .offerer)
        #expect(ben.core.connection(of: try #require(others[1].id))?.role == .answerer)
        let heard = others.map { $0.videoFrom["Ben"]?.count ?? 0 }
        let ids = h.members.map(\.id)
        let newAddress = IPAddress("127.0.0.42")!
        h.move("Ben", to: newAddress)
        h.run(for: .seconds(2))
        for other in others {
            let otherID = try #require(other.id)
            let mine = try #require(ben.core.connection(of: otherID))
            #expect(mine.selectedPair?.localBase.ip == newAddress, "\(other.name)")
            #expect(mine.iceRestarts == 1 && mine.state == .connected)
            let theirs = try #require(other.core.connection(of: benID))
            #expect(theirs.selectedPair?.remoteAddress.ip == newAddress, "\(other.name) sends to the new address")
        }
        // Two more seconds at 15 frames a second: most of them arrived, on both sides.
        h.run(for: .seconds(2))
        for (other, before) in zip(others, heard) {
            #expect((other.videoFrom["Ben"]?.count ?? 0) - before > 40, "\(other.name) sees Ben")
            #expect(!other.states.contains { $0.hasPrefix("Ben:") && !["Ben:new", "Ben:connecting", "Ben:connected"].contains($0) })
        }
        #expect((ben.videoFrom["Ana"]?.count ?? 0) > 0 && (ben.videoFrom["Cy"]?.count ?? 0) > 0)
        #expect(h.members.map(\.id) == ids, "nobody rejoined")
        #expect(ben.log.contains { $0.contains("host addresses changed") })
        #expect(h.members.allSatisfy { $0.misattributed == 0 })
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
