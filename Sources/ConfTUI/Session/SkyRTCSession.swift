import Engine
import Foundation
import Signaling
import Synchronization

/// The SkyRTC driver of a `RoomSession`: one participant's presence in a SkyRTC room (conftui's server or the
/// original), the signaling connection, the mesh `Call`, and the traffic between them. SkyRTC's own terms (socket ids,
/// `_peers`, `__media_state`) stay here and in `SkyRTCCallTranslation`; what leaves is the call's signals and
/// `SessionEvent`s.
///
/// Reconnecting (issue #8): when the signaling connection drops and the server gave us a resume token (conftui's
/// server, docs/skyrtc-protocol.md §10), the session reconnects at once presenting it, and the peer connections stay:
/// the server keeps our socketId, the others are told nothing, and what the call signals meanwhile (an ICE restart's
/// re-offer) waits in the link and goes out on the new connection. Failing attempts are retried with exponential
/// backoff (0.5 s doubling to 10 s, ±20 % jitter so a restarted server is not hit by every client at the same
/// instant). When the server answers with another id (the original server, which gives no token; a restarted one; a
/// token past its grace), every peer connection is closed (the others were told `_remove_peer` for our old id) and the
/// new `_peers` makes us the newcomer, who offers to everyone afresh: no ghosts.
///
/// Changing addresses (issue #31): the session looks at the machine's addresses once a second (`HostAddressWatch`).
/// A change restarts ICE on every connection (`Call.hostAddressesChanged`); when the signaling connection's own
/// address went, that connection is dead although nothing failed yet, so it is dropped and resumed first.
final class SkyRTCSession: RoomSession {
    let call: Call
    let messaging: CallMessaging
    let settings: RoomSessionSettings
    private let link: SignalingLink
    private let events = Mutex<[SessionEvent]>([])
    private let stopping = Atomic<Bool>(false)
    private let readerFinished = Mutex<Bool>(true)
    private let ended = Mutex<String?>(nil)
    private let presence = Mutex(SkyRTCPresence())
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
            let (client, joined, earlier) = try connect(resume: nil)
            enter(client, joined, earlier)
            peers = joined
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

    /// Connects and sends `__join` (with `resume` when reconnecting); the joined connection is not used yet.
    private func connect(resume: String?) throws -> (SkyRTCClient, SkyRTCPeers, [SkyRTCServerMessage]) {
        let client = try SkyRTCClient(url: settings.url)
        do {
            let (peers, earlier) = try client.join(room: settings.room, name: settings.name, resume: resume, resumable: settings.reconnect)
            if let why = SkyRTCCallTranslation.refusal(of: .peers(peers)) { throw SignalingError.badMessage(.badField, "_peers: \(why)") }
            return (client, peers, earlier)
        } catch {
            client.close()
            throw error
        }
    }

    /// In the room as a newcomer (the first join, or a reconnect the server did not resume).
    private func enter(_ client: SkyRTCClient, _ peers: SkyRTCPeers, _ earlier: [SkyRTCServerMessage]) {
        link.replace(with: client, sendHeld: false)
        presence.withLock { $0.joined(peers) }
        log("joined \(roomShown) as \(peers.you.rawValue) with \(peers.connections.count) peer(s) there")
        call.handle(.joined(you: SkyRTCCallTranslation.peer(peers.you), others: peers.connections.map(SkyRTCCallTranslation.peer)))
        post(SkyRTCCallTranslation.joined(peers))
        for message in earlier { dispatch(message) }
    }

    /// Back as the same member: the connections stay, the signals held meanwhile go out, and who left or came is told.
    private func resumed(_ client: SkyRTCClient, _ peers: SkyRTCPeers, _ earlier: [SkyRTCServerMessage],
                         left: [SocketID], came: [SocketID]) {
        let held = link.replace(with: client, sendHeld: true)
        log("signaling resumed as \(peers.you.rawValue) (\(held) held message(s) sent; \(left.count) left, \(came.count) came meanwhile)")
        // The mesh keeps its connections, closes who left, offers to who came.
        call.handle(.resumed(you: SkyRTCCallTranslation.peer(peers.you), others: peers.connections.map(SkyRTCCallTranslation.peer)))
        post(.signalingResumed)
        for id in left { post(.peerLeft(SkyRTCCallTranslation.peer(id))) }
        for id in came {
            post(.peerJoined(SkyRTCCallTranslation.peer(id), name: peers.names[id]))
            if let state = peers.media[id] { post(.peerMedia(SkyRTCCallTranslation.peer(id), SkyRTCCallTranslation.media(state))) }
        }
        for message in earlier { dispatch(message) }
    }

