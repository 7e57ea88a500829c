import Testing
@testable import EngineTransport

/// The TURN attributes (RFC 8656 §18) and ChannelData framing (§12.4, §12.5), and hostile server datagrams at a
/// live client: nothing traps, the bounds hold.
@Suite struct TurnWireFormatTests {
    let tid = TransactionID(bytes: [UInt8](repeating: 0xA5, count: 12))!

    @Test func turnAttributesRoundTrip() throws {
        let attributes: [StunAttribute] = [
            .requestedTransport(17), .lifetime(600), .channelNumber(0x4ABC),
            .xorPeerAddress(TransportAddress("203.0.113.7:6000")!),
            .xorPeerAddress(TransportAddress("[2001:db8::7]:6000")!),
            .xorRelayedAddress(TransportAddress("192.0.2.15:50000")!), .data([1, 2, 3, 4, 5]), .data([]),
        ]
        let bytes = try StunMessage(type: StunMessageType(method: .channelBind, stunClass: .request), transactionID: tid,
                                    attributes: attributes).encode(fingerprint: true)
        let decoded = try StunMessage(decoding: bytes)
        #expect(Array(decoded.attributes.dropLast()) == attributes)
        #expect(decoded.type.method == .channelBind)
    }

    @Test func turnAttributeLayoutsMatchTheRFC() throws {
        let bytes = try StunMessage(type: StunMessageType(method: .allocate, stunClass: .request), transactionID: tid,
                                    attributes: [.requestedTransport(17), .channelNumber(0x4001), .lifetime(3600)]).encode()
        // Allocate request type 0x0003; REQUESTED-TRANSPORT 0x0019 = 17 + 3 RFFU; CHANNEL-NUMBER 0x000C = number +
        // 2 RFFU; LIFETIME 0x000D = 32-bit seconds.
        #expect(Array(bytes[0..<2]) == [0x00, 0x03])
        #expect(Array(bytes[20...]) == [0x00, 0x19, 0x00, 0x04, 17, 0, 0, 0,
                                        0x00, 0x0C, 0x00, 0x04, 0x40, 0x01, 0, 0,
                                        0x00, 0x0D, 0x00, 0x04, 0, 0, 0x0E, 0x10])
        // Method/class interleaving of the TURN methods (RFC 8489 §5): success 0x0103, error 0x0113, Send
        // indication 0x0016, Data indication 0x0017.
        #expect(StunMessageType(method: .allocate, stunClass: .successResponse).wireValue == 0x0103)
        #expect(StunMessageType(method: .allocate, stunClass: .errorResponse).wireValue == 0x0113)
        #expect(StunMessageType(method: .send, stunClass: .indication).wireValue == 0x0016)
        #expect(StunMessageType(method: .data, stunClass: .indication).wireValue == 0x0017)
    }

    @Test func wrongLengthTurnAttributesAreRefused() {
        for (type, length) in [(0x000C, 3), (0x000D, 5), (0x0019, 2), (0x0012, 7), (0x0016, 19)] as [(UInt16, Int)] {
            var m: [UInt8] = [0x00, 0x03, 0, 0, 0x21, 0x12, 0xA4, 0x42] + tid.bytes
            m.appendBE(type)
            m.appendBE(UInt16(length))
            m += [UInt8](repeating: 1, count: length) + [UInt8](repeating: 0, count: (4 - length % 4) % 4)
            m.storeBE(UInt16(m.count - 20), at: 2)
            #expect(throws: EngineError.self) { try StunMessage(decoding: m) }
        }
    }

    @Test func channelDataFraming() throws {
        let message = TurnChannelData(channel: 0x4FFF, payload: [1, 2, 3, 4, 5, 6])
        #expect(try message.encode(padded: false) == [0x4F, 0xFF, 0x00, 0x06, 1, 2, 3, 4, 5, 6])
        #expect(try message.encode(padded: true) == [0x4F, 0xFF, 0x00, 0x06, 1, 2, 3, 4, 5, 6, 0, 0])
        #expect(try TurnChannelData(channel: 0x4000, payload: [1, 2, 3, 4]).encode(padded: true).count == 8)
        #expect(try TurnChannelData(decodingDatagram: message.encode(padded: true)) == message)
        #expect(try TurnChannelData(decodingDatagram: message.encode(padded: false)) == message)
        #expect(TurnChannelData.streamFrameLength([0x40, 0x00, 0x00, 0x05][...]) == 12)
        #expect(TurnChannelData.streamFrameLength([0x40, 0x00, 0x00, 0x08][...]) == 12)
        #expect(TurnChannelData.streamFrameLength([0x40, 0x00, 0x00][...]) == nil)
        #expect(throws: EngineError.self) { try TurnChannelData(channel: 0x3FFF, payload: []).encode(padded: false) }
        #expect(throws: EngineError.self) { try TurnChannelData(channel: 0x5000, payload: []).encode(padded: false) }
        #expect(throws: EngineError.self) {
            try TurnChannelData(channel: 0x4000, payload: [UInt8](repeating: 0, count: 65_536)).encode(padded: false)
        }
        #expect(TurnChannelData.looksLikeChannelData([0x40, 0, 0, 0]) && !TurnChannelData.looksLikeChannelData([0x50, 0, 0, 0]))
    }

    @Test func channelDataTruncatedAtEveryOffsetIsRefused() throws {
        let full = try TurnChannelData(channel: 0x4000, payload: [UInt8](1...9)).encode(padded: false)
        for cut in 0..<full.count {
            #expect(throws: EngineError.self) { try TurnChannelData(decodingDatagram: Array(full[0..<cut])) }
        }
    }

    /// Random, mutated and truncated server datagrams at an allocated, relaying client: no trap, no event it should
    /// not believe, bounded tables; then the real server still gets through.
    @Test func seededFuzzOfServerDatagrams() throws {
        let h = TurnClientHarness()
        try h.allocate()
        let peer = TransportAddress("203.0.113.7:6000")!
        h.feed(.send(to: peer, bytes: [1]))
        h.feed(.received(try h.server.success(h.lastRequest())))
        var captured: [[UInt8]] = [try h.server.dataIndication(from: peer, [1, 2, 3]), [0x40, 0x00, 0x00, 0x01, 9]]
        for request in h.sent.compactMap({ try? StunMessage(decoding: $0) }) where request.type.stunClass == .request {
            captured.append(try h.server.success(request, [.lifetime(600), .xorRelayedAddress(h.server.relayed)]))
            captured.append(try h.server.staleNonce(request, newNonce: "x"))
            captured.append(try h.server.error(request, code: 437, reason: "Allocation Mismatch"))
        }
        var rng = SplitMixRandom(seed: 91)
        for i in 0..<fuzzIterations(default: 20_000) {
            var bytes: [UInt8]
            switch i % 3 {
            case 0:
                bytes = rng.bytes(Int.random(in: 0...80, using: &rng))
                if !bytes.isEmpty { bytes[0] = rng.chance(0.5) ? bytes[0] & 0x03 : 0x40 | (bytes[0] & 0x1F) }
            case 1:
                bytes = captured.randomElement(using: &rng)!
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
                }
            default:
                let whole = captured.randomElement(using: &rng)!
                bytes = Array(whole.prefix(Int.random(in: 0..<whole.count, using: &rng)))
            }
            h.feed(.received(bytes))
        }
        #expect(h.client.state == .allocated, "forged answers need the transaction id and the key")
        #expect(h.client.permissionCount <= h.client.config.maxPermissions)
        #expect(h.events.allSatisfy {
            switch $0 {
            case .data(let from, _): from.ip == peer.ip
            default: true
            }
        })
    }
}
