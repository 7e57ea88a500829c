import Testing
@testable import Engine
@testable import EngineMedia
@testable import EngineRTP
@testable import EngineTransport

@Test func malformedErrorNamesTheParser() {
    #expect(EngineError.malformed(what: "STUN", reason: "short header").description == "malformed STUN: short header")
}
