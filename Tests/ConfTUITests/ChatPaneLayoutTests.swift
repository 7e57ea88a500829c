import Testing
@testable import ConfTUI
import RoomModel

/// Where the chat pane goes, its rows and its scrolling (pure parts of the screen).

private func log(_ texts: [String], from name: String = "Ada") -> [ChatEntry] {
    var room = Room(roomName: "r", localName: "Sam")
    room.apply(.joined(you: ParticipantID("me"), peers: [ParticipantID("a1")]))
    room.apply(.nameChanged(ParticipantID("a1"), name))
    for (i, t) in texts.enumerated() { room.apply(.chatReceived(ParticipantID("a1"), text: t, at: Double(i))) }
    return room.chat.entries
}

@Test func widePanesGoRightNarrowOnesAtTheBottomAndTheGridGetsTheRest() {
    let wide = ChatPaneLayout.split(CellRect(x: 0, y: 0, width: 120, height: 39))
    #expect(wide.pane == CellRect(x: 80, y: 0, width: 40, height: 39))
    #expect(wide.grid == CellRect(x: 0, y: 0, width: 80, height: 39))
    let narrow = ChatPaneLayout.split(CellRect(x: 0, y: 0, width: 80, height: 23))
    #expect(narrow.pane == CellRect(x: 0, y: 16, width: 80, height: 7))
    #expect(narrow.grid == CellRect(x: 0, y: 0, width: 80, height: 16))
    #expect(ChatPaneLayout.split(CellRect(x: 0, y: 0, width: 100, height: 30)).pane.width == ChatPaneLayout.minColumnWidth + 3)
}

@Test func rowsAreNewestAtTheBottomWrappedAndNamed() {
    let entries = log(["first", "a second message that wraps", "line one\nline two"])
    let rows = ChatPaneLayout.rows(entries, anchor: nil, width: 20, height: 4, time: { _ in "10:00" })
    #expect(rows.count == 4)
    #expect(rows.last?.text == "  line two")
    #expect(rows.first(where: { $0.text.hasPrefix("10:00 Ada: line") })?.name == "Ada")
    #expect(rows.allSatisfy { DisplayWidth.of($0.text) <= 20 })
    #expect(!rows.contains { $0.text.contains("first") })
}

@Test func scrollingBackAnchorsTheViewAndCountsWhatIsBelow() {
    let entries = log((1...12).map { "m\($0)" })
    let back = ChatPaneLayout.scrolled(entries, anchor: nil, back: true, step: 5)
    #expect(back == entries[6].sequence)
    #expect(ChatPaneLayout.newerCount(entries, anchor: back) == 5)
    let rows = ChatPaneLayout.rows(entries, anchor: back, width: 30, height: 3, time: { _ in "10:00" })
    #expect(rows.last?.text == "10:00 Ada: m7")
    #expect(ChatPaneLayout.scrolled(entries, anchor: back, back: false, step: 5) == nil)
    #expect(ChatPaneLayout.scrolled([], anchor: nil, back: true, step: 5) == nil)
}
