import Foundation
import Testing
@testable import Signaling

@Suite struct DataURLDecodingTests {
    static func decodeBase64(_ pieces: [String]) throws(StreamingBase64Decoder.Failure) -> [UInt8] {
        var decoder = StreamingBase64Decoder()
        var out: [UInt8] = []
        for piece in pieces { try decoder.decode(piece.utf8, into: &out) }
        try decoder.finish(into: &out)
        return out
    }

    @Test func everySplitOfEveryLengthDecodes() throws {
        var random = SeededRandom(seed: 7)
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let text = Data(bytes).base64EncodedString()
            for cut in 0...text.count {
                let i = text.index(text.startIndex, offsetBy: cut)
                #expect(try Self.decodeBase64([String(text[..<i]), String(text[i...])]) == bytes)
            }
            #expect(try Self.decodeBase64(text.map { String($0) }) == bytes)
        }
    }

    @Test func unpaddedTailsDecode() throws {
        #expect(try Self.decodeBase64(["QQ"]) == [0x41])
        #expect(try Self.decodeBase64(["QUI"]) == [0x41, 0x42])
    }

    @Test(arguments: [
        (["QQ=A"], StreamingBase64Decoder.Failure.invalidCharacter(UInt8(ascii: "A"))),
        (["QQ==", "QQ=="], .invalidCharacter(UInt8(ascii: "Q"))),
        (["QUJD="], .invalidCharacter(UInt8(ascii: "="))),
        (["Q==="], .invalidCharacter(UInt8(ascii: "="))),
        (["=QQQ"], .invalidCharacter(UInt8(ascii: "="))),
        (["QU JD"], .invalidCharacter(UInt8(ascii: " "))),
        (["QU-D"], .invalidCharacter(UInt8(ascii: "-"))),
        (["QUJDQ"], .truncated),
        (["QQ="], .truncated),
    ])
    func invalidBase64IsRefused(_ pieces: [String], _ failure: StreamingBase64Decoder.Failure) {
        #expect(throws: failure) { try Self.decodeBase64(pieces) }
    }

    static func decodeURL(_ pieces: [String]) throws(DataURLStreamDecoder.Failure) -> [UInt8] {
        var decoder = DataURLStreamDecoder()
        var out: [UInt8] = []
        for piece in pieces { try decoder.decode(piece.utf8, into: &out) }
        try decoder.finish(into: &out)
        return out
    }

    @Test func headerMaySplitAnywhere() throws {
        let url = "data:image/png;base64,SGVsbG8sIHdvcmxkIQ=="
        for cut in 0...url.count {
            let i = url.index(url.startIndex, offsetBy: cut)
            #expect(try Self.decodeURL([String(url[..<i]), String(url[i...])]) == Array("Hello, world!".utf8))
        }
        #expect(try Self.decodeURL(url.map { String($0) }) == Array("Hello, world!".utf8))
        #expect(try Self.decodeURL(["DATA:;BASE64,QQ=="]) == [0x41])
        #expect(try Self.decodeURL(["data:"]) == [])
        #expect(try Self.decodeURL(["data:application/octet-stream;base64,"]) == [])
    }

    @Test(arguments: [
        ["http://x"], ["data:text/plain,hello"], ["data:text/plain;base64"], ["dat"], ["data:x;base64,Q"],
        ["data:" + String(repeating: "a", count: 400)], ["data:" + String(repeating: "a", count: 300) + ";base64,QQ=="],
    ])
    func badURLsAreRefused(_ pieces: [String]) {
        #expect(throws: DataURLStreamDecoder.Failure.self) { try Self.decodeURL(pieces) }
    }
}
