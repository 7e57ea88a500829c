import Engine
import Foundation
import Signaling
import Synchronization

/// The Janus driver of a `RoomSession`: one participant in a Janus VideoRoom (`--sfu janus`). The WebSocket API's
/// conversation is the sans-IO `JanusVideoRoomClient` (Signaling); the call runs `SfuRoom`, so it publishes on one
/// connection and receives everyone else on one subscription. Here: the socket, the reader thread, the clock, and the
/// translation between the two (publishers' feed ids are the participants' `RemotePeerID`s; the subscription's
/// `streams` list says whose each section is).
///
/// A session lost through no decision of the room (the WebSocket dropped, Janus restarted or timed us out, this
/// host's address went away) is joined again, as `RoomSession` promises: a new Janus session on a new WebSocket,
/// published and subscribed afresh, with `ReconnectBackoff` between attempts. Janus cannot hand the old session to a
/// new socket unless the server sets `reclaim_session_timeout`, and even then the events sent meanwhile are lost, so
/// a rejoin is the one path that works on every server; the others see us leave and come back as a new feed.
final class JanusSession: RoomSession {
    let call: Call
    let messaging: CallMessaging
    let settings: RoomSessionSettings
    private let room: UInt64
    private let janus: JanusVideoRoomConfiguration
    /// The current Janus session's conversation: a fresh one for every join.
    private let core: Mutex<JanusVideoRoomClient>
    /// The core's next deadline (its last output's).
    private let deadline = Mutex<MonotonicInstant?>(nil)
    /// The subscription's section map as Janus last gave it, less the feeds that left since.
    private let owners = Mutex<[String: RemotePeerID]>([:])
    /// The picture size we show others at (`wantPictures`, `--receive-size`), and the simulcast layer last asked
    /// for (Janus's `substream`: 0 the low encoding, 1 the full one; nil: never asked, Janus sends the full one).
    private let wanted: Mutex<(width: Int, height: Int)?>
    private let substream = Mutex<Int?>(nil)
    /// Which of our simulcast encodings the others take (`SimulcastDemand`), and what was last applied to the encoder.
    private let demand = Mutex<(state: SimulcastDemand, applied: (full: Bool, low: Bool))>((SimulcastDemand(), (true, true)))
    /// Our publication's data channel, which carries our `JanusLayerWish` to everyone, and when we last said it.
    private let publication = Mutex<(channel: UInt16?, saidAt: MonotonicInstant?)>((nil, nil))
    /// The wish is said again this often: the server relays it only to those subscribed to us at the time, and a
    /// newcomer subscribes some time after it appears.
    static let wishInterval = 2.0
    /// The low simulcast encoding is half the publisher's picture: 160x120 for the usual 320x240. A tile it fills
    /// (a terminal tile is about 128x96) gets it; a larger one the full picture.
    static let lowLayerSize = (width: 160, height: 120)
    private let socket = Mutex<WebSocketClient?>(nil)
    private let events = Mutex<[SessionEvent]>([])
    /// Our feed in the current Janus session, once joined.
    private let joinedAs = Mutex<RemotePeerID?>(nil)
    /// `start` joined: from then on a lost session is joined again (with `settings.reconnect`), not an error.
    private let everJoined = Atomic<Bool>(false)
    /// Why the session is over for good.
    private let ended = Mutex<String?>(nil)
    /// Why the current Janus session was lost, until the reader thread has joined again.
    private let lostReason = Mutex<String?>(nil)
    /// What happened to the WebSocket, said instead of the core's plainer words when that loses the session.
    private let socketTrouble = Mutex<String?>(nil)
    /// Sessions lost since we were last in the room, destroyed by the next connection (`.discard`).
    private let lostSessions = Mutex<[UInt64]>([])
    private let finished = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let readerFinished = Mutex<Bool>(true)
    private let log: @Sendable (String) -> Void

