import Testing
@testable import Signaling

/// Frame codec tables: the RFC 6455 §5.7 examples, then one row per rule that fails a connection.
@Suite struct WebSocketFrameParserTests {
    static let helloMasked: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
    static let key: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xfa, 0x21, 0x3d)

    static func parseAll(_ bytes: [UInt8], role: WebSocketFrameParser.Role, max: Int = 1 << 20,
                         byteByByte: Bool = false) throws(WebSocketProtocolError) -> [WebSocketMessage] {
        var parser = WebSocketFrameParser(role: role, maxMessageSize: max)
        var out: [WebSocketMessage] = []
        if byteByByte {
            for b in bytes {
                parser.feed([b])
                while let m = try parser.next() { out.append(m) }
            }
        } else {
            parser.feed(bytes)
            while let m = try parser.next() { out.append(m) }
        }
        return out
    }

    static func failure(_ bytes: [UInt8], role: WebSocketFrameParser.Role = .server, max: Int = 1 << 20) -> WebSocketCloseCode? {
        do {
            _ = try parseAll(bytes, role: role, max: max)
            return nil
        } catch {
            return error.code
        }
    }

    /// §5.7 examples, each parsed whole and byte by byte.
    @Test(arguments: [false, true])
    func rfcSection57Examples(byteByByte: Bool) throws {
        // A single-frame unmasked text message
        #expect(try Self.parseAll([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], role: .client, byteByByte: byteByByte) == [.text("Hello")])
        // A single-frame masked text message
        #expect(try Self.parseAll(Self.helloMasked, role: .server, byteByByte: byteByByte) == [.text("Hello")])
        // A fragmented unmasked text message
        #expect(try Self.parseAll([0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f], role: .client, byteByByte: byteByByte) == [.text("Hello")])
        // Unmasked Ping request and masked Ping response (pong)
        #expect(try Self.parseAll([0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], role: .client, byteByByte: byteByByte) == [.ping(Array("Hello".utf8))])
        #expect(try Self.parseAll([0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58], role: .server, byteByByte: byteByByte) == [.pong(Array("Hello".utf8))])
        // 256 bytes binary message in a single unmasked frame (16-bit length)
        let b256 = (0..<256).map { UInt8($0 & 0xFF) }
        #expect(try Self.parseAll([0x82, 0x7E, 0x01, 0x00] + b256, role: .client, byteByByte: byteByByte) == [.binary(b256)])
        // 64 KiB binary message in a single unmasked frame (64-bit length)
        let b64k = (0..<65536).map { UInt8($0 % 251) }
        #expect(try Self.parseAll([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + b64k, role: .client) == [.binary(b64k)])
    }

    @Test func writerProducesTheRFCBytes() {
        #expect(WebSocketFrameWriter.frame(.text, payload: Array("Hello".utf8)) == [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        #expect(WebSocketFrameWriter.frame(.text, payload: Array("Hello".utf8), maskKey: Self.key) == Self.helloMasked)
        #expect(WebSocketFrameWriter.frame(.text, payload: Array("Hel".utf8), fin: false) == [0x01, 0x03, 0x48, 0x65, 0x6c])
        #expect(WebSocketFrameWriter.frame(.continuation, payload: Array("lo".utf8)) == [0x80, 0x02, 0x6c, 0x6f])
        #expect(Array(WebSocketFrameWriter.frame(.binary, payload: [UInt8](repeating: 7, count: 256)).prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(Array(WebSocketFrameWriter.frame(.binary, payload: [UInt8](repeating: 7, count: 65536)).prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
        // Length boundaries use the minimal encoding (§5.2).
        #expect(WebSocketFrameWriter.frame(.binary, payload: [UInt8](repeating: 0, count: 125))[1] == 125)
        #expect(WebSocketFrameWriter.frame(.binary, payload: [UInt8](repeating: 0, count: 126))[1] == 126)
        #expect(WebSocketFrameWriter.frame(.binary, payload: [UInt8](repeating: 0, count: 65535))[1] == 126)
        #expect(WebSocketFrameWriter.frame(.binary, payload: [UInt8](repeating: 0, count: 65536))[1] == 127)
    }

    @Test func writerAndParserRoundTripMaskedLargeMessage() throws {
        let payload = (0..<200_000).map { UInt8(($0 * 7) & 0xFF) }
        let frame = WebSocketFrameWriter.frame(.binary, payload: payload, maskKey: WebSocketFrameWriter.randomMaskKey())
        #expect(try Self.parseAll(frame, role: .server) == [.binary(payload)])
    }

    @Test func controlFramesInterleaveWithFragments() throws {
        // §5.4: "Control frames MAY be injected in the middle of a fragmented message."
        let bytes = WebSocketFrameWriter.frame(.text, payload: Array("Hel".utf8), fin: false, maskKey: Self.key)
            + WebSocketFrameWriter.frame(.ping, payload: [1, 2], maskKey: Self.key)
            + WebSocketFrameWriter.frame(.continuation, payload: Array("l".utf8), fin: false, maskKey: Self.key)
            + WebSocketFrameWriter.frame(.pong, payload: [], maskKey: Self.key)
            + WebSocketFrameWriter.frame(.continuation, payload: Array("o".utf8), maskKey: Self.key)
        #expect(try Self.parseAll(bytes, role: .server) == [.ping([1, 2]), .pong([]), .text("Hello")])
    }

    @Test func utf8SplitAcrossFragmentsIsValid() throws {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]  // "€"
        let bytes = WebSocketFrameWriter.frame(.text, payload: [euro[0]], fin: false)
            + WebSocketFrameWriter.frame(.continuation, payload: [euro[1], euro[2]])
        #expect(try Self.parseAll(bytes, role: .client) == [.text("€")])
    }

    @Test func closeFramesCarryCodeAndReason() throws {
        #expect(try Self.parseAll(WebSocketFrameWriter.close(.normal, reason: "bye"), role: .client) == [.close(code: .normal, reason: "bye")])
        #expect(try Self.parseAll(WebSocketFrameWriter.close(WebSocketCloseCode(rawValue: 4000), maskKey: Self.key), role: .server)
            == [.close(code: WebSocketCloseCode(rawValue: 4000), reason: "")])
        // §5.5.1: a close without a body reports 1005, and writing 1005 produces an empty body.
        #expect(try Self.parseAll([0x88, 0x00], role: .client) == [.close(code: .noStatus, reason: "")])
        #expect(WebSocketFrameWriter.close(.noStatus) == [0x88, 0x00])
        // The reason is cut on a UTF-8 boundary to fit 125 bytes.
        let long = WebSocketFrameWriter.close(.normal, reason: String(repeating: "é", count: 100))
        #expect(long[1] <= 125)
        #expect(try Self.parseAll(long, role: .client).count == 1)
    }

    struct FailureCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let role: WebSocketFrameParser.Role
        let max: Int
        let code: UInt16
        var testDescription: String { name }
    }

    static let k = key
    static let failureCases: [FailureCase] = [
        FailureCase(name: "unmasked client frame (§5.1)", bytes: [0x81, 0x02, 0x68, 0x69], role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "masked server frame (§5.1)", bytes: WebSocketFrameWriter.frame(.text, payload: [0x68], maskKey: k), role: .client, max: 1 << 20, code: 1002),
        FailureCase(name: "RSV1 without extension (§5.2)", bytes: [0xC1, 0x80, 0, 0, 0, 0], role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "RSV3 without extension (§5.2)", bytes: [0x91, 0x80, 0, 0, 0, 0], role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "reserved data opcode 0x3", bytes: [0x83, 0x80, 0, 0, 0, 0], role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "reserved control opcode 0xB", bytes: [0x8B, 0x80, 0, 0, 0, 0], role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "control frame over 125 bytes (§5.5)", bytes: [0x89, 0xFE, 0x00, 0x7E, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 126), role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "fragmented ping (§5.5)", bytes: [0x09, 0x80, 0, 0, 0, 0], role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "continuation without a start (§5.4)", bytes: WebSocketFrameWriter.frame(.continuation, payload: [0x61], maskKey: k), role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "new message inside a fragmented one (§5.4)",
                    bytes: WebSocketFrameWriter.frame(.text, payload: [0x61], fin: false, maskKey: k) + WebSocketFrameWriter.frame(.text, payload: [0x62], maskKey: k),
                    role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "64-bit length with the top bit set (§5.2)", bytes: [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1], role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "invalid UTF-8 text (§8.1)", bytes: WebSocketFrameWriter.frame(.text, payload: [0xC3, 0x28], maskKey: k), role: .server, max: 1 << 20, code: 1007),
        FailureCase(name: "UTF-16 surrogate encoded in UTF-8", bytes: WebSocketFrameWriter.frame(.text, payload: [0xED, 0xA0, 0x80], maskKey: k), role: .server, max: 1 << 20, code: 1007),
        FailureCase(name: "invalid UTF-8 across fragments",
                    bytes: WebSocketFrameWriter.frame(.text, payload: [0xE2, 0x82], fin: false, maskKey: k) + WebSocketFrameWriter.frame(.continuation, payload: [0x28], maskKey: k),
                    role: .server, max: 1 << 20, code: 1007),
        FailureCase(name: "declared length over the cap, header only (§10.4)", bytes: [0x82, 0xFE, 0x04, 0x01], role: .server, max: 1024, code: 1009),
        FailureCase(name: "64-bit declared length over the cap", bytes: [0x82, 0xFF, 0, 0, 0, 1, 0, 0, 0, 0], role: .server, max: 1 << 20, code: 1009),
        FailureCase(name: "fragments summing over the cap",
                    bytes: WebSocketFrameWriter.frame(.binary, payload: [UInt8](repeating: 1, count: 600), fin: false, maskKey: k)
                        + WebSocketFrameWriter.frame(.continuation, payload: [UInt8](repeating: 1, count: 600), maskKey: k),
                    role: .server, max: 1024, code: 1009),
        FailureCase(name: "close with a 1-byte body (§5.5.1)", bytes: [0x88, 0x81, 0, 0, 0, 0, 0x03], role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "close code 1005 on the wire (§7.4.1)", bytes: WebSocketFrameWriter.frame(.close, payload: [0x03, 0xED], maskKey: k), role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "close code 999", bytes: WebSocketFrameWriter.frame(.close, payload: [0x03, 0xE7], maskKey: k), role: .server, max: 1 << 20, code: 1002),
        FailureCase(name: "close reason not UTF-8", bytes: WebSocketFrameWriter.frame(.close, payload: [0x03, 0xE8, 0xFF], maskKey: k), role: .server, max: 1 << 20, code: 1007),
    ]

    @Test(arguments: failureCases)
    func protocolViolationsFailWithTheRightCode(_ c: FailureCase) {
        #expect(Self.failure(c.bytes, role: c.role, max: c.max)?.rawValue == c.code)
    }

    @Test func oversizeIsDetectedBeforeThePayloadArrives() {
        // Only the 10-byte header of a 2 GiB frame: the parser must refuse without waiting for it.
        var parser = WebSocketFrameParser(role: .server, maxMessageSize: 1 << 20)
        parser.feed([0x82, 0xFF, 0, 0, 0, 0, 0x80, 0, 0, 0])
        #expect(throws: WebSocketProtocolError(.messageTooBig, "message larger than 1048576 bytes")) { try parser.next() }
    }

    @Test func incompleteInputYieldsNothing() throws {
        var parser = WebSocketFrameParser(role: .server)
        parser.feed(Self.helloMasked.dropLast())
        #expect(try parser.next() == nil)
        parser.feed([Self.helloMasked.last!])
        #expect(try parser.next() == .text("Hello"))
        #expect(try parser.next() == nil)
        #expect(parser.bufferedByteCount == 0)
    }
}
