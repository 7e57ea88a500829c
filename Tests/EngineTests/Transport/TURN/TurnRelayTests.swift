import Testing
@testable import EngineTransport

/// Relaying through an allocation: CreatePermission, Send indications until a channel is bound, ChannelBind and
/// ChannelData, their refreshes, and what the client believes of inbound data (RFC 8656 §9-§12).
@Suite struct TurnRelayTests {
    let peer = TransportAddress("203.0.113.7:6000")!

    /// An allocated client that has sent `payload` to `peer` with the permission and channel answered as asked.
    func relaying(_ payload: [UInt8] = [1, 2, 3], bindChannel: Bool = true) throws -> TurnClientHarness {
        let h = TurnClientHarness()
        try h.allocate()
        h.feed(.send(to: peer, bytes: payload))
        h.feed(.received(try h.server.success(h.lastRequest())))            // CreatePermission
        if bindChannel {
            let bind = try #require(h.sent.compactMap { try? StunMessage(decoding: $0) }.last { $0.type.method == .channelBind })
            h.feed(.received(try h.server.success(bind)))
        }
        return h
    }

    @Test func firstSendCreatesAPermissionAndHoldsTheDatagramUntilItExists() throws {
        let h = TurnClientHarness()
        try h.allocate()
        let before = h.sent.count
        h.feed(.send(to: peer, bytes: [9, 9, 9]))
        #expect(h.sent.count == before + 1, "only the CreatePermission goes out; the datagram waits")
        let create = try h.lastRequest()
        #expect(create.type == StunMessageType(method: .createPermission, stunClass: .request))
        #expect(create.xorPeerAddress?.ip == peer.ip)
        #expect(h.server.isAuthenticated(create))

        h.feed(.received(try h.server.success(create)))
        #expect(h.events.contains(.permissionCreated(peer.ip)))
        #expect(h.client.hasPermission(for: peer.ip))
        // The held datagram leaves as a Send indication (XOR-PEER-ADDRESS, DATA, no MESSAGE-INTEGRITY, §10.1),
        // followed by the ChannelBind of the first channel number.
        let messages = h.sent.suffix(2).compactMap { try? StunMessage(decoding: $0) }
        let send = try #require(messages.first)
        #expect(send.type == StunMessageType(method: .send, stunClass: .indication))
        #expect(send.xorPeerAddress == peer && send.data == [9, 9, 9] && !send.hasIntegrity)
        let bind = try #require(messages.last)
        #expect(bind.type == StunMessageType(method: .channelBind, stunClass: .request))
        #expect(bind.attributes.contains(.channelNumber(0x4000)) && bind.xorPeerAddress == peer)
        #expect(h.server.isAuthenticated(bind))
    }

    /// coturn 4.6 deletes the allocation when a send to a peer fails with EACCES (a broadcast address) or EINVAL
    /// (port 0): such peers get no permission, no channel and no datagram.
    @Test func addressesNoUnicastPeerHasGetNoPermissionAndNothingIsSentToThem() throws {
        let h = TurnClientHarness()
        try h.allocate()
        let before = h.sent.count
        for text in ["255.255.255.255:9", "224.0.0.1:9", "0.0.0.0:9", "240.0.0.1:9"] {
            let target = TransportAddress(text)!
            h.feed(.permit(target.ip))
            h.feed(.send(to: target, bytes: [1, 2, 3]))
        }
        // Port 0: the address may be a peer's (its permission is per IP), but nothing can be sent to that port.
        h.feed(.send(to: TransportAddress("203.0.113.7:0")!, bytes: [1, 2, 3]))
        #expect(h.sent.count == before, "no CreatePermission, Send indication or ChannelBind went out")
        #expect(h.client.permissionCount == 0)
        #expect(h.client.droppedSends == 5)
    }

