/// The words around a participant's video, laid out in terminal columns (`DisplayWidth`): the label row under a
/// tile ("◆ Ada · connected · muted") and the name a placeholder shows. Pure, so the screen only places them.
public enum TileLabel {
    /// The name as shown: "you" for an unnamed local participant, else the cleaned name or the short socketId.
    public static func name(of p: Participant) -> String { p.isLocal ? (p.name ?? "you") : p.displayName }

    /// "muted", "video off", both, or nothing.
    public static func flags(_ p: Participant) -> String {
        var f: [String] = []
        if p.audioMuted { f.append("muted") }
        if !p.videoOn { f.append("video off") }
        return f.joined(separator: " ")
    }

    /// The label row: speaking mark, name (with "(you)" and the source for the local participant), connection
    /// state for the others, flags; cut to `columns` columns between characters, with an ellipsis when cut.
    public static func text(for p: Participant, columns: Int) -> String {
        var text = (p.speaking ? "◆ " : "  ") + (p.isLocal ? (p.name.map { "\($0) (you)" } ?? "you") : p.displayName)
        if p.isLocal, let src = p.sourceName { text += " [\(src)]" }
        if !p.isLocal { text += " · \(p.connection.label)" }
        let f = flags(p)
        if !f.isEmpty { text += " · \(f)" }
        return DisplayWidth.fit(text, columns: columns)
    }
}
