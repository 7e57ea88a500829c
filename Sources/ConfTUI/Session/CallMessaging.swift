import Engine
import Foundation
import Signaling
import Synchronization

/// Chat and files of a call: SkyRTC's data-channel protocol (`RoomMessaging`, sans-IO) driven by the call's data
/// channels. One channel per peer carries it, the first that opens (SkyRTC makes one; a browser could make more).
/// The call delivers its channel events here on its event thread, the screen or the bot calls the user's side from
/// its own; one lock keeps the core. What the user should see queues in `takeEvents`, bounded.
final class CallMessaging: Sendable {
    /// What a screen or a report learns, in order.
    enum Event: Sendable, Equatable {
        case chat(from: RemotePeerID, text: String, atWallClock: Double)
        case chatSent(String, to: Int, atWallClock: Double)
        /// `atWallClock` of offers and received files: stamped on the call's event thread (a bot accepting every
        /// offer accepts it then), so a report times a transfer without waiting for a polling loop.
        case offered(FileTransferID, from: RemotePeerID, name: String, size: Int64, atWallClock: Double)
        case offerSent(FileTransferID, name: String, size: Int64)
        case progress(FileTransferID, incoming: Bool, bytes: Int64, size: Int64)
        case fileReceived(FileTransferID, path: String, size: Int64, sha256: String, atWallClock: Double)
        case fileSent(FileTransferID, name: String, size: Int64, sha256: String?)
        case fileRefused(FileTransferID, incoming: Bool)
        case fileFailed(FileTransferID, incoming: Bool, reason: String)
        case notice(String)
    }

    /// Screen events kept while nobody takes them; past it the oldest go (the report keeps its own record).
    static let maxQueuedEvents = 4096

    /// `@unchecked Sendable`: the core holds file handles (not Sendable), and a `State` only ever lives inside
    /// `state`, touched within `withLock`, so no two threads reach it at once.
    private struct State: @unchecked Sendable {
        var core: RoomMessaging
        var channels: [RemotePeerID: UInt16] = [:]
        var buffered: [RemotePeerID: Int] = [:]
        /// Bytes handed to `Call.sendData` per peer, ever: those the connection has not taken yet (still in the
        /// call's inbox) count as queued too, or a file sender reading a stale small figure would overrun SCTP's
        /// queue (found sending 20 MB on loopback).
        var handed: [RemotePeerID: Int] = [:]
        var events: [Event] = []
        var deadline: MonotonicInstant?
    }

    private let state: Mutex<State>
    private let call = Mutex<Call?>(nil)
    /// `bot --echo`: a chat "ping X" is answered "pong X" to its sender at once, on the call's event thread, so
    /// a round trip measures the channel and not a polling loop.
    let echoPings: Bool
    /// In a forwarding server's room: the one channel that sends (our publication's); what would go to a participant's
    /// channel is not sent (the server ignores a subscriber's data), and files, asked and accepted peer to peer in
    /// SkyRTC, are not offered.
    let sendsOnlyVia: RemotePeerID?
    private let log: @Sendable (String) -> Void

    init(core: RoomMessaging, echoPings: Bool = false, sendsOnlyVia: RemotePeerID? = nil, log: @escaping @Sendable (String) -> Void) {
        state = Mutex(State(core: core))
        self.log = log
        self.echoPings = echoPings
        self.sendsOnlyVia = sendsOnlyVia
    }

    /// The call whose channels carry the messages (set once it exists: it is created with `dataEvent` as its hook).
    func attach(_ call: Call) { self.call.withLock { $0 = call } }

    /// From the call's event thread.
    func dataEvent(_ peer: RemotePeerID, _ event: DataChannelEvent) {
        let socket = SocketID(peer.rawValue)
        var inputs: [RoomMessaging.Input] = []
        state.withLock { s in
            switch event {
            case .opened(let id, _, _, let maxMessageSize):
                guard s.channels[peer] == nil else { return }
                s.channels[peer] = id
                inputs = [.channelOpened(socket), .maxMessageSize(socket, maxMessageSize)]
            case .message(let id, let message):
                guard s.channels[peer] == id else { return }
                switch message {
                case .text(let bytes): inputs = [.receivedBytes(socket, bytes)]
                case .binary(let bytes): inputs = [.receivedBinary(socket, count: bytes.count)]
                }
            case .buffered(let id, let queued, let accepted):
                guard s.channels[peer] == id else { return }
                let bytes = queued + max(0, (s.handed[peer] ?? 0) - accepted)
                s.buffered[peer] = bytes
                inputs = [.bufferedAmount(socket, bytes)]
            case .sendFailed(let id, let reason):
                guard s.channels[peer] == id else { return }
                s.events.append(.notice("a message to \(peer.rawValue.prefix(8)) was lost: \(reason)"))
            case .closed(let id):
                guard s.channels[peer] == id else { return }
                s.channels[peer] = nil
                s.buffered[peer] = nil
                s.handed[peer] = nil
                inputs = [.channelClosed(socket)]
            }
        }
        for input in inputs { feed(input) }
    }

