import Testing
@testable import EngineTransport

/// A TURN server's TCP stream cut back into messages, however the bytes were split into reads.
@Suite struct TurnStreamFramerTests {
    static let stun: [UInt8] = try! StunMessage(type: .bindingRequest, transactionID: TransactionID(bytes: [UInt8](repeating: 3, count: 12))!,
                                                attributes: [.username("someone")]).encode(fingerprint: true)
    static let channel: [UInt8] = try! TurnChannelData(channel: 0x4001, payload: [1, 2, 3, 4, 5]).encode(padded: true)

    @Test func messagesComeOutWholeWhateverTheReadBoundaries() throws {
        let stream = Self.stun + Self.channel + Self.stun + Self.channel
        #expect(Self.channel.count == 12)   // 4 + 5 padded to 12 (RFC 8656 §12.5)
        for cut in 0...stream.count {
            for secondCut in [cut, min(stream.count, cut + 7)] {
                var framer = TurnStreamFramer()
                var out = try framer.push(Array(stream[..<cut]))
                out += try framer.push(Array(stream[cut..<secondCut]))
                out += try framer.push(Array(stream[secondCut...]))
                #expect(out == [Self.stun, Self.channel, Self.stun, Self.channel], "cut at \(cut), \(secondCut)")
                #expect(framer.buffered == 0)
            }
        }
    }

    @Test func aPaddedChannelDataFrameDecodesToItsPayload() throws {
        var framer = TurnStreamFramer()
        let frames = try framer.push(Self.channel)
        #expect(try TurnChannelData(decodingDatagram: frames[0]).payload == [1, 2, 3, 4, 5])
    }

    @Test(arguments: [Array("SSH-2.0-OpenSSH_9.2\r\n".utf8),
                      [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28, 0x00, 0x00],   // a TLS alert: STUN's first bits, no cookie
                      Array(Self.stun.prefix(2)) + [0x00, 0x05] + Array(Self.stun[4...])])   // length not a multiple of 4
    func aStreamThatIsNotTurnIsRefused(bytes: [UInt8]) {
        var framer = TurnStreamFramer()
        #expect(throws: EngineError.self) { try framer.push(bytes) }
        // After a refusal nothing of the old stream is kept.
        #expect(framer.buffered == 0)
    }

    @Test func theBufferHoldsAtMostOneLargestMessage() throws {
        var framer = TurnStreamFramer()
        // A STUN header announcing the largest length, then its body arriving slowly: held, never more.
        _ = try framer.push([0x00, 0x17, 0xFF, 0xFC, 0x21, 0x12, 0xA4, 0x42] + [UInt8](repeating: 0, count: 12))
        for _ in 0..<100 { _ = try framer.push([UInt8](repeating: 0, count: 600)) }
        #expect(framer.buffered <= TurnStreamFramer.maxMessage)
    }
}
