import Foundation
import EngineTestSupport
import Testing
@testable import Signaling

/// The server's per-message path: every message costs time linear in its size whatever its shape,
/// and what is forwarded stays byte-identical to what the original server writes. Times are compared
/// as ratios against a same-size message in the same test (debug build, shared machine), never as
/// absolute figures.
@Suite(.timeLimit(.minutes(1))) struct HotPathTests {
    static let a = SocketID("aaaaaaaa-0000-4000-8000-000000000001")
    static let b = SocketID("bbbbbbbb-0000-4000-8000-000000000002")

    /// `n` distinct three-character keys.
    static func keys(_ n: Int) -> [String] {
        let alphabet: [Character] = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        return (0..<n).map { (i: Int) -> String in
            let first: Character = alphabet[i / 4096]
            let second: Character = alphabet[(i / 64) % 64]
            let third: Character = alphabet[i % 64]
            return String([first, second, third])
        }
    }

    /// The fastest of three runs, in seconds.
    static func time(_ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<3 {
            let start = MonotonicClock.now()
            body()
            best = min(best, MonotonicClock.now() - start)
        }
        return best
    }

    @Test func anObjectWith120000KeysCostsWhatAnArrayOfTheSameStringsCosts() throws {
        let keys = Self.keys(120_000)
        let object = Array(("{" + keys.map { #""\#($0)":0"# }.joined(separator: ",") + "}").utf8)
        // The same strings and values, with no keys to check for duplicates: the linear baseline.
        let array = Array(("[" + keys.map { #""\#($0)",0"# }.joined(separator: ",") + "]").utf8)
        #expect(object.count == array.count && object.count > 900_000)
        guard case .object(let members) = try JSONParser.parse(object) else {
            Issue.record("not an object")
            return
        }
        #expect(members.count == 120_000 && members.last?.0 == keys.last)
        let objectTime = Self.time { _ = try? JSONParser.parse(object) }
        let arrayTime = Self.time { _ = try? JSONParser.parse(array) }
        // Linear: a small constant apart (hashing each key). The old per-member scan over earlier
        // members was about 7 × 10⁹ string comparisons here, thousands of times the baseline.
        #expect(objectTime < 10 * arrayTime, "object \(objectTime) s vs array \(arrayTime) s")
        // Writing them back is linear too (what the server does with an SDP that is not canonical).
        let objectValue = try JSONParser.parse(object), arrayValue = try JSONParser.parse(array)
        let writeObject = Self.time { _ = JSONWriter.bytes(objectValue) }
        let writeArray = Self.time { _ = JSONWriter.bytes(arrayValue) }
        #expect(JSONWriter.bytes(objectValue) == object)
        #expect(writeObject < 10 * writeArray, "object \(writeObject) s vs array \(writeArray) s")
    }

    @Test func duplicateKeysInLargeObjectsStillKeepTheLastValueInTheFirstPosition() throws {
        let keys = Self.keys(50)
        let text = "{" + keys.map { #""\#($0)":1"# }.joined(separator: ",") + #","\#(keys[0])":2,"\#(keys[49])":3}"#
        let expected = "{" + keys.enumerated().map { i, k in #""\#(k)":\#(i == 0 ? 2 : i == 49 ? 3 : 1)"# }.joined(separator: ",") + "}"
        #expect(JSONWriter.string(try JSONParser.parse(Array(text.utf8))) == expected)
    }

    @Test func oneMebibyteOfOpeningBracketsIsRefusedFasterThanAStringOfTheSameSize() {
        let nested = [UInt8](repeating: UInt8(ascii: "["), count: 1 << 20)
        let string = [UInt8(ascii: "\"")] + [UInt8](repeating: UInt8(ascii: "a"), count: (1 << 20) - 2) + [UInt8(ascii: "\"")]
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(nested) }
        let nestedTime = Self.time { _ = try? JSONParser.parse(nested) }
        let stringTime = Self.time { _ = try? JSONParser.parse(string) }
        #expect(nestedTime < stringTime, "nested \(nestedTime) s vs string \(stringTime) s")
        // Through the room machine: one `_error`, nothing else.
        var rooms = SkyRTCRooms()
        _ = rooms.handle(.opened(Self.a))
        let out = rooms.handle(.message(Self.a, nested, isBinary: false)).filter { if case .log = $0 { false } else { true } }
        #expect(out == [.send(Self.a, Array(#"{"eventName":"_error","data":{"code":"bad_json","message":"not JSON: nesting deeper than 64 at byte 64"}}"#.utf8))])
    }

    @Test func escapedStringsCostAboutWhatPlainOnesCost() throws {
        let n = 200_000
        let plain = Array(("\"" + String(repeating: "abcdef", count: n) + "\"").utf8)
        let escaped = Array(("\"" + String(repeating: #"\n\"\u00e9"#, count: n / 2) + "\"").utf8)
        let plainTime = Self.time { _ = try? JSONParser.parse(plain) }
        let escapedTime = Self.time { _ = try? JSONParser.parse(escaped) }
        #expect(escapedTime < 20 * plainTime, "escaped \(escapedTime) s vs plain \(plainTime) s")
        let value = try JSONParser.parse(escaped)
        #expect(value.stringValue?.count == 3 * n / 2)
        // And back: JSON.stringify's escapes for `\n` and `"`, é as itself.
        #expect(JSONWriter.bytes(value) == Array(("\"" + String(repeating: "\\n\\\"é", count: n / 2) + "\"").utf8))
    }

    @Test func longNumbersAreRefusedAndOrdinaryOnesKept() throws {
        let long = Array(String(repeating: "9", count: 100_000).utf8)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(long) }
        #expect(try JSONParser.parse(Array("[123456789012345678901234567890,-0.5e-3]".utf8)) == .array([.number(1.2345678901234568e29), .number(-0.0005)]))
    }

    /// The SDP of a forwarded offer with every kind of escape an SDP or a hostile client can hold:
    /// what comes out is what JSON.stringify(JSON.parse(x)) gives, in both wire formats.
    static let escapedSDPIn = #"{"type":"offer","sdp":"v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=\"quoted\" \\ back\r\na=x:\/path\/\r\ni=caf\u00e9 café \u2028\u2029 \ud83d\ude00 😀 \u0001\u001f\t\b\f"}"#
    static let escapedSDPOut = "{\"type\":\"offer\",\"sdp\":\"v=0\\r\\no=- 1 2 IN IP4 127.0.0.1\\r\\ns=\\\"quoted\\\" \\\\ back\\r\\na=x:/path/\\r\\ni=café café \u{2028}\u{2029} 😀 😀 \\u0001\\u001f\\t\\b\\f\"}"

    @Test(arguments: [SkyRTCWireFormat.conftui, .original], [false, true])
    func forwardedOffersAndCandidatesAreByteIdentical(format: SkyRTCWireFormat, binary: Bool) {
        var rooms = SkyRTCRooms(format: format)
        for id in [Self.a, Self.b] {
            _ = rooms.handle(.opened(id))
            _ = rooms.handle(.message(id, Array(#"{"eventName":"__join","data":{"room":"r"}}"#.utf8), isBinary: false))
        }
        let offer = #"{"eventName":"__offer","data":{"socketId":"\#(Self.a)","sdp":\#(Self.escapedSDPIn)}}"#
        #expect(rooms.handle(.message(Self.b, Array(offer.utf8), isBinary: binary)) == [
            .send(Self.a, Array(#"{"eventName":"_offer","data":{"sdp":\#(Self.escapedSDPOut),"socketId":"\#(Self.b)"}}"#.utf8)),
        ])
        let candidate = #"{"eventName":"__ice_candidate","data":{"id":"a\/0","label":0,"candidate":"candidate:1 1 udp 9 192.0.2.1 9 typ host \u00e9\"\\","socketId":"\#(Self.b)"}}"#
        let line = #"candidate:1 1 udp 9 192.0.2.1 9 typ host é\"\\"#
        let expected = format == .conftui
            ? #"{"eventName":"_ice_candidate","data":{"id":"a/0","label":0,"candidate":"\#(line)","socketId":"\#(Self.a)","sdpMLineIndex":0,"sdpMid":"a/0"}}"#
            : #"{"eventName":"_ice_candidate","data":{"label":0,"candidate":"\#(line)","socketId":"\#(Self.a)"}}"#
        #expect(rooms.handle(.message(Self.a, Array(candidate.utf8), isBinary: binary)) == [.send(Self.b, Array(expected.utf8))])
    }

    @Test func aBinaryOfferIsForwardedAsTextOnTheWire() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let a = try SkyRTCClient(url: server.webSocketURL)
        let b = try SkyRTCClient(url: server.webSocketURL)
        defer { a.close(); b.close() }
        let pa = try a.join(room: "r").peers
        let pb = try b.join(room: "r").peers
        _ = try a.nextText()  // _new_peer
        try b.webSocket.send(binary: Array(#"{"eventName":"__offer","data":{"socketId":"\#(pa.you)","sdp":\#(Self.escapedSDPIn)}}"#.utf8))
        #expect(try a.nextText() == #"{"eventName":"_offer","data":{"sdp":\#(Self.escapedSDPOut),"socketId":"\#(pb.you)"}}"#)
    }

    @Test func utf8ValidationAgreesWithTheStandardLibrary() {
        var rng = SplitMixRandom(seed: 7)
        // Every 1-, 2- and 3-byte sequence over the interesting bytes, then random mixtures.
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var cases: [[UInt8]] = []
        for x in interesting {
            cases.append([x])
            for y in interesting {
                cases.append([x, y])
                for z in interesting { cases.append([x, y, z]) }
            }
        }
        for _ in 0..<20_000 {
            let prefix = [UInt8](repeating: 0x61, count: Int(rng.next() % 20))
            cases.append(prefix + (0..<Int(rng.next() % 8)).map { _ in interesting[Int(rng.next() % UInt64(interesting.count))] })
        }
        cases.append(Array("v=0 é 😀 \u{2028} 中文".utf8))
        for bytes in cases {
            #expect(UTF8Validation.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }

    @Test func wordAtATimeMaskingMatchesTheDefinition() {
        let key: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)
        let k = [key.0, key.1, key.2, key.3]
        for length in 0..<40 {
            let original = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var masked = original
            WebSocketMasking.apply(key: key, to: &masked)
            // RFC 6455 §5.3: octet i XOR octet i mod 4 of the key.
            #expect(masked == original.enumerated().map { $1 ^ k[$0 % 4] })
            #expect(original.withUnsafeBytes { WebSocketMasking.unmasked($0, key: key) } == masked)
            WebSocketMasking.apply(key: key, to: &masked)
            #expect(masked == original)
        }
    }
}

/// The forwarding shortcut: text called canonical must be exactly what the writer gives back, and
/// the scanner must accept and refuse what the parser accepts and refuses.
@Suite struct CanonicalScannerTests {
    static func scan(_ text: String) -> Bool? {
        let bytes = Array(text.utf8)
        // Whitespace around the value, which the parser skips, is not canonical either.
        let space: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]
        let start = bytes.firstIndex { !space.contains($0) } ?? bytes.count
        let end = (bytes.lastIndex { !space.contains($0) } ?? -1) + 1
        guard start < end else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Bool? in
            var scanner = JSONCanonicalScanner(UnsafeBufferPointer(rebasing: buffer[..<end]), at: start, maxDepth: JSONParser.defaultMaxDepth)
            guard let canonical = try? scanner.scanValue(depth: 0), scanner.index == end else { return nil }
            return canonical && start == 0 && end == bytes.count
        }
    }

    @Test(arguments: [
        #"{"type":"offer","sdp":"v=0\r\n\"q\"\\ \u0001\u001f é \#u{2028}"}"#, "[1,-2,0,true,false,null,{}]", #"{"a":{"b":[]}}"#, "123456789012345",
    ])
    func whatTheWriterWritesIsCanonical(_ text: String) throws {
        #expect(Self.scan(text) == true)
        #expect(JSONWriter.string(try JSONParser.parse(Array(text.utf8))) == text)
    }

    @Test(arguments: [
        #"{"a": 1}"#, #"{"a":1 }"#, #""a\/b""#, #""\u00e9""#, #""\u2028""#, #""\u000A""#, #""\u001F""#, "1.5", "1e3", "-0",
        "1234567890123456", #"{"a":1,"a":2}"#, #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#, "[1 ,2]",
    ])
    func anythingElseIsNot(_ text: String) {
        #expect(Self.scan(text) == false)
    }

    static let replacements = Array(#" "\{}[],:0-1eE.ntu/b"#.utf8)
    static let insertions = Array(#" "\{}[]"#.utf8)

    @Test(arguments: [1, 2, 3] as [UInt64])
    func agreesWithTheParserOnMutatedMessages(seed: UInt64) throws {
        var rng = SplitMixRandom(seed: seed)
        let seeds = RandomInputTests.seeds.map { JSONWriter.bytes($0) } + [Array(HotPathTests.escapedSDPIn.utf8)]
        for _ in 0..<5_000 {
            var bytes = seeds[Int(rng.next() % UInt64(seeds.count))]
            for _ in 0..<Int(rng.next() % 4) where !bytes.isEmpty {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] = Self.replacements[Int(rng.next() % UInt64(Self.replacements.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(Self.insertions[Int(rng.next() % UInt64(Self.insertions.count))], at: at)
                }
            }
            guard String(validating: bytes, as: UTF8.self) != nil else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            let parsed = try? JSONParser.parse(bytes)
            let scanned = Self.scan(text)
            #expect((parsed == nil) == (scanned == nil), "\(text)")
            if let parsed, scanned == true {
                #expect(JSONWriter.bytes(parsed) == bytes, "\(text)")
            }
        }
    }
}
