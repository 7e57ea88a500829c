import Engine
import Foundation
import Signaling

/// The chat and file part of a bot's report: every message in arrival order, every file offered to us and by us,
/// what we said. Texts keep printable Unicode exactly and have control characters escaped
/// (`RoomMessaging.escapedForReport`). Times are Unix milliseconds, so two reports compare directly.
struct MessagingReport: Encodable, Sendable {
    struct Chat: Encodable, Sendable, Equatable {
        var from: String
        var name: String?
        var text: String
        var atMs: Int64
    }

    struct File: Encodable, Sendable, Equatable {
        var from: String
        var name: String
        var size: Int64
        var sha256: String?
        var savedAs: String?
        /// offered (waiting), receiving, received, refused, failed.
        var state: String
        var reason: String?
        /// Unix ms of the offer's arrival (with `--accept-files`, its acceptance) and of the last byte received.
        var offeredAtMs: Int64?
        var receivedAtMs: Int64?
    }

    struct Said: Encodable, Sendable, Equatable {
        var text: String
        var peers: Int
        var atMs: Int64
    }

    struct Sent: Encodable, Sendable, Equatable {
        var to: String
        var name: String
        var size: Int64
        var sha256: String?
        /// offered, sending, sent, refused, failed.
        var state: String
        var reason: String?
    }

    var chat: [Chat] = []
    var files: [File] = []
    var said: [Said] = []
    var filesSent: [Sent] = []
    /// `bot --ping`: each peer's chat round trips in milliseconds, in order.
    var roundTripsMs: [String: [Double]] = [:]

    /// The report's own bounds: a long run keeps the newest entries of each list.
    static let maxEntries = 20_000

    private var incoming: [FileTransferID: Int] = [:]
    private var outgoing: [FileTransferID: Int] = [:]

    private enum CodingKeys: String, CodingKey { case chat, files, said, filesSent, roundTripsMs }

    mutating func addRoundTrip(to peer: String, milliseconds: Double) {
        guard roundTripsMs[peer, default: []].count < Self.maxEntries else { return }
        roundTripsMs[peer, default: []].append((milliseconds * 1000).rounded() / 1000)
    }

    mutating func add(_ event: CallMessaging.Event, names: [RemotePeerID: String]) {
        func ms(_ wall: Double) -> Int64 { Int64((wall * 1000).rounded()) }
        switch event {
        case .chat(let from, let text, let at):
            chat.append(Chat(from: from.rawValue, name: names[from], text: RoomMessaging.escapedForReport(text), atMs: ms(at)))
            if chat.count > Self.maxEntries { chat.removeFirst() }
        case .chatSent(let text, let peers, let at):
            said.append(Said(text: RoomMessaging.escapedForReport(text), peers: peers, atMs: ms(at)))
            if said.count > Self.maxEntries { said.removeFirst() }
        case .offered(let id, let from, let name, let size, let at):
            guard files.count < Self.maxEntries else { return }
            incoming[id] = files.count
            files.append(File(from: from.rawValue, name: RoomMessaging.escapedForReport(name), size: size, state: "offered",
                              offeredAtMs: ms(at)))
        case .offerSent(let id, let name, let size):
            guard filesSent.count < Self.maxEntries else { return }
            outgoing[id] = filesSent.count
            filesSent.append(Sent(to: id.peer.rawValue, name: RoomMessaging.escapedForReport(name), size: size, state: "offered"))
        case .progress(let id, let isIncoming, _, _):
            if isIncoming, let i = incoming[id], files[i].state == "offered" { files[i].state = "receiving" }
            if !isIncoming, let i = outgoing[id], filesSent[i].state == "offered" { filesSent[i].state = "sending" }
        case .fileReceived(let id, let path, let size, let sha, let at):
            guard let i = incoming[id] else { return }
            files[i].state = "received"
            files[i].receivedAtMs = ms(at)
            files[i].savedAs = RoomMessaging.escapedForReport(path)
            files[i].size = size
            files[i].sha256 = sha
        case .fileSent(let id, _, _, let sha):
            guard let i = outgoing[id] else { return }
            filesSent[i].state = "sent"
            filesSent[i].sha256 = sha
        case .fileRefused(let id, let isIncoming):
            if isIncoming, let i = incoming[id] { files[i].state = "refused" }
            if !isIncoming, let i = outgoing[id] { filesSent[i].state = "refused" }
        case .fileFailed(let id, let isIncoming, let reason):
            if isIncoming, let i = incoming[id] { files[i].state = "failed"; files[i].reason = RoomMessaging.escapedForReport(reason) }
            if !isIncoming, let i = outgoing[id] { filesSent[i].state = "failed"; filesSent[i].reason = RoomMessaging.escapedForReport(reason) }
        case .notice: break
        }
    }
}
