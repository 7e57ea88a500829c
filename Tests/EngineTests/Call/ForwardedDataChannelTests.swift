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

    @Test func aLabelThatNamesNoParticipantIsIgnoredWithEverythingOnItsChannel() {
        let c = subscription()
        #expect(c.dataRoute(of: .opened(5, label: "9999", byPeer: true, maxMessageSize: 0)) == .nobody(label: "9999"))
        #expect(c.dataRoute(of: .message(5, .text(Array("spoof".utf8)))) == .dropped)
        #expect(c.dataRoute(of: .closed(5)) == .dropped)
        #expect(c.ignoredChannels.isEmpty && c.dataOwners.isEmpty)
    }

    @Test func ourOwnChannelsAndAMeshConnectionsStayTheConnections() {
        let c = subscription()
        #expect(c.dataRoute(of: .opened(0, label: "chat", byPeer: false, maxMessageSize: 0)) == .connection)
        #expect(c.dataRoute(of: .message(0, .text([]))) == .connection)
        let mesh = CallConnection(id: ConnectionID(2), peer: ada, role: .offerer, media: .sendReceive, createdAt: 0)
        #expect(mesh.dataRoute(of: .opened(7, label: "2222", byPeer: true, maxMessageSize: 0)) == .connection)
    }
}
