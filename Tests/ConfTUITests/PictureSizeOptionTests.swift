import Testing
@testable import ConfTUI

/// `--size WxH`, the encoded picture's size, and the errors a mistyped one gets.
@Suite struct PictureSizeOptionTests {
    func size(_ text: String?) throws -> (width: Int, height: Int)? {
        try CallOptionsParsing.pictureSize(ParsedArguments.parse(text.map { ["--size", $0] } ?? [], specs: CallOptionsParsing.specs))
    }

    func message(_ text: String) -> String {
        do { _ = try size(text); return "no error" } catch { return "\(error)" }
    }

    @Test func sizesAreTakenAsWidthByHeight() throws {
        #expect(try size(nil) == nil)
        #expect(try size("640x480").map { [$0.width, $0.height] } == [640, 480])
        #expect(try size("1280X720").map { [$0.width, $0.height] } == [1280, 720])
        #expect(try size("64x48").map { [$0.width, $0.height] } == [64, 48])
    }

    @Test func sizesOutOfRangeOddOrMalformedAreRefused() {
        for bad in ["1920x1080", "32x24", "640", "640x", "x480", "640x480x2", "-640x480", "big"] {
            #expect(message(bad).contains("WIDTHxHEIGHT"), "\(bad)")
        }
        #expect(message("641x480").contains("even"))
    }

    @Test func theCallOptionsCarryTheSize() throws {
        let args = try ParsedArguments.parse(["--size", "640x360"], specs: CallOptionsParsing.specs)
        let options = try CallOptionsParsing.callOptions(args, defaultCamera: "card", name: "Al")
        #expect(options.media.width == 640 && options.media.height == 360)
        let plain = try CallOptionsParsing.callOptions(ParsedArguments.parse([], specs: CallOptionsParsing.specs),
                                                        defaultCamera: "card", name: "Al")
        #expect(plain.media.width == 320 && plain.media.height == 240)
    }
}