    init(settings: RoomSessionSettings, callOptions: Call.Options, messaging configuration: RoomMessaging.Configuration,
         log: @escaping @Sendable (String) -> Void) throws {
        guard case .janus(let room)? = settings.sfu else { throw UsageError("a Janus session needs --sfu janus") }
        self.room = room
        self.settings = settings
        wanted = Mutex(settings.receiveSize)
        self.log = log
        janus = JanusVideoRoomConfiguration(room: room, display: settings.name ?? "conftui", pin: nil, createRoomIfMissing: true)
        core = Mutex(JanusVideoRoomClient(configuration: janus))
        let messaging = CallMessaging(core: RoomMessaging(configuration: configuration), sendsOnlyVia: SfuRoom.publisher, log: log)
        self.messaging = messaging
        // The call's signals come back through the core on the call's event thread: `feed` takes the lock.
        let box = SessionBox()
        call = try Call(options: callOptions, policy: SfuRoom(),
                        onSignal: { box.session?.callSignal($0) },
                        onMediaAnnouncement: { box.session?.feed(.setSending(audio: !$0.audioMuted, video: $0.videoOn)) },
                        onData: { peer, event in
                            guard box.session?.layerWishes(peer, event) != true else { return }
                            messaging.dataEvent(peer, event)
                        })
        messaging.attach(call)
        box.session = self
    }

    var roomShown: String { String(room) }

    @discardableResult
    func start() throws -> RemotePeerID {
        call.start()
        do {
            try join(on: try connect())
        } catch {
            socket.withLock { $0 }?.close()
            call.stop()
            throw error
        }
        everJoined.store(true, ordering: .releasing)
        readerFinished.withLock { $0 = false }
        let reader = Thread { [self] in
            readLoop()
            readerFinished.withLock { $0 = true }
        }
        reader.name = "room-signaling"
        reader.start()
        return joinedAs.withLock { $0 }!
    }

    func leave() {
        stopping.store(true, ordering: .releasing)
        call.stop()
        feed(.leave)
        // The reader takes Janus's answers to leave and destroy; the core says `.ended` (or gives up after 2 s).
        for _ in 0..<300 where !readerFinished.withLock({ $0 }) { usleep(10_000) }
        socket.withLock { $0 }?.close()
    }

    func takeEvents() -> [SessionEvent] { events.withLock { q in defer { q = [] }; return q } }

    var endReason: String? { ended.withLock { $0 } }

    private func post(_ event: SessionEvent) { events.withLock { $0.append(event) } }

    private func connect() throws -> WebSocketClient {
        var options = WebSocketClientOptions()
        options.subprotocols = ["janus-protocol"]
        let client = try WebSocketClient(url: settings.url, options: options)
        guard client.subprotocol == "janus-protocol" else {
            client.close()
            throw SignalingError.protocolViolation("\(settings.url) did not agree to the janus-protocol subprotocol: not a Janus WebSocket transport")
        }
        return client
    }

    /// Starts a new Janus session on `client` with a fresh core and reads until we are in the room; throws what
    /// ended or lost it first, or the join timeout: a wrong room or server fails the command at once.
    private func join(on client: WebSocketClient) throws {
        let previous = core.withLock { c in
            defer { c = JanusVideoRoomClient(configuration: janus) }
            return c.sessionID
        }
        let discard = lostSessions.withLock { list in
            if let previous { list = Array((list + [previous]).suffix(JanusVideoRoomClient.maxDiscarded)) }
            return list
        }
        deadline.withLock { $0 = nil }
        socketTrouble.withLock { $0 = nil }
        socket.withLock { $0 = client }
        feed(.connected)
        for session in discard { feed(.discard(session: session)) }
        let limit = MonotonicInstant.now + settings.joinTimeout
        while joinedAs.withLock({ $0 }) == nil {
            if let why = ended.withLock({ $0 }) ?? lostReason.withLock({ $0 }) { throw SignalingError.protocolViolation(why) }
            if finished.load(ordering: .acquiring) { throw SignalingError.protocolViolation("left before joining") }
            guard MonotonicInstant.now < limit else {
                throw SignalingError.protocolViolation("Janus did not let us join room \(room) within \(settings.joinTimeout) s")
            }
            pump(client, until: min(limit, MonotonicInstant.now + 0.25))
        }
        lostSessions.withLock { $0 = [] }
    }

