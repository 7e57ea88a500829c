import Testing
@testable import Engine

/// Whose a data-channel event is on a connection that carries many participants (a forwarding server's
/// subscription): Janus relays each publisher's messages on a channel labelled with its feed id.
@Suite struct ForwardedDataChannelTests {
    let ada = RemotePeerID("1111"), bob = RemotePeerID("2222")

    func subscription() -> CallConnection {
        let c = CallConnection(id: ConnectionID(1), peer: SfuRoom.subscriber, role: nil, media: .receiveOnly,
                               participants: .bySection, createdAt: 0)
        c.owners = ["0": ada, "1": ada, "3": bob, "4": bob]
        return c
    }

    @Test func aChannelLabelledWithAFeedIsThatParticipantsUntilItCloses() {
        let c = subscription()
        #expect(c.dataRoute(of: .opened(1, label: "2222", byPeer: true, maxMessageSize: 0)) == .participant(bob))
        #expect(c.dataRoute(of: .message(1, .text(Array("hi".utf8)))) == .participant(bob))
        #expect(c.dataRoute(of: .buffered(1, queued: 0, accepted: 0)) == .participant(bob))
        #expect(c.dataRoute(of: .opened(3, label: "1111", byPeer: true, maxMessageSize: 0)) == .participant(ada))
        #expect(c.dataRoute(of: .closed(1)) == .participant(bob))
        #expect(c.dataOwners == [3: ada])
    }

    @Test func aLabelThatNamesNobodyIsHeldAndNeverDeliveredIfNobodyComes() {
        let c = subscription()
        #expect(c.dataRoute(of: .opened(5, label: "9999", byPeer: true, maxMessageSize: 0)) == .nobody(label: "9999"))
        #expect(c.dataRoute(of: .message(5, .text(Array("spoof".utf8)))) == .dropped)
        #expect(c.heldBytes == 5)
        #expect(c.claimChannels().isEmpty)
        #expect(c.dataRoute(of: .closed(5)) == .dropped)
        #expect(c.unclaimedChannels.isEmpty && c.dataOwners.isEmpty && c.heldBytes == 0)
    }

    /// Janus relays a newcomer's first message before its offer names the newcomer's sections: the channel and what
    /// came on it wait for the section map, then go to the newcomer in order.
    @Test func aChannelOpenedBeforeItsOwnerIsKnownIsTheirsOnceTheSectionMapNamesThem() {
        let c = subscription()
        let cy = RemotePeerID("3333")
        let opened = DataChannelEvent.opened(7, label: "3333", byPeer: true, maxMessageSize: 0)
        #expect(c.dataRoute(of: opened) == .nobody(label: "3333"))
        #expect(c.dataRoute(of: .message(7, .text(Array("first".utf8)))) == .dropped)
        #expect(c.dataRoute(of: .message(7, .text(Array("second".utf8)))) == .dropped)
        c.owners["6"] = cy
        let claimed = c.claimChannels()
        #expect(claimed.count == 1 && claimed.first?.0 == cy)
        #expect(claimed.first?.1 == [opened, .message(7, .text(Array("first".utf8))), .message(7, .text(Array("second".utf8)))])
        #expect(c.dataRoute(of: .message(7, .text(Array("third".utf8)))) == .participant(cy))
        #expect(c.unclaimedChannels.isEmpty && c.heldBytes == 0 && c.dataOwners[7] == cy)
    }

    @Test func whatIsHeldIsBoundedInBytesAndInMessages() {
        let c = subscription()
        _ = c.dataRoute(of: .opened(9, label: "4444", byPeer: true, maxMessageSize: 0))
        let half = [UInt8](repeating: 0x61, count: CallConnection.maxHeldBytes / 2)
        for _ in 0..<3 { _ = c.dataRoute(of: .message(9, .text(half))) }
        #expect(c.heldBytes == CallConnection.maxHeldBytes)
        _ = c.dataRoute(of: .opened(11, label: "5555", byPeer: true, maxMessageSize: 0))
        _ = c.dataRoute(of: .closed(9))
        #expect(c.heldBytes == 0)
        for _ in 0..<40 { _ = c.dataRoute(of: .message(11, .text([0x62]))) }
        c.owners["8"] = RemotePeerID("5555")
        #expect(c.claimChannels().first?.1.count == CallConnection.maxHeldEvents + 1)   // the opening and 16 messages
        #expect(c.heldBytes == 0)
    }

    @Test func ourOwnChannelsAndAMeshConnectionsStayTheConnections() {
        let c = subscription()
        #expect(c.dataRoute(of: .opened(0, label: "chat", byPeer: false, maxMessageSize: 0)) == .connection)
        #expect(c.dataRoute(of: .message(0, .text([]))) == .connection)
        let mesh = CallConnection(id: ConnectionID(2), peer: ada, role: .offerer, media: .sendReceive, createdAt: 0)
        #expect(mesh.dataRoute(of: .opened(7, label: "2222", byPeer: true, maxMessageSize: 0)) == .connection)
    }
}