    @Test func sendIndicationsUntilBoundThenChannelDataWithoutPaddingOverUDP() throws {
        let h = try relaying(bindChannel: false)
        h.feed(.send(to: peer, bytes: [4, 5]))
        let indication = try h.lastRequest()
        #expect(indication.type.method == .send && indication.data == [4, 5])

        let bind = try #require(h.sent.compactMap { try? StunMessage(decoding: $0) }.last { $0.type.method == .channelBind })
        h.feed(.received(try h.server.success(bind)))
        #expect(h.events.contains(.channelBound(peer: peer, channel: 0x4000)))
        #expect(h.client.boundChannel(for: peer) == 0x4000)

        h.feed(.send(to: peer, bytes: [7, 7, 7, 7, 7]))
        // §12.4: channel number, length, payload; §12.5: over UDP no padding is needed.
        #expect(h.sent.last == [0x40, 0x00, 0x00, 0x05, 7, 7, 7, 7, 7])
    }

    @Test func overAStreamChannelDataIsPaddedToFourBytes() throws {
        let h = TurnClientHarness { $0.reliableTransport = true }
        try h.allocate()
        h.feed(.send(to: peer, bytes: [1]))
        h.feed(.received(try h.server.success(h.lastRequest())))
        h.feed(.received(try h.server.success(h.lastRequest())))
        h.feed(.send(to: peer, bytes: [7, 7, 7, 7, 7]))
        #expect(h.sent.last == [0x40, 0x00, 0x00, 0x05, 7, 7, 7, 7, 7, 0, 0, 0])
    }

    @Test func permissionsAndChannelsAreRefreshedBeforeTheyExpire() throws {
        let h = try relaying()
        let start = h.now
        // §9: permissions last 300 s; refreshed at 240 s. The allocation refresh (540 s) and the channel refresh
        // (480 s) come later.
        #expect(h.deadline == start + .seconds(240))
        h.advance(to: start + .seconds(240))
        let create = try h.lastRequest()
        #expect(create.type.method == .createPermission && create.xorPeerAddress?.ip == peer.ip)
        h.feed(.received(try h.server.success(create)))
        #expect(h.events.filter { $0 == .permissionCreated(peer.ip) }.count == 1, "a refresh is not a new permission")

        h.advance(to: start + .seconds(480))
        let rebind = try h.lastRequest()
        #expect(rebind.type.method == .channelBind && rebind.attributes.contains(.channelNumber(0x4000)))
        #expect(rebind.xorPeerAddress == peer)
        h.feed(.received(try h.server.success(rebind)))
        // Still bound, still ChannelData.
        h.feed(.send(to: peer, bytes: [1]))
        #expect(h.sent.last == [0x40, 0x00, 0x00, 0x01, 1])
    }

    @Test func permitInstallsAPermissionWithoutSendingData() throws {
        let h = TurnClientHarness()
        // Asked for before the allocation exists: requested right after it.
        h.feed(.permit(peer.ip))
        try h.allocate()
        let create = try h.lastRequest()
        #expect(create.type.method == .createPermission && create.xorPeerAddress?.ip == peer.ip)
        h.feed(.received(try h.server.success(create)))
        #expect(h.client.hasPermission(for: peer.ip))
        // A Data indication from that peer is now believed.
        h.feed(.received(try h.server.dataIndication(from: peer, [5, 6])))
        #expect(h.events.last == .data(from: peer, bytes: [5, 6]))
    }

