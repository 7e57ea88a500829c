import Testing
@testable import RoomModel

/// The room's chat: names as shown when said, cleaning like names but keeping lines, the bounds, the unread count.

private func joinedRoom() -> Room {
    var room = Room(roomName: "r", localName: "Sam")
    room.apply(.joined(you: ParticipantID("me"), peers: [ParticipantID("a1")]))
    room.apply(.nameChanged(ParticipantID("a1"), "Ada"))
    return room
}

@Test func messagesKeepTheSenderNameTheTimeAndTheOrder() {
    var room = joinedRoom()
    #expect(room.apply(.chatReceived(ParticipantID("a1"), text: "hello", at: 100)) == .changed)
    #expect(room.apply(.local(.sentChat(text: "hi Ada", at: 101))) == .changed)
    room.apply(.nameChanged(ParticipantID("a1"), "Ada L."))
    let entries = room.chat.entries
    #expect(entries.map(\.senderName) == ["Ada", "Sam"])
    #expect(entries.map(\.lines) == [["hello"], ["hi Ada"]])
    #expect(entries.map(\.at) == [100, 101])
    #expect(entries.map(\.isLocal) == [false, true])
    #expect(entries[1].sequence == entries[0].sequence + 1)
}

@Test func unknownSendersAreShownByShortIDAndOwnEchoesIgnored() {
    var room = joinedRoom()
    #expect(room.apply(.chatReceived(ParticipantID("zzzzzzzzzzzz-late"), text: "hi", at: 1)) == .changed)
    #expect(room.chat.entries.last?.senderName == "zzzzzzzz")
    #expect(room.apply(.chatReceived(ParticipantID("me"), text: "echo", at: 2)) != .changed)
    #expect(room.chat.entries.count == 1)
}

@Test func textIsCleanedLikeNamesButKeepsSpacesAndSplitsLines() {
    #expect(ChatLog.clean("a \u{1b}[2Jb\u{202e}c  d") == ["a [2Jbc  d"])
    #expect(ChatLog.clean("one\ntwo\r\nthree\rfour\u{2028}five") == ["one", "two", "three", "four", "five"])
    #expect(ChatLog.clean("\n\n  \nx\t y   \n\n") == ["x  y"])
    #expect(ChatLog.clean("\u{07}\u{1b}\n \u{200b}").isEmpty)
    #expect(ChatLog.clean("e\u{301} 日本 👩‍💻") == ["e\u{301} 日本 👩‍💻"])
}

@Test func longTextIsCutWithAnEllipsis() {
    let lines = ChatLog.clean(String(repeating: "x", count: 5_000))
    #expect(lines.count == 1)
    #expect(lines[0].count == ChatLog.maxCharacters + 1)
    #expect(lines[0].hasSuffix("…"))
    let many = ChatLog.clean(String(repeating: "y\n", count: 5_000))
    #expect(many.count <= ChatLog.maxCharacters)
    #expect(many.last?.hasSuffix("…") == true)
}

@Test func emptyMessagesAreIgnored() {
    var room = joinedRoom()
    #expect(room.apply(.chatReceived(ParticipantID("a1"), text: " \n\u{1b}", at: 1)) != .changed)
    #expect(room.apply(.local(.sentChat(text: "", at: 1))) != .changed)
    #expect(room.chat.entries.isEmpty)
}

@Test func theLogKeepsTheNewestFiveHundred() {
    var room = joinedRoom()
    for i in 0..<(ChatLog.maxEntries + 20) {
        room.apply(.chatReceived(ParticipantID("a1"), text: "m\(i)", at: Double(i)))
    }
    #expect(room.chat.entries.count == ChatLog.maxEntries)
    #expect(room.chat.entries.first?.lines == ["m20"])
    #expect(room.chat.entries.last?.lines == ["m519"])
}

@Test func unreadCountsOthersMessagesWhileHidden() {
    var room = joinedRoom()
    room.apply(.chatReceived(ParticipantID("a1"), text: "1", at: 1))
    room.apply(.local(.sentChat(text: "mine", at: 2)))
    room.apply(.chatNotice("a notice", at: 3))
    room.apply(.chatReceived(ParticipantID("a1"), text: "2", at: 4))
    #expect(room.chat.unread == 2)
    #expect(room.apply(.local(.setChatVisible(true))) == .changed)
    #expect(room.chat.unread == 0)
    room.apply(.chatReceived(ParticipantID("a1"), text: "3", at: 5))
    #expect(room.chat.unread == 0)
    room.apply(.local(.setChatVisible(false)))
    room.apply(.chatReceived(ParticipantID("a1"), text: "4", at: 6))
    #expect(room.chat.unread == 1)
}

@Test func noticesAreDimLinesWithoutASender() {
    var room = joinedRoom()
    room.apply(.left)
    #expect(room.apply(.chatNotice("text chat is not available", at: 1)) == .changed)
    #expect(room.chat.entries.last?.kind == .notice)
    #expect(room.chat.entries.last?.sender == nil)
}

@Test func wrapBreaksAtSpacesAndNeverSplitsWideCharacters() {
    #expect(DisplayWidth.wrap("hello world again", columns: 11) == ["hello world", "again"])
    #expect(DisplayWidth.wrap("abcdefghij", columns: 4) == ["abcd", "efgh", "ij"])
    #expect(DisplayWidth.wrap("日本語です", columns: 5) == ["日本", "語で", "す"])
    #expect(DisplayWidth.wrap("", columns: 5) == [""])
    for row in DisplayWidth.wrap("a 日本 e\u{301}e\u{301} 👩‍💻 long words here", columns: 6) {
        #expect(DisplayWidth.of(row) <= 6)
    }
}
