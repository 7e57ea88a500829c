import Testing
@testable import Signaling

@Test func systemErrorNamesTheCallAndTheReason() {
    let text = SignalingError.system(call: "bind", errno: 98).description
    #expect(text.hasPrefix("bind failed: "))
    #expect(text.contains("Address already in use"))
}
