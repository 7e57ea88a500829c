/// One entry of the room's chat: a message (from someone, or from you) or a notice from the app itself (a file
/// offered, a message that cannot be sent). The sender's name is the one shown when it arrived, so a later rename
/// does not rewrite what was said.
public struct ChatEntry: Sendable, Equatable, Identifiable {
    public enum Kind: Sendable, Equatable { case message, notice }

    /// Increases by one per entry for the whole session: the scroll position survives the oldest entries going.
    public let sequence: Int
    public var id: Int { sequence }
    /// Nil for a notice.
    public let sender: ParticipantID?
    public let senderName: String
    public let isLocal: Bool
    /// The text, cleaned (`ChatLog.clean`), as lines: a newline in a message starts a new line of the same entry.
    public let lines: [String]
    /// Wall-clock seconds (the caller's clock) when it arrived or was sent.
    public let at: Double
    public let kind: Kind
}

/// The room's chat: at most `maxEntries` entries, oldest dropped first, and how many messages from others arrived
/// while the pane was hidden. The room holds whether the pane is shown so the unread count is one reducer's result
/// (tested without a screen), not a second counter the screen keeps in step.
public struct ChatLog: Sendable, Equatable {
    public static let maxEntries = 500
    public static let maxCharacters = 2_000
    /// A bound on the work done on one incoming text, before any cleaning (a grapheme cluster may hold many scalars).
    static let maxScalars = 16_000

    public private(set) var entries: [ChatEntry] = []
    public private(set) var unread = 0
    public private(set) var isVisible = false
    private var nextSequence = 1

    public init() {}

    /// Appends an entry unless its text cleans to nothing; returns whether it did.
    mutating func append(sender: ParticipantID?, name: String, isLocal: Bool, text: String, at: Double,
                         kind: ChatEntry.Kind) -> Bool {
        let lines = ChatLog.clean(text)
        guard !lines.isEmpty else { return false }
        entries.append(ChatEntry(sequence: nextSequence, sender: sender, senderName: name, isLocal: isLocal,
                                 lines: lines, at: at.isFinite ? at : 0, kind: kind))
        nextSequence += 1
        if entries.count > ChatLog.maxEntries { entries.removeFirst(entries.count - ChatLog.maxEntries) }
        if kind == .message && !isLocal && !isVisible { unread = min(unread + 1, ChatLog.maxEntries) }
        return true
    }

    mutating func setVisible(_ visible: Bool) -> Bool {
        guard visible != isVisible else { return false }
        isVisible = visible
        if visible { unread = 0 }
        return true
    }

    /// Text from other people's clients made safe like names (`SafeText`), but as lines: split at newlines (CR, LF,
    /// CRLF, U+2028/2029 ...), each line stripped of control and format characters, tabs made spaces, trailing spaces
    /// and blank lines at both ends dropped; at most `maxCharacters` characters in all, a longer text cut with "…".
    public static func clean(_ raw: String) -> [String] {
        let bounded = raw.unicodeScalars.count > maxScalars
            ? String(String.UnicodeScalarView(raw.unicodeScalars.prefix(maxScalars))) : raw
        var lines: [String] = []
        var budget = maxCharacters
        var cut = false
        for rawLine in bounded.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if budget <= 0 { cut = true; break }
            let line = SafeText.stripped(String(rawLine).replacingTabs)
            var kept = String(line.prefix(budget))
            if kept.count < line.count { cut = true }
            while kept.last?.isWhitespace == true { kept.removeLast() }
            budget -= max(1, kept.count)
            lines.append(kept)
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        if cut && !lines.isEmpty { lines[lines.count - 1] += "…" }
        return lines
    }
}

extension String {
    fileprivate var replacingTabs: String {
        contains("\t") ? String(map { $0 == "\t" ? " " : $0 }) : self
    }
}