    private func dispatch(_ message: SkyRTCServerMessage) {
        if let why = SkyRTCCallTranslation.refusal(of: message) {
            log("dropping \(message.eventName): \(why)")
            return
        }
        presence.withLock { $0.track(message) }
        if let signal = SkyRTCCallTranslation.signal(for: message) { call.handle(signal) }
        if case .error(let e) = message { log("server error \(e.code.rawValue): \(e.message)") }
        if let event = SkyRTCCallTranslation.sessionEvent(for: message) { post(event) }
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func readLoop() {
        // Seeded from the wall clock so that clients restarted together still jitter apart.
        var backoff = ReconnectBackoff(random: SplitMixRandom(seed: UInt64(truncatingIfNeeded: Int64(MediaPipeline.wallClock() * 1e6))))
        var addresses = HostAddressWatch(now: MonotonicClock.now())
        while !isStopping {
            guard let client = link.current else { return }
            if let change = addresses.poll(now: MonotonicClock.now()) {
                log("host addresses changed: gone \(change.gone), new \(change.added)")
                if let local = client.webSocket.localAddress, change.gone.contains(local) {
                    // Nothing has failed yet, but nothing will arrive: the connection's address is no longer ours.
                    guard recover(from: client, reason: "its local address \(local) went away", addressesChanged: true,
                                  backoff: &backoff) else { return }
                    continue
                }
                call.hostAddressesChanged()
            }
            do {
                dispatch(try client.next(timeout: 0.25))
                continue
            } catch SignalingError.timeout {
                continue
            } catch {
                if isStopping { return }
                guard recover(from: client, reason: "\(error)", addressesChanged: false, backoff: &backoff) else { return }
            }
        }
    }

    /// After the signaling connection was lost: resumes our place when the server gave a token, else rejoins as a
    /// newcomer; returns false when the session ends instead (reconnecting off, or leaving).
    private func recover(from client: SkyRTCClient, reason: String, addressesChanged: Bool,
                         backoff: inout ReconnectBackoff<SplitMixRandom>) -> Bool {
        log("signaling lost: \(reason)")
        let token = settings.reconnect ? presence.withLock { $0.resumeToken } : nil
        link.drop(client, holdSends: token != nil)
        // The re-offers of the ICE restart wait in the link for the resumed connection.
        if addressesChanged { call.hostAddressesChanged() }
        guard let token else {
            // Our old socketId is gone from the room; the room policy decides what that ends.
            call.signalingLost()
            guard settings.reconnect else {
                ended.withLock { $0 = "signaling closed" }
                post(.signalingLost(reason: reason, retryIn: nil))
                return false
            }
            return reconnect(resume: nil, reason: reason, backoff: &backoff)
        }
        post(.signalingInterrupted(reason: reason, retryIn: 0))
        return reconnect(resume: token, reason: reason, backoff: &backoff)
    }

    /// Connects and joins until it works or the session stops: presenting `token` (a resume) at once, or as a
    /// newcomer after a first wait; each failure waits as `backoff` says.
    private func reconnect(resume token: String?, reason: String, backoff: inout ReconnectBackoff<SplitMixRandom>) -> Bool {
        var waitFirst = token == nil
        while !isStopping {
            if waitFirst {
                backoff.failed(now: MonotonicInstant.now)
                let wait = backoff.lastWaitSeconds
                post(token == nil ? .signalingLost(reason: reason, retryIn: wait) : .signalingInterrupted(reason: reason, retryIn: wait))
                log(String(format: "reconnecting in %.1f s", wait))
                while !isStopping && !backoff.isDue(now: MonotonicInstant.now) { usleep(50_000) }
                if isStopping { return false }
            }
            waitFirst = true
            do {
                let (client, peers, earlier) = try connect(resume: token)
                if isStopping || link.isClosed {
                    client.close()
                    return false
                }
                switch token == nil ? .newcomer : presence.withLock({ $0.rejoined(peers) }) {
                case .resumed(let left, let came):
                    resumed(client, peers, earlier, left: left, came: came)
                case .newcomer:
                    if token != nil {
                        log("the server did not keep our place (now \(peers.you.rawValue)): joining as a newcomer")
                        call.signalingLost()
                        post(.signalingLost(reason: reason, retryIn: nil))
                    }
                    enter(client, peers, earlier)
                }
                backoff.joined()
                return true
            } catch {
                log("reconnect failed: \(error)")
            }
        }
        return false
    }
}

/// The current signaling connection, shared by the reader thread (which replaces it on reconnect) and the call's
/// event thread (which sends through it). While a lost connection is being resumed, what the call sends is held (up
/// to `maxHeld` messages) and goes out on the resumed connection in order; otherwise messages sent while no
/// connection is up are dropped and logged: they belong to peer connections that a rejoin closes anyway. A send only
/// queues (`WebSocketClient`), so a server that stops reading never holds up the event thread; when the queue is full
/// the connection is failed, and the reader thread handles it as lost.
final class SignalingLink: Sendable {
    private struct State {
        var client: SkyRTCClient?
        /// The lost connection while a resume is under way: kept open, unread, until the resumed one is in (the
        /// server closes it then). Closing it first would send a close frame, which the server takes as a leave if
        /// the old path still works (an address that went and came back).
        var abandoned: SkyRTCClient?
        /// `close()` was called: nothing may join again.
        var closed = false
        var holding = false
        var held: [SkyRTCClientMessage] = []
        var droppedWhileHolding = 0
    }