    /// Reads until the session ends, feeding the core its messages and its timer, and joins again when the Janus
    /// session is lost (or this host's addresses change under it).
    private func readLoop() {
        // Seeded from the wall clock so that clients of a restarted server do not all come back at the same instant.
        var backoff = ReconnectBackoff(random: SplitMixRandom(seed: UInt64(truncatingIfNeeded: Int64(MediaPipeline.wallClock() * 1e6))))
        var addresses = HostAddressWatch(now: MonotonicClock.now())
        while !finished.load(ordering: .acquiring) {
            if let reason = lostReason.withLock({ $0 }) {
                guard rejoin(after: reason, backoff: &backoff) else { return }
                addresses = HostAddressWatch(now: MonotonicClock.now())
                continue
            }
            guard let client = socket.withLock({ $0 }) else { return }
            if !stopping.load(ordering: .acquiring), let change = addresses.poll(now: MonotonicClock.now()), !change.gone.isEmpty {
                // Both connections may sit on the address that went (Janus would have to offer an ICE restart for
                // the subscription): fresh ones from the addresses we have now.
                log("host addresses changed: gone \(change.gone), new \(change.added)")
                connectionLost("this host's address \(change.gone.joined(separator: ", ")) went away")
                continue
            }
            pump(client, until: MonotonicInstant.now + 0.25)
            let due = publication.withLock { $0.saidAt.map { MonotonicInstant.now - $0 >= Self.wishInterval } ?? true }
            if due { sayLayerWish() }
        }
    }

    /// After the Janus session was lost: closes the call's connections and joins again as a new publisher until
    /// that works, the room refuses us, or we leave; false when the session ends instead.
    private func rejoin(after reason: String, backoff: inout ReconnectBackoff<SplitMixRandom>) -> Bool {
        socket.withLock { s in
            s?.close()
            s = nil
        }
        joinedAs.withLock { $0 = nil }
        call.signalingLost()
        forgetRoom()
        var why = reason
        while !stopping.load(ordering: .acquiring) {
            backoff.failed(now: MonotonicInstant.now)
            let wait = backoff.lastWaitSeconds
            post(.signalingLost(reason: why, retryIn: wait))
            log(String(format: "joining Janus room %@ again in %.1f s", String(room), wait))
            while !stopping.load(ordering: .acquiring) && !backoff.isDue(now: MonotonicInstant.now) { usleep(50_000) }
            if stopping.load(ordering: .acquiring) { break }
            lostReason.withLock { $0 = nil }
            do {
                let client = try connect()
                do {
                    try join(on: client)
                } catch {
                    client.close()
                    socket.withLock { $0 = nil }
                    throw error
                }
                backoff.joined()
                return true
            } catch {
                // The room refused us this time (`.failed` has said so and ended the session): no more attempts.
                if ended.withLock({ $0 }) != nil { return false }
                why = "\(error)"
                log("joining Janus again failed: \(why)")
            }
        }
        finished.store(true, ordering: .releasing)
        return false
    }

    /// What the lost session knew of the room; the next one learns it from Janus again. Both encodings run until
    /// the others say what they take.
    private func forgetRoom() {
        owners.withLock { $0 = [:] }
        substream.withLock { $0 = nil }
        publication.withLock { $0 = (nil, nil) }
        let paused = demand.withLock { d in
            defer { d = (SimulcastDemand(), (true, true)) }
            return d.applied != (true, true)
        }
        if paused { call.media.pauseLayers(full: false, low: false) }
    }

    /// Waits for one message or the core's deadline (whichever comes first, at most until `limit`) and feeds it.
    private func pump(_ client: WebSocketClient, until limit: MonotonicInstant) {
        let due = deadline.withLock { $0 } ?? limit
        let wait = max(0.001, min(limit, due) - MonotonicInstant.now)
        do {
            switch try client.receive(timeout: wait) {
            case .text(let text): feed(.message(Array(text.utf8)))
            case .binary(let bytes): feed(.message(bytes))
            case .close(let code, let reason):
                connectionLost("Janus closed the WebSocket (\(code.rawValue)\(reason.isEmpty ? "" : ": " + reason))")
            case .ping, .pong: break
            }
        } catch SignalingError.timeout {
        } catch {
            connectionLost("Janus connection lost: \(error)")
        }
        if (deadline.withLock { $0 }).map({ $0 <= MonotonicInstant.now }) ?? false { feed(.timer) }
    }

    /// The WebSocket is gone (or of no use): the core loses the session (`.lost`), or ends it if we were leaving.
    private func connectionLost(_ reason: String) {
        if !stopping.load(ordering: .acquiring) { log(reason) }
        socketTrouble.withLock { $0 = reason }
        feed(.disconnected)
    }