    func say(_ text: String) { feed(.say(text)) }
    func sendFile(path: String) {
        guard sendsOnlyVia == nil else {
            return state.withLock { $0.events.append(.notice("files are shared in mesh rooms only: through a forwarding server everyone would see every chunk")) }
        }
        feed(.sendFile(path: path))
    }
    func accept(_ id: FileTransferID) { feed(.accept(id)) }
    func refuse(_ id: FileTransferID) { feed(.refuse(id)) }

    /// Call now and then (the screen's or the bot's loop): stalled transfers fail on the core's timer.
    func tick() {
        let due = state.withLock { s in s.deadline.map { MonotonicInstant.now >= $0 } ?? false }
        if due { feed(.timer) }
    }

    /// Channels open now, and the most bytes queued on any of them (what a sender of many messages paces by).
    var openChannelCount: Int { state.withLock { $0.channels.count } }
    var mostBuffered: Int { state.withLock { $0.buffered.values.max() ?? 0 } }

    func takeEvents() -> [Event] { state.withLock { s in defer { s.events = [] }; return s.events } }

    private func feed(_ input: RoomMessaging.Input) {
        let (sends, logs) = state.withLock { s -> ([(RemotePeerID, UInt16, String)], [String]) in
            let out = s.core.handle(input, now: .now)
            s.deadline = out.deadline
            var sends: [(RemotePeerID, UInt16, String)] = []
            var logs: [String] = []
            let wall = MediaPipeline.wallClock()
            for effect in out.effects {
                var event: Event?
                switch effect {
                case .send(let to, let text):
                    let peer = RemotePeerID(to.rawValue)
                    if let via = sendsOnlyVia, peer != via { break }
                    if let channel = s.channels[peer] {
                        sends.append((peer, channel, text))
                        s.handed[peer, default: 0] += text.utf8.count
                    }
                case .chat(let from, let text, _):
                    event = .chat(from: RemotePeerID(from.rawValue), text: text, atWallClock: wall)
                    if echoPings, sendsOnlyVia == nil, text.hasPrefix("ping "), let channel = s.channels[RemotePeerID(from.rawValue)] {
                        let pong = String(decoding: SkyRTCPeerMessage.chat("pong " + text.dropFirst(5)).jsonBytes, as: UTF8.self)
                        sends.append((RemotePeerID(from.rawValue), channel, pong))
                        s.handed[RemotePeerID(from.rawValue), default: 0] += pong.utf8.count
                    }
                case .chatSent(let text, let to):
                    // Through a forwarding server a line goes out once, on the publication, whoever hears it.
                    let count = sendsOnlyVia.map { via in to.contains(SocketID(via.rawValue)) ? 1 : 0 } ?? to.count
                    event = .chatSent(text, to: count, atWallClock: wall)
                case .offered(let id, let from, let name, let size):
                    event = .offered(id, from: RemotePeerID(from.rawValue), name: name, size: size, atWallClock: wall)
                case .offerSent(let id, let name, let size): event = .offerSent(id, name: name, size: size)
                case .progress(let id, let direction, let bytes, let size):
                    event = .progress(id, incoming: direction == .incoming, bytes: bytes, size: size)
                case .fileReceived(let id, let path, let size, let sha): event = .fileReceived(id, path: path, size: size, sha256: sha, atWallClock: wall)
                case .fileSent(let id, let name, let size, let sha): event = .fileSent(id, name: name, size: size, sha256: sha)
                case .fileRefused(let id, let direction): event = .fileRefused(id, incoming: direction == .incoming)
                case .fileFailed(let id, let direction, let reason):
                    event = .fileFailed(id, incoming: direction == .incoming, reason: reason)
                case .notice(let text): event = .notice(text)
                case .log(let text): logs.append(text)
                }
                if let event {
                    s.events.append(event)
                    if s.events.count > Self.maxQueuedEvents { s.events.removeFirst(s.events.count - Self.maxQueuedEvents) }
                }
            }
            return (sends, logs)
        }
        for line in logs { log("chat: " + line) }
        guard !sends.isEmpty, let call = call.withLock({ $0 }) else { return }
        for (peer, channel, text) in sends { call.sendData(.text(Array(text.utf8)), to: peer, channel: channel) }
    }
}