    /// An ICE restart's offer and candidates for every peer of a full room fit many times over.
    static let maxHeld = 512
    private let state = Mutex(State())
    private let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) { self.log = log }

    var current: SkyRTCClient? { state.withLock { $0.client } }

    /// The joined connection from now on. `sendHeld`: what was held meanwhile goes out on it first (a resume), else it
    /// is dropped (a newcomer's peers are all new). Returns how many held messages were sent.
    @discardableResult
    func replace(with new: SkyRTCClient, sendHeld: Bool) -> Int {
        let (count, old) = state.withLock { s -> (Int?, SkyRTCClient?) in
            guard !s.closed else { return (nil, nil) }
            defer { s.abandoned = nil }
            let held = s.held
            s.held = []
            s.holding = false
            if s.droppedWhileHolding > 0 { log("\(s.droppedWhileHolding) signaling message(s) dropped while reconnecting (more than \(Self.maxHeld))") }
            s.droppedWhileHolding = 0
            s.client = new
            guard sendHeld else { return (0, s.abandoned) }
            // Under the lock, so that nothing the call sends now overtakes them.
            for message in held {
                do { try new.send(message) } catch { log("signaling send failed: \(error)") }
            }
            return (held.count, s.abandoned)
        }
        old?.close()
        guard let count else {
            new.close()   // the session is leaving: this connection must not stay in the room
            return 0
        }
        return count
    }

    /// Whether `close()` was called (the session is leaving).
    var isClosed: Bool { state.withLock { $0.closed } }

    /// The connection is lost; `holdSends`: a resume is under way, so keep what the call sends until `replace`, and
    /// keep the old connection open (unread) until then.
    func drop(_ old: SkyRTCClient, holdSends: Bool = false) {
        let close = state.withLock { s -> Bool in
            if s.client === old { s.client = nil }
            s.holding = holdSends
            guard holdSends else { return true }
            s.abandoned = old
            return false
        }
        if close { old.close() }
    }

    func close() {
        let old = state.withLock { s -> [SkyRTCClient] in
            defer { s.client = nil; s.abandoned = nil; s.holding = false; s.held = []; s.closed = true }
            return [s.client, s.abandoned].compactMap { $0 }
        }
        for client in old { client.close() }
    }

    func send(_ message: SkyRTCClientMessage) {
        let client: SkyRTCClient? = state.withLock { s in
            if s.client == nil && s.holding {
                if s.held.count < Self.maxHeld { s.held.append(message) } else { s.droppedWhileHolding += 1 }
            }
            return s.client
        }
        guard let client else {
            if !state.withLock({ $0.holding }) { log("signaling down, dropped \(message.eventName)") }
            return
        }
        do { try client.send(message) } catch { log("signaling send failed: \(error)") }
    }
}
