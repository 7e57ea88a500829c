import Testing
@testable import EngineTransport

@Suite struct SctpAssociationTests {
    @Test func crc32cMatchesTheRFC3720TestVectors() {
        #expect(Crc32c.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(Crc32c.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(Crc32c.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(Crc32c.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func packetsRoundTripThroughTheCodec() throws {
        let chunks: [SctpChunk] = [
            .sack(SctpSack(cumulativeTSN: 7, advertisedReceiverWindow: 1000, gaps: [2...3, 5...9], duplicates: [4])),
            .data(SctpDataChunk(tsn: 9, stream: 2, ssn: 1, ppid: 51, unordered: false, beginning: true, ending: false,
                                payload: [1, 2, 3][...])),
            .forwardTSN(SctpForwardTSN(newCumulativeTSN: 12, streams: [(stream: 3, ssn: 4)])),
            .reconfig([.outgoingReset(requestSequence: 1, responseSequence: 2, lastTSN: 3, streams: [4, 6])]),
            .heartbeat(info: [0, 1, 0, 8, 9, 9, 9, 9]),
        ]
        let packet = SctpPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: 42, chunks: chunks)
        let bytes = packet.serialized()
        #expect(bytes.count % 4 == 0)
        #expect(try SctpPacket.parse(bytes).get() == packet)
        #expect(bytes.count == SctpPacket.headerSize + chunks.map(SctpPacket.encodedSize(of:)).reduce(0, +))
        var corrupt = bytes
        corrupt[20] ^= 1
        #expect(throws: SctpPacket.ParseError.badChecksum) { try SctpPacket.parse(corrupt).get() }
    }

    @Test(arguments: [true, false])
    func bothEndsStartingAtOnceConnectOnce(aIsClient: Bool) {
        let h = SctpPairHarness(seed: 3, aIsClient: aIsClient)
        #expect(h.connect())
        #expect(h.events["A"]!.filter { $0 == .connected }.count == 1)
        #expect(h.events["B"]!.filter { $0 == .connected }.count == 1)
    }

    @Test func oneSideStartingAloneConnects() {
        let h = SctpPairHarness(seed: 4)
        h.apply(h.a.start(now: h.now), fromA: true)
        #expect(h.run(for: .seconds(5)) { h.a.isConnected && h.b.isConnected })
    }

    @Test func handshakeSurvivesHeavyLoss() {
        let h = SctpPairHarness(seed: 5)
        h.link.loss = 0.4
        #expect(h.connect())
    }

    @Test func aChannelOpensOnTheOtherSideWithItsLabelAndCarriesTextBothWays() throws {
        let h = SctpPairHarness(seed: 6)
        #expect(h.connect())
        let (id, out) = try h.a.open(label: "undefined", now: h.now)
        h.apply(out, fromA: true)
        #expect(id % 2 == 0)
        h.apply(try h.a.send(.text(Array("héllo 👋 你好".utf8)), on: id, now: h.now), fromA: true)
        h.run(for: .seconds(1))
        #expect(h.opened("B").map(\.1) == ["undefined"])
        #expect(h.messages("B").map(\.1) == [.text(Array("héllo 👋 你好".utf8))])
        h.apply(try h.b.send(.text([]), on: id, now: h.now), fromA: false)
        h.apply(try h.b.send(.binary([1, 2]), on: id, now: h.now), fromA: false)
        h.run(for: .seconds(1))
        #expect(h.messages("A").map(\.1) == [.text([]), .binary([1, 2])])
    }

    @Test func channelsOpenedBeforeTheAssociationAreDeliveredOnceItIsUp() throws {
        let h = SctpPairHarness(seed: 7)
        let (id, out) = try h.a.open(label: "early", now: h.now)
        h.apply(out, fromA: true)
        h.apply(try h.a.send(.text([65]), on: id, now: h.now), fromA: true)
        h.start()
        h.run(for: .seconds(2))
        #expect(h.opened("B").map(\.1) == ["early"])
        #expect(h.messages("B").map(\.1) == [.text([65])])
    }

    /// Large messages are cut into DATA chunks and put back together, in order, through loss and reordering.
    @Test(arguments: [0.0, 0.05])
    func largeMessagesArriveWholeAndInOrder(loss: Double) throws {
        let h = SctpPairHarness(seed: 8) { $0.remoteMaxMessageSize = 0 }
        #expect(h.connect())
        h.link.loss = loss
        let (id, out) = try h.a.open(label: "f", now: h.now)
        h.apply(out, fromA: true)
        var sent: [[UInt8]] = []
        for i in 0..<20 {
            let m = (0..<(1000 + i * 6000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
            sent.append(m)
            h.apply(try h.a.send(.binary(m), on: id, now: h.now), fromA: true)
        }
        #expect(h.run(for: .seconds(60)) { h.messages("B").count == 20 })
        #expect(h.messages("B").map(\.1) == sent.map { .binary($0) })
        #expect(h.warnings("B").isEmpty)
    }

    /// 10,000 messages of 1 KB from one side through 2 % random loss: complete, in order, no duplicates.
    @Test func tenThousandMessagesThroughTwoPercentLoss() throws {
        let h = SctpPairHarness(seed: 9)
        #expect(h.connect())
        h.link.loss = 0.02
        h.link.bytesPerSecond = 2_000_000
        let (id, out) = try h.a.open(label: "chat", now: h.now)
        h.apply(out, fromA: true)
        var next = 0
        func refill() throws {
            while next < 10_000 && h.a.bufferedAmount(id) < 256 * 1024 {
                var m = Array(String(format: "%05d ", next).utf8)
                m += [UInt8](repeating: UInt8(65 + next % 26), count: 1024 - m.count)
                h.apply(try h.a.send(.text(m), on: id, now: h.now), fromA: true)
                next += 1
            }
        }
        try refill()
        var rounds = 0
        while h.messages("B").count < 10_000 && rounds < 2000 {
            h.run(for: .milliseconds(100))
            try refill()
            rounds += 1
        }
        let got = h.messages("B")
        #expect(got.count == 10_000)
        let numbers = got.compactMap { m -> Int? in
            guard case .text(let b) = m.1 else { return nil }
            return Int(String(decoding: b.prefix(5), as: UTF8.self))
        }
        #expect(numbers == Array(0..<10_000))
    }

    @Test func closingAChannelResetsItsStreamAndTheOtherSideSeesItClose() throws {
        let h = SctpPairHarness(seed: 10)
        #expect(h.connect())
        let (id, out) = try h.a.open(label: "x", now: h.now)
        h.apply(out, fromA: true)
        h.apply(try h.a.send(.text([1]), on: id, now: h.now), fromA: true)
        h.run(for: .seconds(1))
        h.apply(h.a.close(id, now: h.now), fromA: true)
        h.run(for: .seconds(2))
        #expect(h.closed("A") == [id])
        #expect(h.closed("B") == [id])
        #expect(h.a.openChannels.isEmpty && h.b.openChannels.isEmpty)
        // The stream can be opened again, its SSNs starting from 0.
        let (again, out2) = try h.a.open(label: "y", now: h.now)
        h.apply(out2, fromA: true)
        h.apply(try h.a.send(.text([2]), on: again, now: h.now), fromA: true)
        h.run(for: .seconds(1))
        #expect(h.messages("B").map(\.1) == [.text([1]), .text([2])])
    }

    @Test func shutdownEndsBothSides() throws {
        let h = SctpPairHarness(seed: 11)
        #expect(h.connect())
        h.apply(h.a.shutdown(now: h.now), fromA: true)
        h.run(for: .seconds(2))
        #expect(h.events["A"]!.contains(.ended(reason: "shut down")))
        #expect(h.events["B"]!.contains(.ended(reason: "shut down")))
    }

    @Test func aSilentPeerEndsTheAssociationAfterTheRetransmissionLimit() throws {
        let h = SctpPairHarness(seed: 12)
        #expect(h.connect())
        let (id, out) = try h.a.open(label: "x", now: h.now)
        h.apply(out, fromA: true)
        h.link.loss = 1
        h.run(for: .seconds(120))
        #expect(h.events["A"]!.contains { if case .ended = $0 { true } else { false } })
        _ = id
    }

    /// The receive window bounds what a peer can make us hold: a message far above the limit is discarded and
    /// acknowledged, and the channel goes on.
    @Test func anOversizedMessageIsDiscardedAndTheChannelGoesOn() throws {
        let h = SctpPairHarness(seed: 13) {
            $0.sctp.maxIncomingMessage = 64 * 1024
            $0.remoteMaxMessageSize = 0
        }
        #expect(h.connect())
        let (id, out) = try h.a.open(label: "x", now: h.now)
        h.apply(out, fromA: true)
        h.apply(try h.a.send(.binary([UInt8](repeating: 7, count: 3 << 20)), on: id, now: h.now), fromA: true)
        h.apply(try h.a.send(.text([9]), on: id, now: h.now), fromA: true)
        #expect(h.run(for: .seconds(60)) { h.messages("B").count == 1 })
        #expect(h.messages("B").map(\.1) == [.text([9])])
        #expect(h.warnings("B").contains { $0.contains("discarded") })
    }

    /// What `send` accepts and the peer has not acknowledged is bounded (`maxQueuedBytes`): past it `send` refuses,
    /// and once the peer takes the data the channel accepts again.
    @Test func queuedOutgoingBytesAreBounded() throws {
        let h = SctpPairHarness(seed: 15) {
            $0.sctp.maxQueuedBytes = 100_000
            $0.remoteMaxMessageSize = 0
        }
        #expect(h.connect())
        let (id, out) = try h.a.open(label: "x", now: h.now)
        h.apply(out, fromA: true)
        var accepted = 0
        var refused: DataChannels.ChannelError?
        while refused == nil && accepted < 1000 {
            do {
                h.apply(try h.a.send(.binary([UInt8](repeating: 1, count: 10_000)), on: id, now: h.now), fromA: true)
                accepted += 1
            } catch { refused = error }
        }
        #expect(accepted <= 10)
        #expect(refused.map { "\($0)".contains("queued") } == true)
        #expect(h.run(for: .seconds(10)) { h.messages("B").count == accepted })
        h.apply(try h.a.send(.text([1]), on: id, now: h.now), fromA: true)
        #expect(h.run(for: .seconds(2)) { h.messages("B").count == accepted + 1 })
    }

    /// A peer that overruns our window while one chunk is missing: the window fills behind the hole, and the missing
    /// chunk must still be taken when it comes again, or the transfer stalls for ever (found with aiortc).
    @Test func theMissingChunkIsTakenEvenWhenTheWindowIsFull() {
        var buffer = SctpReceiveBuffer(peerInitialTSN: 100, window: 10_000, maxMessage: 1 << 20, streamCount: 16)
        var delivered: [SctpReceiveBuffer.Message] = []
        var warnings: [String] = []
        func chunk(_ tsn: UInt32) -> SctpDataChunk {
            SctpDataChunk(tsn: tsn, stream: 0, ssn: UInt16(tsn - 100), ppid: 51, unordered: false, beginning: true,
                          ending: true, payload: [UInt8](repeating: UInt8(tsn & 0xFF), count: 1000)[...])
        }
        var refused = 0
        for tsn in UInt32(101)...130 {
            if case .dropped = buffer.receive(chunk(tsn), delivered: &delivered, warnings: &warnings) { refused += 1 }
        }
        #expect(refused > 0 && delivered.isEmpty)
        #expect(buffer.receive(chunk(100), delivered: &delivered, warnings: &warnings) == .new)
        #expect(delivered.map(\.payload.first) == (100...(130 - UInt32(refused))).map { UInt8($0 & 0xFF) })
        #expect(buffer.heldBytes == 0)
    }

    @Test func sendsAboveThePeersMaxMessageSizeAreRefused() throws {
        let h = SctpPairHarness(seed: 14) { $0.remoteMaxMessageSize = 1000 }
        #expect(h.connect())
        let (id, out) = try h.a.open(label: "x", now: h.now)
        h.apply(out, fromA: true)
        #expect(throws: DataChannels.ChannelError.tooLarge(1001, limit: 1000)) {
            try h.a.send(.binary([UInt8](repeating: 0, count: 1001)), on: id, now: h.now)
        }
    }
}
