import Testing
@testable import EngineTransport

@Test func malformedErrorNamesTheParser() {
    #expect(EngineError.malformed(what: "STUN", reason: "short header").description == "malformed STUN: short header")
}
