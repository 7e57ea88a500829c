import Engine
import Foundation
import Signaling
import Synchronization

/// The SkyRTC driver of a `RoomSession`: one participant's presence in a SkyRTC room (conftui's server or the
/// original), the signaling connection, the mesh `Call`, and the traffic between them. SkyRTC's own terms (socket ids,
/// `_peers`, `__media_state`) stay here and in `SkyRTCCallTranslation`; what leaves is the call's signals and
/// `SessionEvent`s.
///
/// Reconnecting (issue #8): when the signaling connection drops, every peer connection is closed at once (the
/// server has already told the others `_remove_peer` for our old socketId, so they close theirs), then the session
/// reconnects with exponential backoff (0.5 s doubling to 10 s, ±20 % jitter so a restarted server is not hit by
/// every client at the same instant) and joins again. The new `_peers` makes us the newcomer, so we offer to everyone
/// afresh; nobody is left holding a connection to an id that no longer exists (no ghosts).
final class SkyRTCSession: RoomSession {
    let call: Call
    let messaging: CallMessaging
    let settings: RoomSessionSettings
    private let link: SignalingLink
    private let events = Mutex<[SessionEvent]>([])
    private let stopping = Atomic<Bool>(false)
    private let readerFinished = Mutex<Bool>(true)
    private let ended = Mutex<String?>(nil)
    private let log: @Sendable (String) -> Void

    init(settings: RoomSessionSettings, callOptions: Call.Options, messaging configuration: RoomMessaging.Configuration,
         echoPings: Bool = false, log: @escaping @Sendable (String) -> Void) throws {
        let link = SignalingLink(log: log)
        self.link = link
        self.settings = settings
        self.log = log
        let messaging = CallMessaging(core: RoomMessaging(configuration: configuration), echoPings: echoPings, log: log)
        self.messaging = messaging
        call = try Call(options: callOptions, onSignal: { link.send(SkyRTCCallTranslation.message(for: $0)) },
                        onMediaAnnouncement: { link.send(SkyRTCCallTranslation.announcement(of: $0)) },
                        onData: { messaging.dataEvent($0, $1) })
        messaging.attach(call)
    }

    /// The room name as the server files it (the original's `data.room || "__default"`).
    var roomShown: String { settings.room.isEmpty ? "__default" : settings.room }

    /// Starts the call, connects and joins. The first attempt's failure is thrown (a wrong URL or a server that is
    /// not there should fail the command at once, not spin in the background).
    @discardableResult
    func start() throws -> RemotePeerID {
        call.start()
        let peers: SkyRTCPeers
        do {
            peers = try connectAndJoin()
        } catch {
            call.stop()
            throw error
        }
        readerFinished.withLock { $0 = false }
        let reader = Thread { [self] in
            readLoop()
            readerFinished.withLock { $0 = true }
        }
        reader.name = "room-signaling"
        reader.start()
        return SkyRTCCallTranslation.peer(peers.you)
    }

    /// Leaves: closes every peer connection (each peer gets a DTLS close_notify, RFC 5246 §7.2.1, so it knows at
    /// once), then the signaling socket (the server tells the others `_remove_peer`).
    func leave() {
        stopping.store(true, ordering: .releasing)
        call.stop()
        link.close()
        for _ in 0..<100 where !readerFinished.withLock({ $0 }) { usleep(10_000) }
    }

    /// Signaling events since the last call.
    func takeEvents() -> [SessionEvent] { events.withLock { q in defer { q = [] }; return q } }

    /// Set when the session gave up (reconnecting off and the connection dropped): the reason.
    var endReason: String? { ended.withLock { $0 } }

    private func post(_ event: SessionEvent) { events.withLock { $0.append(event) } }

    private func connectAndJoin() throws -> SkyRTCPeers {
        let client = try SkyRTCClient(url: settings.url)
        do {
            let (peers, earlier) = try client.join(room: settings.room, name: settings.name)
            if let why = SkyRTCCallTranslation.refusal(of: .peers(peers)) { throw SignalingError.badMessage(.badField, "_peers: \(why)") }
            link.replace(with: client)
            log("joined \(roomShown) as \(peers.you.rawValue) with \(peers.connections.count) peer(s) there")
            call.handle(.joined(you: SkyRTCCallTranslation.peer(peers.you), others: peers.connections.map(SkyRTCCallTranslation.peer)))
            post(SkyRTCCallTranslation.joined(peers))
            for message in earlier { dispatch(message) }
            return peers
        } catch {
            client.close()
            throw error
        }
    }

    private func dispatch(_ message: SkyRTCServerMessage) {
        if let why = SkyRTCCallTranslation.refusal(of: message) {
            log("dropping \(message.eventName): \(why)")
            return
        }
        if let signal = SkyRTCCallTranslation.signal(for: message) { call.handle(signal) }
        if case .error(let e) = message { log("server error \(e.code.rawValue): \(e.message)") }
        if let event = SkyRTCCallTranslation.sessionEvent(for: message) { post(event) }
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func readLoop() {
        // Seeded from the wall clock so that clients restarted together still jitter apart.
        var backoff = ReconnectBackoff(random: SplitMixRandom(seed: UInt64(truncatingIfNeeded: Int64(MediaPipeline.wallClock() * 1e6))))
        while !isStopping {
            guard let client = link.current else { return }
            do {
                dispatch(try client.next(timeout: 0.25))
                continue
            } catch SignalingError.timeout {
                continue
            } catch {
                if isStopping { return }
                let reason = "\(error)"
                log("signaling lost: \(reason)")
                link.drop(client)
                // Our old socketId is gone from the room; the room policy decides what that ends.
                call.signalingLost()
                guard settings.reconnect else {
                    ended.withLock { $0 = "signaling closed" }
                    post(.signalingLost(reason: reason, retryIn: nil))
                    return
                }
                var failedAt = MonotonicInstant.now
                while !isStopping {
                    backoff.failed(now: failedAt)
                    let wait = backoff.lastWaitSeconds
                    post(.signalingLost(reason: reason, retryIn: wait))
                    log(String(format: "reconnecting in %.1f s", wait))
                    while !isStopping && !backoff.isDue(now: MonotonicInstant.now) { usleep(50_000) }
                    if isStopping { return }
                    do {
                        _ = try connectAndJoin()
                        backoff.joined()
                        break
                    } catch {
                        log("reconnect failed: \(error)")
                        failedAt = MonotonicInstant.now
                    }
                }
            }
        }
    }
}

/// The current signaling connection, shared by the reader thread (which replaces it on reconnect) and the call's
/// event thread (which sends through it). Messages the call sends while no connection is up are dropped and logged:
/// they belong to peer connections that the reconnect closes anyway. A send only queues (`WebSocketClient`), so a
/// server that stops reading never holds up the event thread; when the queue is full the connection is failed, and
/// the reader thread handles it as lost.
final class SignalingLink: Sendable {
    private let client = Mutex<SkyRTCClient?>(nil)
    private let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) { self.log = log }

    var current: SkyRTCClient? { client.withLock { $0 } }

    func replace(with new: SkyRTCClient) { client.withLock { $0 = new } }

    func drop(_ old: SkyRTCClient) {
        client.withLock { if $0 === old { $0 = nil } }
        old.close()
    }

    func close() {
        let old = client.withLock { c in defer { c = nil }; return c }
        old?.close()
    }

    func send(_ message: SkyRTCClientMessage) {
        guard let c = current else {
            log("signaling down, dropped \(message.eventName)")
            return
        }
        do { try c.send(message) } catch { log("signaling send failed: \(error)") }
    }
}
