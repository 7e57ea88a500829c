import Testing
@testable import ConfTUI

/// While the chat's input is open every printable key is text; otherwise `t`, Enter and PgUp/PgDn drive the pane.

@Test func callKeysAreTextWhileTyping() {
    for c in ["m", "v", "c", "l", "q", "t", "i", "s", "?", "h", "y", "M", "Q", " ", "日", "é"] as [Character] {
        #expect(KeyBindings.action(for: .character(c), overlay: .none, typing: true) == .editChat(.insert(c)))
    }
}

@Test func enterSendsEscCancelsAndBackspaceEditsInEveryEncoding() {
    for enter in [Key.character("\n"), .character("\r"), .named(.enter)] {
        #expect(KeyBindings.action(for: enter, overlay: .none, typing: true) == .sendChat)
    }
    #expect(KeyBindings.action(for: .character("\u{1b}"), overlay: .none, typing: true) == .cancelChat)
    for backspace in [Key.character("\u{7f}"), .character("\u{08}"), .named(.backspace)] {
        #expect(KeyBindings.action(for: backspace, overlay: .none, typing: true) == .editChat(.backspace))
    }
    #expect(KeyBindings.action(for: .character("\u{17}"), overlay: .none, typing: true) == .editChat(.deleteWordBack))
    #expect(KeyBindings.action(for: .character("\u{15}"), overlay: .none, typing: true) == .editChat(.clearToStart))
    #expect(KeyBindings.action(for: .character("\u{01}"), overlay: .none, typing: true) == .editChat(.home))
    #expect(KeyBindings.action(for: .character("\u{05}"), overlay: .none, typing: true) == .editChat(.end))
    #expect(KeyBindings.action(for: .character("\u{07}"), overlay: .none, typing: true) == .none)
}

@Test func chatKeysWhenNotTyping() {
    #expect(KeyBindings.action(for: .character("t"), overlay: .none) == .toggleChat)
    #expect(KeyBindings.action(for: .character("\r"), overlay: .none) == .openChatInput)
    #expect(KeyBindings.action(for: .named(.enter), overlay: .none) == .openChatInput)
    #expect(KeyBindings.action(for: .named(.pageUp), overlay: .none) == .scrollChatBack)
    #expect(KeyBindings.action(for: .named(.pageDown), overlay: .none) == .scrollChatForward)
    #expect(KeyBindings.action(for: .character("m"), overlay: .none) == .toggleMute)
    // Over the leave confirmation Enter stays in the call.
    #expect(KeyBindings.action(for: .character("\r"), overlay: .confirmLeave) == .closeOverlay)
    #expect(KeyBindings.help.contains { $0.key == "t" } && KeyBindings.help.contains { $0.key == "Enter" })
}
