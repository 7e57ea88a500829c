/// The words around a participant's video, laid out in terminal columns (`DisplayWidth`): the label row under a
/// tile ("◆ Ada · connected", "  Grace · muted · connected", or "  Ada · 2 · connected" under her shared screen) and the name a placeholder
/// shows. Pure, so the screen only places them.
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

    /// The label row, in a fixed order so the eye finds each part in the same place on every tile: the speaking mark,
    /// the name ("(you)" for the local participant), "muted", the video ("video off"; the local participant's source
    /// when on), the connection state (the others'). Cut to `columns` from the right, between characters, with an
    /// ellipsis: the name and the flags outlast the connection state. The mark is never shown on a muted participant.
    public static func text(for p: Participant, columns: Int) -> String {
        let mark = p.showsSpeaking ? "◆ " : "  "
        var parts = [p.isLocal ? (p.name.map { "\($0) (you)" } ?? "you") : p.displayName]
        if p.audioMuted { parts.append("muted") }
        if !p.videoOn {
            parts.append("video off")
        } else if p.isLocal, let src = p.sourceName {
            parts.append("[\(src)]")
        }
        if !p.isLocal { parts.append(p.connection.label) }
        return DisplayWidth.fit(mark + parts.joined(separator: " · "), columns: columns)
    }

    /// The name a tile shows: the participant's for its main tile, with the stream's ordinal for a further stream
    /// ("Zoe · 2"), whose id (a string from the network) is never shown.
    public static func name(of tile: Tile) -> String {
        let n = name(of: tile.participant)
        return tile.stream.map { "\(n) · \($0.ordinal)" } ?? n
    }

    /// A tile's label row: the participant's for its main tile; for a further stream its name and the connection
    /// state, without the speaking mark or the flags (the audio and the camera belong to the main tile).
    public static func text(for tile: Tile, columns: Int) -> String {
        guard tile.stream != nil else { return text(for: tile.participant, columns: columns) }
        var text = "  " + name(of: tile)
        if !tile.participant.isLocal { text += " · \(tile.participant.connection.label)" }
        return DisplayWidth.fit(text, columns: columns)
    }
}