    @Test func inboundChannelDataAndDataIndicationsAreBelievedOnlyFromKnownChannelsAndPermittedPeers() throws {
        let h = try relaying()
        h.feed(.received([0x40, 0x00, 0x00, 0x02, 8, 9]))
        #expect(h.events.last == .data(from: peer, bytes: [8, 9]))
        // Padding after the payload is allowed over UDP (§12.5).
        h.feed(.received([0x40, 0x00, 0x00, 0x02, 8, 9, 0, 0]))
        #expect(h.events.last == .data(from: peer, bytes: [8, 9]))
        let eventsBefore = h.events.count
        let dropsBefore = h.client.droppedReceives
        // A channel we never bound, one outside the range, a length beyond the datagram, too much trailing data.
        h.feed(.received([0x40, 0x01, 0x00, 0x01, 1]))
        h.feed(.received([0x50, 0x00, 0x00, 0x01, 1]))
        h.feed(.received([0x40, 0x00, 0x00, 0x09, 1]))
        h.feed(.received([0x40, 0x00, 0x00, 0x01, 1, 0, 0, 0, 0]))
        // A Data indication from an IP without a permission.
        h.feed(.received(try h.server.dataIndication(from: TransportAddress("203.0.113.99:1")!, [1])))
        #expect(h.events.count == eventsBefore)
        #expect(h.client.droppedReceives == dropsBefore + 5)
        h.feed(.received(try h.server.dataIndication(from: TransportAddress("203.0.113.7:7777")!, [3])))
        #expect(h.events.last == .data(from: TransportAddress("203.0.113.7:7777")!, bytes: [3]),
                "permissions are per IP address (§9), any port")
    }

    @Test func aRefusedPermissionDropsHeldDataAndIsAskedAgainLater() throws {
        let h = TurnClientHarness()
        try h.allocate()
        h.feed(.send(to: peer, bytes: [1]))
        h.feed(.send(to: peer, bytes: [2]))
        let create = try h.lastRequest()
        h.feed(.received(try h.server.error(create, code: 403, reason: "Forbidden")))
        #expect(h.events.last.map { if case .permissionFailed(peer.ip, _) = $0 { true } else { false } } == true)
        #expect(h.client.droppedSends == 2)
        let count = h.sent.count
        h.feed(.send(to: peer, bytes: [3]))
        #expect(h.sent.count == count && h.client.droppedSends == 3, "no request storm: refused for a while")
        h.advance(by: .seconds(30))
        #expect(try h.lastRequest().type.method == .createPermission)
    }

    @Test func aRefusedChannelKeepsUsingSendIndications() throws {
        let h = try relaying(bindChannel: false)
        let bind = try #require(h.sent.compactMap { try? StunMessage(decoding: $0) }.last { $0.type.method == .channelBind })
        h.feed(.received(try h.server.error(bind, code: 400, reason: "Bad Request")))
        h.feed(.send(to: peer, bytes: [4]))
        let sent = try h.lastRequest()
        #expect(sent.type.method == .send && sent.data == [4])
        #expect(h.client.boundChannel(for: peer) == nil)
    }

    @Test func sendsBeforeAllocationOrToTheOtherFamilyAreDropped() throws {
        let h = TurnClientHarness()
        h.feed(.send(to: peer, bytes: [1]))
        #expect(h.sent.isEmpty && h.client.droppedSends == 1)
        try h.allocate()
        h.feed(.send(to: TransportAddress("[2001:db8::1]:5000")!, bytes: [1]))
        #expect(h.client.droppedSends == 2 && h.client.permissionCount == 0)
    }

    @Test func permissionsChannelsAndQueuesAreBounded() throws {
        let h = TurnClientHarness { $0.maxPermissions = 4; $0.maxChannels = 2; $0.maxQueuedPerPeer = 3 }
        try h.allocate()
        for i in 0..<10 { h.feed(.send(to: TransportAddress("203.0.113.\(i + 1):1000")!, bytes: [UInt8(i)])) }
        #expect(h.client.permissionCount == 4)
        #expect(h.client.droppedSends == 6)
        for _ in 0..<10 { h.feed(.send(to: TransportAddress("203.0.113.1:1000")!, bytes: [0xEE])) }
        #expect(h.client.droppedSends == 6 + 8, "three held per peer, the oldest dropped")
        // Answer every CreatePermission: the held datagrams go out and channels are asked for, up to the bound.
        for message in h.sent.compactMap({ try? StunMessage(decoding: $0) }) where message.type.method == .createPermission {
            h.feed(.received(try h.server.success(message)))
        }
        #expect(h.client.channelCount == 2)
        #expect(h.client.transactionCount <= 4 + 2 + 1)
    }
}