    /// The session is over for good: the call's connections close and the screen is told why, once.
    private func finish(_ reason: String, serverError: Bool) {
        ended.withLock { $0 = $0 ?? reason }
        guard everJoined.load(ordering: .acquiring), !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        call.signalingLost()
        if serverError { post(.serverError(reason)) }
        post(.signalingLost(reason: reason, retryIn: nil))
    }

    /// The call's signals: our publication's offer and our answers to the subscription's offers go to Janus in its
    /// requests; candidates are in the descriptions already (Janus takes non-trickle descriptions).
    fileprivate func callSignal(_ signal: CallSignalOut) {
        switch signal {
        case .offer(let to, let sdp) where to == SfuRoom.publisher: feed(.publisherOffer(sdp: sdp))
        case .answer(let to, let sdp) where to == SfuRoom.subscriber: feed(.subscriberAnswer(sdp: sdp))
        case .candidate: break
        default: log("no Janus request carries \(signal)")
        }
    }

    fileprivate func feed(_ input: JanusVideoRoomClient.Input) {
        let output = core.withLock { core in
            let output = core.handle(input, now: MonotonicInstant.now)
            deadline.withLock { $0 = output.deadline }
            return output
        }
        for effect in output.effects { carryOut(effect) }
    }

    private func carryOut(_ effect: JanusVideoRoomClient.Effect) {
        switch effect {
        case .send(let bytes):
            guard let client = socket.withLock({ $0 }) else { return }
            do { try client.send(text: String(decoding: bytes, as: UTF8.self)) } catch { connectionLost("Janus send failed: \(error)") }
        case .joined(let feed):
            let you = Self.participant(feed)
            log("joined Janus room \(room) as feed \(feed)")
            joinedAs.withLock { $0 = you }
            call.handle(.joined(you: you, others: []))
            post(.joined(you: you, peers: []))
        case .publisherAnswer(let sdp):
            call.handle(.answer(from: SfuRoom.publisher, sdp: sdp))
        case .subscriberOffer(let sdp, let streams):
            // Inactive sections (a publisher gone) belong to nobody: Janus keeps them until it reuses their mids.
            var map: [String: RemotePeerID] = [:]
            for stream in streams where stream.kind != .data && stream.active {
                if let feed = stream.feed { map[stream.mid] = Self.participant(feed) }
            }
            owners.withLock { $0 = map }
            call.handle(.sections(of: SfuRoom.subscriber, owners: map))
            call.handle(.offer(from: SfuRoom.subscriber, sdp: sdp))
            chooseLayers(newSections: true)
        case .participant(let feed, let display):
            post(.peerJoined(Self.participant(feed), name: display))
            applyDemand { $0.joined(Self.participant(feed)) }
        case .participantLeft(let feed):
            // After a clean `leave` Janus may send no new offer: its sections stop being anyone's now.
            let gone = Self.participant(feed)
            let map = owners.withLock { map in
                map = map.filter { $0.value != gone }
                return map
            }
            call.handle(.sections(of: SfuRoom.subscriber, owners: map))
            post(.peerLeft(gone))
            applyDemand { $0.left(gone) }
        case .participantMedia(let feed, let audio, let video):
            post(.peerMedia(Self.participant(feed), RemoteMediaState(audioMuted: !audio, videoOn: video)))
        case .talking(let feed, let talking):
            log("feed \(feed) \(talking ? "talking" : "stopped talking")")
        case .failed(let reason):
            log(reason)
            finish(reason, serverError: true)
        case .lost(let coreReason):
            log(coreReason)
            let reason = socketTrouble.withLock { t in defer { t = nil }; return t } ?? coreReason
            if stopping.load(ordering: .acquiring) {
                finished.store(true, ordering: .releasing)
            } else if everJoined.load(ordering: .acquiring), settings.reconnect {
                // The reader thread joins again (from the call's event thread too, after a failed send).
                lostReason.withLock { $0 = $0 ?? reason }
            } else {
                finish(reason, serverError: false)
            }
        case .ended:
            finished.store(true, ordering: .releasing)
        case .log(let text):
            log("janus: \(text)")
        }
    }

