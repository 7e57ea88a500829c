import Engine
import Foundation
import RoomModel
import Signaling

/// Between the chat pane and `CallMessaging` on a live call: what is typed goes out (`/send PATH` offers a file),
/// what arrives becomes room events (messages, and notices for offers, progress every quarter, saved files and
/// failures), and file offers wait in arrival order for `a` or `r`. The screen's loop is its only caller.
final class CallChatFeed {
    struct Offer: Equatable {
        var id: FileTransferID
        var from: String
        var name: String
        var size: Int64
    }

    let messaging: CallMessaging
    /// Offers not yet answered, oldest first; at most `RoomMessaging`'s own bounds (4 a peer, 16 in all).
    private(set) var pending: [Offer] = []
    private var reportedQuarter: [FileTransferID: Int64] = [:]
    private var names: [FileTransferID: String] = [:]

    init(messaging: CallMessaging) { self.messaging = messaging }

    /// What the user typed: a chat line, or `/send PATH` (a leading `~/` is the home folder).
    func send(_ line: String) {
        if line.hasPrefix("/send ") {
            var path = line.dropFirst("/send ".count).trimmingCharacters(in: .whitespaces)
            if path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] { path = home + path.dropFirst(1) }
            messaging.sendFile(path: path)
        } else {
            messaging.say(line)
        }
    }

    func acceptOldest() -> String? {
        guard !pending.isEmpty else { return nil }
        let offer = pending.removeFirst()
        messaging.accept(offer.id)
        return "receiving \(offer.name) from \(offer.from)"
    }

    func refuseOldest() -> String? {
        guard !pending.isEmpty else { return nil }
        let offer = pending.removeFirst()
        messaging.refuse(offer.id)
        return "refused \(offer.name) from \(offer.from)"
    }

    /// Room events for what happened since the last call. `name` gives a peer's display name.
    func events(name: (RemotePeerID) -> String) -> [RoomEvent] {
        messaging.tick()
        var out: [RoomEvent] = []
        let now = MediaPipeline.wallClock()
        for event in messaging.takeEvents() {
            switch event {
            case .chat(let from, let text, let at):
                out.append(.chatReceived(ParticipantID(from.rawValue), text: text, at: at))
            case .chatSent(let text, _, let at):
                out.append(.local(.sentChat(text: text, at: at)))
            case .offered(let id, let from, let file, let size, _):
                let offer = Offer(id: id, from: name(from), name: file, size: size)
                pending.append(offer)
                names[id] = file
                out.append(.chatNotice("\(offer.from) offers \(file) (\(Self.size(size))): a accept, r refuse", at: now))
            case .offerSent(let id, let file, let size):
                names[id] = file
                out.append(.chatNotice("offered \(file) (\(Self.size(size))) to \(name(RemotePeerID(id.peer.rawValue)))", at: now))
            case .progress(let id, let incoming, let bytes, let size):
                guard size > 0 else { continue }
                let quarter = min(3, bytes * 4 / size)
                guard quarter > (reportedQuarter[id] ?? 0) else { continue }
                reportedQuarter[id] = quarter
                let verb = incoming ? "receiving" : "sending"
                out.append(.chatNotice("\(verb) \(names[id] ?? "a file"): \(quarter * 25) %", at: now))
            case .fileReceived(let id, let path, let size, let sha, _):
                forget(id)
                out.append(.chatNotice("saved \(path) (\(Self.size(size)), sha256 \(sha.prefix(12))…)", at: now))
            case .fileSent(let id, let file, _, _):
                forget(id)
                out.append(.chatNotice("sent \(file) to \(name(RemotePeerID(id.peer.rawValue)))", at: now))
            case .fileRefused(let id, let incoming):
                let file = names[id] ?? "a file"
                forget(id)
                if !incoming { out.append(.chatNotice("\(name(RemotePeerID(id.peer.rawValue))) refused \(file)", at: now)) }
            case .fileFailed(let id, let incoming, let reason):
                let file = names[id] ?? "a file"
                forget(id)
                out.append(.chatNotice("\(incoming ? "receiving" : "sending") \(file) failed: \(reason)", at: now))
            case .notice(let text):
                out.append(.chatNotice(text, at: now))
            }
        }
        return out
    }

    private func forget(_ id: FileTransferID) {
        pending.removeAll { $0.id == id }
        reportedQuarter[id] = nil
        names[id] = nil
    }

    /// "1.2 MB", "340 KB", "12 B": decimal units, as file managers show sizes.
    static func size(_ bytes: Int64) -> String {
        switch bytes {
        case ..<1000: return "\(bytes) B"
        case ..<1_000_000: return String(format: "%.0f KB", Double(bytes) / 1e3)
        case ..<1_000_000_000: return String(format: "%.1f MB", Double(bytes) / 1e6)
        default: return String(format: "%.1f GB", Double(bytes) / 1e9)
        }
    }
}
