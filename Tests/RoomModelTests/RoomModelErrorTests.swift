import Testing
@testable import RoomModel

@Test func invalidArgumentErrorSaysWhy() {
    #expect(RoomModelError.invalidArgument("x").description == "invalid argument: x")
}