    func wantPictures(width: Int, height: Int) {
        let changed = wanted.withLock { w in
            defer { w = (width, height) }
            return w.map { $0.width != width || $0.height != height } ?? true
        }
        if changed { chooseLayers(newSections: false) }
    }

    /// Asks Janus for the simulcast layer that fills the pictures we show: on a change of size that changes the
    /// layer, and for every section of a new offer (Janus starts each at its highest layer).
    private func chooseLayers(newSections: Bool) {
        guard let size = wanted.withLock({ $0 }) else { return }
        let fitsLow = Self.lowLayerFits(size)
        let choice = fitsLow ? 0 : 1
        let previous = substream.withLock { s in defer { s = choice }; return s }
        guard newSections || previous != choice else { return }
        if previous != choice {
            log("receiving the \(fitsLow ? "low" : "full") simulcast layer for pictures of \(size.width)x\(size.height)")
            // Said before asking Janus: a publisher that paused the layer we now want starts it again at once.
            sayLayerWish()
        }
        let mids = owners.withLock { Array($0.keys) }
        feed(.setSubstreams(Dictionary(uniqueKeysWithValues: mids.map { ($0, choice) })))
    }

    /// The simulcast encoding we take of every publisher (what `chooseLayers` asks Janus for; the full one until we
    /// know the size we show pictures at).
    private var layerWish: JanusLayerWish {
        guard let size = wanted.withLock({ $0 }) else { return .full }
        return Self.lowLayerFits(size) ? .low : .full
    }

    /// Pictures shown at `size` or smaller are filled by the low encoding.
    private static func lowLayerFits(_ size: (width: Int, height: Int)) -> Bool {
        size.width <= lowLayerSize.width && size.height <= lowLayerSize.height
    }

    /// Says our wish on our publication's channel, if it is open.
    private func sayLayerWish() {
        guard let channel = publication.withLock({ p -> UInt16? in
            guard let channel = p.channel else { return nil }
            p.saidAt = MonotonicInstant.now
            return channel
        }) else { return }
        call.sendData(.text(layerWish.message), to: SfuRoom.publisher, channel: channel)
    }

    /// Takes the data channel events that are about layer wishes (the others' wishes, our publication's channel
    /// opening and closing); true when the event was a wish and is used up. From the call's event thread.
    fileprivate func layerWishes(_ peer: RemotePeerID, _ event: DataChannelEvent) -> Bool {
        switch event {
        case .opened(let id, _, _, _) where peer == SfuRoom.publisher:
            publication.withLock { $0 = (id, nil) }
        case .closed(let id) where peer == SfuRoom.publisher:
            publication.withLock { if $0.channel == id { $0 = (nil, nil) } }
        case .message(_, .text(let bytes)) where peer != SfuRoom.publisher && peer != SfuRoom.subscriber:
            guard let wish = JanusLayerWish.parse(bytes) else { return false }
            applyDemand { $0.heard(wish == .low ? .low : .full, from: peer) }
            return true
        default:
            break
        }
        return false
    }

    /// Changes what we know of the others' wishes and pauses or resumes our encodings to match.
    private func applyDemand(_ change: (inout SimulcastDemand) -> Void) {
        let decision = demand.withLock { d -> (full: Bool, low: Bool)? in
            change(&d.state)
            let layers = d.state.layers
            guard layers != d.applied else { return nil }
            d.applied = layers
            return layers
        }
        guard let layers = decision else { return }
        call.media.pauseLayers(full: !layers.full, low: !layers.low)
        log(layers.full && layers.low ? "simulcast: sending both encodings"
            : "simulcast: sending only the \(layers.full ? "full" : "low") encoding: everyone here takes it")
    }

    /// A publisher's feed id as the call and the screen name it.
    static func participant(_ feed: UInt64) -> RemotePeerID { RemotePeerID(String(feed)) }
}

/// The session, for the call's callbacks, which must exist before the session is fully made: set once, in `init`,
/// before the call starts, and held weakly (the session owns the call, whose callbacks hold this box).
private final class SessionBox: Sendable {
    private struct Reference { weak var session: JanusSession? }
    private let value = Mutex(Reference())
    var session: JanusSession? {
        get { value.withLock { $0.session } }
        set { value.withLock { $0.session = newValue } }
    }
}
