import Testing
@testable import EngineTransport

/// The controlled agent follows the controlling agent's latest nomination (media is believed only on the selected
/// pair, so both sides must agree on it), and keeps answering checks with checks of its own after a selection.
@Suite struct IceRenominationTests {
    @Test func theControlledAgentFollowsALaterNominationOfAnotherPair() throws {
        let h = IcePairHarness(seed: 31)
        let secondA = TransportAddress("10.0.1.1:5001")!
        h.extraHostsA = [secondA]
        h.start()
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        let first = try #require(h.b.selected)
        #expect(first.remoteAddress == h.addressA)
        // The controlling side moves to its other interface and nominates it there (as Chromium does when it
        // switches pairs): a USE-CANDIDATE check from the second address, signed with B's password.
        let a = h.a.localCredentials, b = h.b.localCredentials
        let check = try StunMessage(type: .bindingRequest, transactionID: TransactionID(bytes: [UInt8](repeating: 9, count: 12))!,
                                attributes: [.username("\(b.ufrag):\(a.ufrag)"), .priority(1_000), .iceControlling(h.a.config.tieBreaker),
                                             .useCandidate])
            .encode(integrityKey: StunIntegrity.shortTermKey(password: b.pwd), fingerprint: true)
        h.feed("B", .datagram(from: secondA, to: h.addressB, bytes: check))
        // B's own (triggered) check validates that pair, then B selects it, although its priority is lower.
        #expect(h.run(for: .seconds(2)) { $0.b.selected?.remoteAddress == secondA })
        #expect(h.b.isValidPair(local: h.addressB, remote: secondA))
        #expect(h.b.state == .connected)
        // The controlling agent keeps its own choice (it nominated one pair and nothing else).
        #expect(h.a.selected?.localBase == h.addressA)
    }
}
