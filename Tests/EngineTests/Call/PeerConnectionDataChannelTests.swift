import Testing
@testable import Engine
@testable import EngineTransport

/// Data channels through two `PeerConnection`s on the pair harness: SCTP over the real DTLS of the connection, the
/// channel the offerer opens before its offer, messages both ways, a peer that does not take the data section.
@Suite struct PeerConnectionDataChannelTests {
    private func dataEvents(_ h: PeerPairHarness, _ name: String) -> [DataChannelEvent] {
        h.events[name]!.compactMap { if case .dataChannel(let e) = $0 { e } else { nil } }
    }

    private func messages(_ h: PeerPairHarness, _ name: String) -> [DataChannels.Message] {
        dataEvents(h, name).compactMap { if case .message(_, let m) = $0 { m } else { nil } }
    }

    @Test(.timeLimit(.minutes(1)))
    func aChannelOpenedBeforeTheOfferCarriesTextBothWays() throws {
        let h = try PeerPairHarness(seed: 21)
        h.feed("A", .command(.openDataChannel(label: "undefined")))
        try h.negotiate()
        #expect(h.run(for: .seconds(10), until: {
            dataEvents(h, "B").contains { if case .opened(_, "undefined", true, 262_144) = $0 { true } else { false } }
        }))
        // A is the DTLS server here (the answerer is active): its streams are odd.
        let opened = try #require(dataEvents(h, "A").compactMap { e -> UInt16? in
            if case .opened(let id, _, false, _) = e { id } else { nil }
        }.first)
        #expect(opened % 2 == 1)
        h.feed("A", .command(.sendData(channel: opened, .text(Array("héllo 👋".utf8)))))
        h.feed("B", .command(.sendData(channel: opened, .binary([1, 2, 3]))))
        #expect(h.run(for: .seconds(5), until: { messages(h, "B").count == 1 && messages(h, "A").count == 1 }))
        #expect(messages(h, "B") == [.text(Array("héllo 👋".utf8))])
        #expect(messages(h, "A") == [.binary([1, 2, 3])])
    }

    @Test(.timeLimit(.minutes(1)))
    func closingTheConnectionClosesThePeersChannelAtOnce() throws {
        let h = try PeerPairHarness(seed: 22)
        h.feed("A", .command(.openDataChannel(label: "x")))
        try h.negotiate()
        #expect(h.run(for: .seconds(10), until: { dataEvents(h, "B").contains { if case .opened = $0 { true } else { false } } }))
        h.feed("A", .command(.close))
        #expect(h.run(for: .seconds(2), until: { dataEvents(h, "B").contains { if case .closed = $0 { true } else { false } } }))
    }

    /// A peer without data channels rejects the section: media goes on, nothing opens, the wish waits harmlessly.
    @Test(.timeLimit(.minutes(1)))
    func aPeerThatRejectsTheDataSectionStillHasTheCall() throws {
        let h = try PeerPairHarness(seed: 23) { $0.dataChannels = false }
        h.feed("A", .command(.openDataChannel(label: "x")))
        try h.negotiate()
        let answer = try #require(h.description("B"))
        #expect(answer.media[2].kind == "application" && answer.media[2].isRejected)
        #expect(answer.bundleGroup?.mids.map(\.rawValue) == ["0", "1"])
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        h.run(for: .seconds(1))
        #expect(h.a.data == nil && h.b.data == nil)
        #expect(dataEvents(h, "A").isEmpty && dataEvents(h, "B").isEmpty)
    }

    @Test func theDataSectionIsNoTransceiverToStop() throws {
        let h = try PeerPairHarness(seed: 24)
        try h.negotiate()
        let out = h.feed("A", .command(.stopTransceiver(mid: "2")))
        #expect(out.events.contains { if case .warning(let w) = $0 { w.contains("data section") } else { false } })
    }
}
