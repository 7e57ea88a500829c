import RoomModel

/// What the status bar says, built from the room (pure, so the wording is in one place).
struct StatusLine {
    let server: String

    func text(for room: Room) -> String {
        let me = room.local
        let mic = me.audioMuted ? "MUTED" : "on"
        let cam = me.videoOn ? (me.sourceName ?? "on") : "off"
        let peers = room.remotes.count
        var parts = [
            " conftui",
            "room \(room.roomName.isEmpty ? "__default" : room.roomName)",
            server,
            "mic \(mic)",
            "video \(cam)",
            "\(peers) peer\(peers == 1 ? "" : "s")",
            "link \(StatusLine.quality(of: room))",
        ]
        // Messages that arrived while the chat pane was hidden.
        if !room.chat.isVisible && room.chat.unread > 0 { parts.append("chat \(room.chat.unread) new") }
        if room.hasLeft { parts.append("LEFT") }
        return parts.joined(separator: " │ ") + " │ ? help "
    }

    /// Connection quality over the connected peers, by the worst one: loss and RTT thresholds a
    /// person notices (≥8 % loss or ≥400 ms RTT is a poor call; ≥2 % or ≥150 ms is fair).
    static func quality(of room: Room) -> String {
        let live = room.remotes.values.filter { $0.connection == .connected }
        guard !live.isEmpty else {
            return room.remotes.values.contains { $0.connection == .failed } ? "failed" : "—"
        }
        var worst = 0
        for p in live {
            let loss = p.stats.lossPercent, rtt = p.stats.rttMs ?? 0
            let grade = (loss >= 8 || rtt >= 400) ? 2 : (loss >= 2 || rtt >= 150) ? 1 : 0
            worst = max(worst, grade)
        }
        return ["good", "fair", "poor"][worst]
    }
}
