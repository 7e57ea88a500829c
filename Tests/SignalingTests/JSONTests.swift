import Testing
@testable import Signaling

@Suite struct JSONTests {
    static func roundTrip(_ text: String) throws -> String {
        JSONWriter.string(try JSONParser.parse(Array(text.utf8)))
    }

    @Test func keyOrderAndFormattingSurviveARoundTrip() throws {
        #expect(try Self.roundTrip(#"{"z":1,"a":[true,false,null],"m":{"y":"x","b":-2.5}}"#) == #"{"z":1,"a":[true,false,null],"m":{"y":"x","b":-2.5}}"#)
        // Pretty-printed input (the iOS client) comes out compact.
        #expect(try Self.roundTrip("{\n  \"eventName\" : \"__join\",\n  \"data\" : {\n    \"room\" : \"100\"\n  }\n}") == #"{"eventName":"__join","data":{"room":"100"}}"#)
    }

    @Test func slashIsNeverEscapedAndEscapesMatchJSONStringify() throws {
        #expect(try Self.roundTrip(#""a\/b""#) == #""a/b""#)
        #expect(JSONWriter.string(.string("v=0\r\no=- 1\t\"q\"\\ \u{01} é 😀")) == #""v=0\r\no=- 1\t\"q\"\\ \u0001 é 😀""#)
        #expect(try Self.roundTrip(#""\ud83d\ude00\u00e9""#) == "\"😀é\"")
    }

    @Test func numbersKeepTheirIntegerness() throws {
        #expect(try Self.roundTrip("[0,-7,12345678901,1.5,2.0,1e3]") == "[0,-7,12345678901,1.5,2,1000]")
        #expect(try JSONParser.parse(Array("3".utf8)).integerValue == 3)
        #expect(try JSONParser.parse(Array("3.5".utf8)).integerValue == nil)
    }

    @Test func duplicateKeysKeepTheLastValueInTheFirstPosition() throws {
        #expect(try Self.roundTrip(#"{"a":1,"b":2,"a":3}"#) == #"{"a":3,"b":2}"#)
    }

    @Test(arguments: ["", "{", "{\"a\"}", "[1,]", "01", "1.", "tru", "\"\u{01}\"", "\"\\x\"", "\"\\ud800\"", "{} x", "NaN", "'a'", "[1 2]"])
    func malformedInputIsRefused(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test func nestingDepthIsBounded() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(deep.utf8)) }
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect((try? JSONParser.parse(Array(ok.utf8))) != nil)
    }

    @Test func invalidUTF8InsideAStringIsRefused() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func truthinessFollowsJavaScript() {
        #expect(!JSONValue.string("").isTruthy && !JSONValue.integer(0).isTruthy && !JSONValue.null.isTruthy && !JSONValue.bool(false).isTruthy)
        #expect(JSONValue.string("0").isTruthy && JSONValue.object([]).isTruthy && JSONValue.array([]).isTruthy)
    }
}
