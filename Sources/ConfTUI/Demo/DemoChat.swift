/// The simulated demo's chat: a line every `period` seconds from whoever's turn it is in `DemoTalk` (cycling through a
/// few things people type in a meeting), and an answer a second after each of your messages, now and then by name.
/// Pure: the caller passes the time.
struct DemoChat: Sendable, Equatable {
    static let firstAt = 4.0
    static let period = 12.0
    static let answerDelay = 1.0
    static let lines = [
        "Morning all, can everyone hear me?",
        "I've put the notes from last week in the shared doc.",
        "Quick one: are we still shipping the release on Thursday?",
        "The build is green again, thanks for the fix 🎉",
        "Can someone share the dashboard after this?",
        "I have a hard stop in ten minutes.",
    ]

    let seats: Int
    let localName: String

    /// The scripted line `n` (0, 1, 2, ...): when it is posted (seconds since the epoch), by which seat, and its text.
    func scripted(_ n: Int) -> (at: Double, seat: Int, text: String) {
        let at = DemoChat.firstAt + Double(n) * DemoChat.period
        let turn = Int(at / DemoTalk.turnSeconds)
        return (at, turn % max(1, seats), DemoChat.lines[n % DemoChat.lines.count])
    }

    /// Scripted lines due in (`from`, `to`], by their numbers.
    func due(after from: Double, upTo to: Double) -> Range<Int> {
        func count(_ t: Double) -> Int {
            t < DemoChat.firstAt ? 0 : Int(((t - DemoChat.firstAt) / DemoChat.period).rounded(.down)) + 1
        }
        let a = count(from), b = count(to)
        return a..<max(a, b)
    }

    /// The answer to your `k`th message (0, 1, ...): by seat `k % seats`, using your name every other time.
    func answer(_ k: Int) -> (seat: Int, text: String) {
        let replies = ["Got it, \(localName).", "+1", "Thanks, \(localName)!", "Agreed."]
        return (k % max(1, seats), replies[k % replies.count])
    }
}
