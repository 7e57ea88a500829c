import Testing
@testable import ConfTUI

/// Without `--name` you appear under your login name, so the others never see a bare socketId.
@Suite struct LoginNameTests {
    @Test func givenNameWins() {
        #expect(LoginName.displayName("Sam", environment: ["USER": "tess"]) == "Sam")
    }

    @Test func withoutOneTheLoginNameIsUsed() {
        // The session's login name, USER or the password database: every test machine has one of them.
        let name = LoginName.displayName(nil, environment: ["USER": "tess"])
        #expect(name != nil && !(name ?? "").isEmpty)
    }
}
