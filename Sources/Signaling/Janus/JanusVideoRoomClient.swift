/// A Janus VideoRoom participant, sans-IO: one publisher handle that joins the room and publishes our offer,
/// and one multistream subscriber handle for everyone else (janus_videoroom.c, Janus 1.x). Inputs and `now` in;
/// frames to send, room events and the next deadline out. No sockets, threads or clock: a driver writes
/// `.send` frames to the WebSocket (subprotocol `janus-protocol`), feeds each text frame back as `.message`,
/// and carries SDP between this core and the call.
public struct JanusVideoRoomClient: Sendable {
    public enum Input: Sendable, Equatable {
        /// The WebSocket to Janus is open: the session is created.
        case connected
        /// One text frame from Janus.
        case message([UInt8])
        /// The WebSocket closed: the session is `.lost` (Janus destroys a session whose transport goes away unless
        /// its `reclaim_session_timeout` is set, and keeps none across a restart), or `.ended` while leaving.
        case disconnected
        /// Our offer to publish (again, for a renegotiation). Kept until the room is joined.
        case publisherOffer(sdp: String)
        /// Our answer to the latest `.subscriberOffer`.
        case subscriberAnswer(sdp: String)
        /// Mute / video off: Janus stops relaying the mids (`configure` with per-mid `send`), and the mids'
        /// descriptions say so to the other participants (`JanusMediaDescription`).
        case setSending(audio: Bool, video: Bool)
        /// Which simulcast layer (Janus's `substream`: 0 the lowest) to receive on each video section of the
        /// subscription, by mid; sent once the subscription is joined, only for sections it has.
        case setSubstreams([String: Int])
        /// Destroy an earlier client's session, lost from under it (sent after `.connected`, unanswered): Janus keeps
        /// a session whose WebSocket it has not seen close (this host's address went away, say) until its
        /// `session_timeout`, and the room would show that publisher, frozen, beside our new one meanwhile. Janus
        /// lets any connection destroy a session by its id (a random 53-bit number only its creator knows).
        case discard(session: UInt64)
        /// Leave the room and destroy the session; `.ended` follows.
        case leave
        /// The output's deadline has passed.
        case timer
    }

    public enum Effect: Sendable, Equatable {
        /// A text frame for the WebSocket, in order.
        case send([UInt8])
        /// We are in the room as publisher `feed`: make the offer (`.publisherOffer`).
        case joined(feed: UInt64)
        case publisherAnswer(sdp: String)
        /// Janus's offer for the subscriber connection; answer with `.subscriberAnswer`. `streams` maps each of its
        /// mids to a feed, and is the only reliable map: Janus reuses freed mids.
        case subscriberOffer(sdp: String, streams: [JanusSubscriberStream])
        /// A publisher is in the room (again when its display name changes). The display name is untrusted text
        /// (bounded, not cleaned): the screen cleans it, the log escapes it.
        case participant(feed: UInt64, display: String?)
        /// It unpublished, left or was kicked.
        case participantLeft(feed: UInt64)
        /// Audio-level events (rooms with `audiolevel_event`); our own feed too.
        case talking(feed: UInt64, Bool)
        /// Which media a publisher sends: from `streams[].disabled` and `streams[].description` (conftui's mute
        /// texts, `JanusMediaDescription`) of `joined` and `publishers` events (Janus re-announces a publisher after
        /// it renegotiates or changes a description), and `moderation` events (the room's admin muted a mid).
        /// Only when it changes.
        case participantMedia(feed: UInt64, audioSending: Bool, videoSending: Bool)
        /// The room refused us or put us out (no such room, full, wrong pin, kicked, destroyed), or Janus broke its
        /// protocol: over for good, in a sentence for the user. Nothing else follows but `.ended` on `.leave`.
        case failed(String)
        /// The session is gone through no decision of the room: the WebSocket closed, Janus timed the session out or
        /// no longer knows it (restarted), or stopped answering. A new client on a new connection may join again
        /// (as a new publisher: Janus gives a session to no one else). Nothing else follows but `.ended` on `.leave`.
        case lost(String)
        /// After `.leave`: the session is destroyed (or Janus did not confirm in time).
        case ended
        /// For the log, already escaped: every message dropped and why, and what Janus reported.
        case log(String)
    }

    public struct Output: Sendable, Equatable {
        public var effects: [Effect]
        /// When to feed `.timer` (nil: no need).
        public var deadline: MonotonicInstant?

        public init(effects: [Effect] = [], deadline: MonotonicInstant? = nil) {
            self.effects = effects
            self.deadline = deadline
        }
    }

    enum Phase: Equatable {
        case idle, creatingSession, attaching, joining, creatingRoom, joined, leaving, ended, failed

        /// A session is being set up or in use: messages and timers matter.
        var isActive: Bool { [.creatingSession, .attaching, .joining, .creatingRoom, .joined].contains(self) }
    }

    private enum Publishing: Equatable { case none, inFlight, published }

    public let configuration: JanusVideoRoomConfiguration
    private(set) var phase = Phase.idle
    private var session: UInt64?
    /// Lost sessions we asked Janus to destroy (`.discard`, the last `maxDiscarded`): their answers are logged, not
    /// taken for ours.
    private var discarded: [UInt64] = []
    /// How many lost sessions are remembered (here, and by a driver between clients): a few rejoins in a row.
    public static let maxDiscarded = 4
    private var publisherHandle: UInt64?
    /// Our publisher id in the room, once joined.
    public private(set) var feed: UInt64?
    private var privateID: UInt64?
    private var transactions = JanusTransactions()
    private var lastSent: MonotonicInstant?
    private var createdRoom = false
    /// Other publishers, at most `limits.maxKnownPublishers`.
    private var publishers: [UInt64: JanusPublisher] = [:]
    private var subscription = JanusSubscription()
    private var lastStreams: [JanusSubscriberStream] = []
    private var publishing = Publishing.none
    /// The offer in flight renegotiates a publication Janus already answered.
    private var renegotiating = false
    /// The latest offer not sent yet (before `joined`, or while the previous one waits for its answer).
    private var offerWaiting: String?
    private var audioMid: String?
    private var videoMid: String?
    private var wantAudio = true, wantVideo = true
    private var sentAudio = true, sentVideo = true
    private var leaveDeadline: MonotonicInstant?

    public init(configuration: JanusVideoRoomConfiguration) {
        self.configuration = configuration
        audioMid = configuration.audioMid
        videoMid = configuration.videoMid
    }

    /// Our Janus session, once created: what a later client `.discard`s when this one is lost.
    public var sessionID: UInt64? { session }

    private var limits: JanusLimits { configuration.limits }
    private var room: UInt64 { configuration.room }

    public mutating func handle(_ input: Input, now: MonotonicInstant) -> Output {
        let effects: [Effect]
        switch input {
        case .connected: effects = connected(now: now)
        case .message(let bytes): effects = received(bytes, now: now)
        case .disconnected: effects = disconnected()
        case .publisherOffer(let sdp): effects = publisherOffer(sdp, now: now)
        case .subscriberAnswer(let sdp): effects = subscriberAnswer(sdp, now: now)
        case .setSending(let audio, let video):
            wantAudio = audio
            wantVideo = video
            effects = publishing == .published && phase == .joined ? applySending(now: now) : []
        case .setSubstreams(let wanted): effects = configureSubstreams(wanted, now: now)
        case .discard(let old): effects = discard(old)
        case .leave: effects = leave(now: now)
        case .timer: effects = timer(now: now)
        }
        return Output(effects: effects, deadline: deadline)
    }

    private var deadline: MonotonicInstant? {
        switch phase {
        case .idle, .ended, .failed: return nil
        case .leaving: return leaveDeadline
        default:
            let keepalive = session == nil ? nil : lastSent.map { $0 + configuration.keepaliveInterval }
            return [transactions.earliestDeadline, keepalive, subscription.nextRetry].compactMap { $0 }.min()
        }
    }

    // MARK: Sending

    private mutating func send(_ kind: JanusTransactions.Kind, now: MonotonicInstant, feeds: [UInt64] = [],
                               _ frame: (String) -> [UInt8]) -> Effect {
        let transaction = transactions.begin(kind, now: now, timeout: configuration.requestTimeout, feeds: feeds)
        lastSent = now
        return .send(frame(transaction))
    }

    /// A VideoRoom request on a handle of our session.
    private mutating func message(_ kind: JanusTransactions.Kind, handle: UInt64, now: MonotonicInstant, feeds: [UInt64] = [],
                                  body: [(String, JSONValue)], jsep: (type: String, sdp: String)? = nil) -> [Effect] {
        guard let session else { return [.log("no session for '\(kind.name)'")] }
        return [send(kind, now: now, feeds: feeds) {
            JanusRequest.message(session: session, handle: handle, transaction: $0, body: body, jsep: jsep)
        }]
    }

    private mutating func fail(_ text: String, sessionAlive: Bool = true, now: MonotonicInstant? = nil) -> [Effect] {
        end(.failed(text), sessionAlive: sessionAlive, now: now)
    }

    private mutating func lose(_ text: String, sessionAlive: Bool = true, now: MonotonicInstant? = nil) -> [Effect] {
        end(.lost(text), sessionAlive: sessionAlive, now: now)
    }

    private mutating func end(_ ending: Effect, sessionAlive: Bool, now: MonotonicInstant?) -> [Effect] {
        var effects: [Effect] = [ending]
        // Best effort, unanswered: Janus would otherwise keep the session's handles for up to 60 s.
        if sessionAlive, let session, let now {
            effects.append(send(.destroy, now: now) { JanusRequest.destroy(session: session, transaction: $0) })
        }
        phase = .failed
        transactions.removeAll()
        return effects
    }

    // MARK: Inputs

    private mutating func connected(now: MonotonicInstant) -> [Effect] {
        guard phase == .idle else { return [.log("ignored .connected: the client is past it")] }
        guard room >= 1, room <= UInt64(JanusChecked.maxID) else {
            return fail("room \(room) is not a Janus room id (1...2^53)", sessionAlive: false)
        }
        let bytes = configuration.display.utf8.count
        guard bytes <= limits.maxDisplayBytes else {
            return fail("the display name is \(bytes) bytes, over \(limits.maxDisplayBytes)", sessionAlive: false)
        }
        phase = .creatingSession
        return [send(.createSession, now: now) { JanusRequest.createSession(transaction: $0) }]
    }

    private mutating func discard(_ old: UInt64) -> [Effect] {
        guard phase.isActive, old != session, (1...UInt64(JanusChecked.maxID)).contains(old) else {
            return [.log("not discarding session \(old): no connection to Janus, or not a lost session")]
        }
        discarded = Array((discarded + [old]).suffix(Self.maxDiscarded))
        // Outside `transactions`: nothing waits for the answer, and a timeout of it would be no failure of ours.
        return [.send(JanusRequest.destroy(session: old, transaction: "discard-\(old)"))]
    }

    private mutating func disconnected() -> [Effect] {
        switch phase {
        case .leaving:
            phase = .ended
            return [.ended]
        case .idle, .ended, .failed:
            return []
        default:
            return lose("the connection to Janus closed unexpectedly", sessionAlive: false)
        }
    }

    private mutating func publisherOffer(_ sdp: String, now: MonotonicInstant) -> [Effect] {
        guard phase.isActive else { return [.log("ignored our offer: not in a room")] }
        guard !sdp.isEmpty else { return [.log("ignored an empty offer")] }
        learnMids(sdp)
        guard phase == .joined, publishing != .inFlight else {
            offerWaiting = sdp
            return []
        }
        return sendOffer(sdp, now: now)
    }

    private mutating func sendOffer(_ sdp: String, now: MonotonicInstant) -> [Effect] {
        guard let handle = publisherHandle else { return [] }
        offerWaiting = nil
        // "publish ... will fail if you're already publishing something": a renegotiation is a `configure`.
        renegotiating = publishing != .none
        let request = renegotiating ? "configure" : "publish"
        publishing = .inFlight
        return message(.publish, handle: handle, now: now, body: [("request", .string(request))], jsep: ("offer", sdp))
    }

    /// The first `a=mid` of our offer's audio and video sections, unless the configuration named them.
    private mutating func learnMids(_ sdp: String) {
        var kind = ""
        // By scalars: "\r\n" is one Character, which a split on "\n" would never see.
        for scalars in sdp.unicodeScalars.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = String(scalars)
            if line.hasPrefix("m=") {
                kind = String(line.dropFirst(2).prefix { $0 != " " })
            } else if line.hasPrefix("a=mid:") {
                let mid = String(line.dropFirst(6))
                guard !mid.isEmpty, mid.utf8.count <= limits.maxMidBytes else { continue }
                if kind == "audio", configuration.audioMid == nil, audioMid == nil { audioMid = mid }
                if kind == "video", configuration.videoMid == nil, videoMid == nil { videoMid = mid }
            }
        }
    }

    /// One SDP-less `configure` with `streams: [{mid, send}]` and `descriptions: [{mid, description}]`. The
    /// first stops Janus relaying the mid but tells no one; the second is re-announced to every other participant
    /// (a `publishers` event with `streams[].description`), which is how they learn it (`JanusMediaDescription`).
    private mutating func applySending(now: MonotonicInstant) -> [Effect] {
        guard wantAudio != sentAudio || wantVideo != sentVideo, let handle = publisherHandle else { return [] }
        var streams: [JSONValue] = []
        var descriptions: [JSONValue] = []
        for (mid, kind, sending) in [(audioMid, JanusMediaKind.audio, wantAudio), (videoMid, .video, wantVideo)] {
            guard let mid else { continue }
            streams.append(.object([("mid", .string(mid)), ("send", .bool(sending))]))
            descriptions.append(.object([("mid", .string(mid)),
                                         ("description", .string(JanusMediaDescription.ours(kind, sending: sending)))]))
        }
        guard !streams.isEmpty else { return [.log("cannot change what we send: our offer's mids are not known")] }
        sentAudio = wantAudio
        sentVideo = wantVideo
        return message(.configureSending, handle: handle, now: now,
                       body: [("request", .string("configure")), ("streams", .array(streams)),
                              ("descriptions", .array(descriptions))])
    }

    /// "substream: substream to receive (0-2), in case simulcasting is enabled" (janus_videoroom.c, subscriber
    /// `configure`, per stream by `mid`). Sections Janus no longer lists are left out.
    private mutating func configureSubstreams(_ wanted: [String: Int], now: MonotonicInstant) -> [Effect] {
        guard phase == .joined, case .joined(let handle) = subscription.handle else { return [] }
        let video = Set(lastStreams.filter { $0.kind == .video && $0.active }.map(\.mid))
        let streams: [JSONValue] = wanted.keys.sorted().compactMap { mid in
            guard video.contains(mid), let substream = wanted[mid], (0...2).contains(substream) else { return nil }
            return .object([("mid", .string(mid)), ("substream", .integer(Int64(substream)))])
        }
        guard !streams.isEmpty else { return [] }
        return message(.configureSubscription, handle: handle, now: now,
                       body: [("request", .string("configure")), ("streams", .array(streams))])
    }

    private mutating func subscriberAnswer(_ sdp: String, now: MonotonicInstant) -> [Effect] {
        guard phase == .joined, case .joined(let handle) = subscription.handle else {
            return [.log("ignored a subscriber answer: no subscriber offer to answer")]
        }
        guard !sdp.isEmpty else { return [.log("ignored an empty subscriber answer")] }
        // "to send the answer, just use the same start request" (for `attached` and every `updated` offer).
        return message(.start, handle: handle, now: now, body: [("request", .string("start"))], jsep: ("answer", sdp))
    }

    private mutating func leave(now: MonotonicInstant) -> [Effect] {
        switch phase {
        case .ended, .leaving:
            return []
        case .idle, .failed:
            phase = .ended
            return [.ended]
        default:
            guard let session else {
                phase = .ended
                return [.ended]
            }
            transactions.removeAll()
            var effects: [Effect] = []
            if let handle = publisherHandle, phase == .joined {
                effects += message(.leave, handle: handle, now: now, body: [("request", .string("leave"))])
            }
            effects.append(send(.destroy, now: now) { JanusRequest.destroy(session: session, transaction: $0) })
            phase = .leaving
            leaveDeadline = now + configuration.leaveTimeout
            return effects
        }
    }

    private mutating func timer(now: MonotonicInstant) -> [Effect] {
        if phase == .leaving, let leaveDeadline, now >= leaveDeadline {
            phase = .ended
            return [.log(JanusFailureText.timeout(request: "destroy", seconds: configuration.leaveTimeout)), .ended]
        }
        guard phase.isActive else { return [] }
        var effects: [Effect] = []
        var requeued = false
        for pending in transactions.expire(now: now) {
            let text = JanusFailureText.timeout(request: pending.kind.name, seconds: configuration.requestTimeout)
            switch pending.kind {
            case .configureSending, .configureSubscription, .start, .leave, .destroy, .subscribe:
                // A `subscribe` Janus may still carry out is not sent again: that would be a second m-line.
                effects.append(.log(text))
            case .joinSubscriber:
                // That handle is given up (anything it says later is not ours); a new one asks for the feeds.
                subscription.handle = .none
                subscription.failed(pending.feeds, stillKnown: { publishers[$0]?.hasMedia == true }, now: now, refused: false)
                requeued = true
                effects.append(.log(text))
            default:
                // Janus did not answer a request the session cannot do without: a new session may fare better.
                return effects + lose(text, now: now)
            }
        }
        if let due = subscription.nextRetry, due <= now {
            subscription.retryDue(now: now) { publishers[$0]?.hasMedia == true }
            requeued = true
        }
        if requeued { effects += flushSubscription(now: now) }
        if let session, let lastSent, now - lastSent >= configuration.keepaliveInterval {
            effects.append(send(.keepalive, now: now) { JanusRequest.keepalive(session: session, transaction: $0) })
        }
        return effects
    }

    // MARK: Messages from Janus

    private mutating func received(_ bytes: [UInt8], now: MonotonicInstant) -> [Effect] {
        guard phase.isActive || phase == .leaving else { return [.log("ignored a message from Janus: not in a session")] }
        let inbound: JanusInbound
        let named: UInt64?
        do {
            (inbound, named) = try JanusInbound.parse(bytes, limits: limits)
        } catch {
            return [.log("dropped a message from Janus: \(error.reason)")]
        }
        if let named, discarded.contains(named), named != session {
            let answer = if case .success = inbound { "destroyed" } else { "already gone" }
            return [.log("Janus: our lost session \(named): \(answer)")]
        }
        if let named, let session, named != session {
            return [.log("dropped a message for session \(named), not ours")]
        }
        if phase == .leaving { return leavingMessage(inbound) }
        switch inbound {
        case .success(let transaction, let id, let sender, let data):
            return success(transaction, id: id, sender: sender, data: data, now: now)
        case .ack(let transaction):
            if let pending = transactions.peek(transaction) {
                if pending.kind.endsWithAck { _ = transactions.finish(transaction) }
                return []
            }
            return [.log("ignored an ack for an unknown transaction")]
        case .error(let transaction, let code, let reason):
            return coreError(transaction, code: code, reason: JanusChecked.shown(reason, maxBytes: limits.maxReasonBytes), now: now)
        case .event(let transaction, let sender, let data, let jsep):
            return event(transaction, sender: sender, data: data, jsep: jsep, now: now)
        case .webrtcUp(let sender):
            return [.log("Janus: the \(handleName(sender)) PeerConnection is up")]
        case .media(let sender, let kind, let receiving):
            return [.log("Janus: \(receiving ? "receiving" : "not receiving") \(JanusChecked.shown(kind, maxBytes: 16)) on the \(handleName(sender))")]
        case .slowLink(let sender, let uplink, let lost):
            return [.log("Janus: slow link on the \(handleName(sender)) (\(uplink ? "uplink" : "downlink"), \(lost.map(String.init) ?? "?") lost)")]
        case .hangup(let sender, let reason):
            return [.log("Janus: the \(handleName(sender)) PeerConnection hung up (\(JanusChecked.shown(reason, maxBytes: limits.maxReasonBytes)))")]
        case .detached(let sender):
            return detached(sender, now: now)
        case .timeout(let timedOut):
            guard timedOut == session else { return [.log("ignored a timeout of another session")] }
            return lose("Janus timed out our session (no request for its session_timeout)", sessionAlive: false)
        case .other(let kind):
            return [.log("ignored Janus '\(JanusChecked.shown(kind, maxBytes: 32))'")]
        }
    }

    private mutating func leavingMessage(_ inbound: JanusInbound) -> [Effect] {
        switch inbound {
        case .success(let transaction, _, _, _), .error(let transaction?, _, _):
            guard transactions.finish(transaction)?.kind == .destroy else { return [] }
            phase = .ended
            return [.ended]
        case .timeout:
            phase = .ended
            return [.ended]
        default:
            return []
        }
    }

    private func handleName(_ sender: UInt64) -> String {
        if sender == publisherHandle { return "publisher" }
        if sender == subscription.handle.id { return "subscriber" }
        return "unknown handle's"
    }

    private mutating func success(_ transaction: String, id: UInt64?, sender: UInt64?, data: JSONValue?,
                                  now: MonotonicInstant) -> [Effect] {
        guard let pending = transactions.peek(transaction) else {
            return [.log("ignored a success for an unknown transaction")]
        }
        if pending.kind.isPluginRequest {
            // A VideoRoom request answered at once: `create` always; the others only when refused outright.
            guard let data else { return [.log("ignored a success without plugin data for '\(pending.kind.name)'")] }
            return event(transaction, sender: sender ?? 0, data: data, jsep: nil, now: now)
        }
        _ = transactions.finish(transaction)
        switch pending.kind {
        case .createSession:
            guard phase == .creatingSession, let id else { return fail("Janus answered 'create' without a session id", now: now) }
            session = id
            phase = .attaching
            return [send(.attachPublisher, now: now) { JanusRequest.attach(session: id, transaction: $0) }]
        case .attachPublisher:
            guard phase == .attaching, let id else { return fail("Janus answered 'attach' without a handle id", now: now) }
            publisherHandle = id
            return join(now: now)
        case .attachSubscriber:
            guard let id else { return fail("Janus answered 'attach' without a handle id", now: now) }
            subscription.handle = .attached(id)
            return flushSubscription(now: now)
        default:
            return []
        }
    }

    private mutating func join(now: MonotonicInstant) -> [Effect] {
        guard let handle = publisherHandle else { return [] }
        phase = .joining
        var body: [(String, JSONValue)] = [("request", .string("join")), ("ptype", .string("publisher")),
                                           ("room", JanusRequest.id(room)), ("display", .string(configuration.display))]
        if let pin = configuration.pin { body.append(("pin", .string(pin))) }
        return message(.joinPublisher, handle: handle, now: now, body: body)
    }

    private mutating func coreError(_ transaction: String?, code: Int, reason: String, now: MonotonicInstant) -> [Effect] {
        guard let transaction, let pending = transactions.finish(transaction) else {
            return [.log("Janus error \(code) for no request of ours: \(reason)")]
        }
        let text = JanusFailureText.core(request: pending.kind.name, code: code, reason: reason)
        // Without the session (458) or our publisher handle (459) nothing more can work.
        if code == 458 { return lose(text, sessionAlive: false) }
        if code == 459, [.publish, .configureSending, .leave].contains(pending.kind) { return lose(text, now: now) }
        switch pending.kind {
        case .configureSending, .configureSubscription, .start, .leave, .destroy:
            return [.log(text)]
        case .joinSubscriber, .subscribe:
            return subscriptionFailed(pending, text: text, now: now)
        default:
            return fail(text, sessionAlive: code != 458, now: now)
        }
    }

    private mutating func detached(_ sender: UInt64, now: MonotonicInstant) -> [Effect] {
        if sender == publisherHandle {
            return lose("Janus detached our publisher handle", now: now)
        }
        guard sender == subscription.handle.id else { return [.log("ignored a detach of a handle not ours")] }
        // A new subscriber handle for every feed still published (each feed is tried at most a few times).
        let feeds = publishers.values.filter(\.hasMedia).map(\.feed).sorted()
        subscription.handle = .none
        subscription.failed(feeds, stillKnown: { publishers[$0]?.hasMedia == true }, now: now, refused: false)
        return [.log("Janus detached our subscriber handle")] + flushSubscription(now: now)
    }

    private mutating func event(_ transaction: String?, sender: UInt64, data: JSONValue, jsep: JanusInbound.JSEP?,
                                now: MonotonicInstant) -> [Effect] {
        if let transaction, transactions.peek(transaction) == nil {
            return [.log("ignored an event for an unknown transaction")]
        }
        let parsed: JanusVideoRoomEvent
        let notes: [String]
        do {
            (parsed, notes) = try JanusVideoRoomEvent.parse(data, limits: limits)
        } catch {
            // The request it answers, if any, keeps waiting: a garbled answer is no answer, and times out.
            return [.log("dropped a VideoRoom event: \(error.reason)")]
        }
        let pending = transaction.flatMap { transactions.finish($0) }
        let logs = notes.map(Effect.log)
        // Requests answered synchronously carry no sender of interest; their kind says which handle they were for.
        let kind = pending?.kind
        let forPublisher = sender == publisherHandle || [.joinPublisher, .createRoom, .publish].contains(kind)
        if forPublisher, publisherHandle != nil {
            return logs + publisherEvent(parsed, kind: kind, jsep: jsep, now: now)
        }
        if sender == subscription.handle.id || [.joinSubscriber, .subscribe, .start].contains(kind) {
            return logs + subscriberEvent(parsed, pending: pending, jsep: jsep, now: now)
        }
        return logs + [.log("ignored an event from a handle not ours")]
    }

    // MARK: The publisher handle

    private mutating func publisherEvent(_ event: JanusVideoRoomEvent, kind: JanusTransactions.Kind?,
                                         jsep: JanusInbound.JSEP?, now: MonotonicInstant) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .error(let code, let rawReason):
            let reason = JanusChecked.shown(rawReason, maxBytes: limits.maxReasonBytes)
            switch kind {
            case .joinPublisher?:
                if code == 426, configuration.createRoomIfMissing, !createdRoom, let handle = publisherHandle {
                    createdRoom = true
                    phase = .creatingRoom
                    var body: [(String, JSONValue)] = [
                        ("request", .string("create")), ("room", JanusRequest.id(room)),
                        ("publishers", .integer(Int64(configuration.roomPublishers))),
                        ("audiolevel_event", .bool(configuration.roomAudioLevelEvents)),
                        ("fir_freq", .integer(Int64(configuration.roomFirFrequency))),
                        ("audiocodec", .string(configuration.roomAudioCodec)), ("videocodec", .string(configuration.roomVideoCodec)),
                    ]
                    if let pin = configuration.pin { body.append(("pin", .string(pin))) }
                    return [.log("room \(room) does not exist: creating it")] + message(.createRoom, handle: handle, now: now, body: body)
                }
                return fail(JanusFailureText.join(room: room, code: code, reason: reason), now: now)
            case .createRoom?:
                // 427 "Room already exists": another client created it first.
                if code == 427 { return [.log("room \(room) was created meanwhile: joining it")] + join(now: now) }
                return fail(JanusFailureText.createRoom(room: room, code: code, reason: reason), now: now)
            case .publish? where renegotiating:
                // The first offer's session still stands.
                publishing = .published
                return [.log("Janus refused our renegotiation: \(reason) (\(code))")]
            case .publish?:
                return fail(JanusFailureText.publish(room: room, code: code, reason: reason), now: now)
            case let other?:
                return [.log("Janus refused '\(other.name)': \(reason) (\(code))")]
            case nil:
                return [.log("Janus error on the publisher handle: \(reason) (\(code))")]
            }
        case .created:
            guard kind == .createRoom else { return [.log("ignored an unexpected 'created'")] }
            effects += [.log("created room \(room)")] + join(now: now)
        case .joined(let feed, let privateID, let list):
            guard phase == .joining, kind == .joinPublisher else { return [.log("ignored an unexpected 'joined'")] }
            self.feed = feed
            self.privateID = privateID
            phase = .joined
            effects.append(.joined(feed: feed))
            effects += addPublishers(list, now: now)
            if let offer = offerWaiting { effects += sendOffer(offer, now: now) }
        case .notice(let notice):
            effects += roomNotice(notice, now: now)
            if phase == .failed { return effects }
        case .talking(let feed, let talking):
            effects.append(.talking(feed: feed, talking))
        case .destroyed:
            return fail("room \(room) was destroyed", now: now)
        case .attached, .updated, .updating, .other:
            effects.append(.log("ignored an unexpected VideoRoom event on the publisher handle"))
        }
        if let jsep {
            if jsep.isOffer || publishing != .inFlight {
                effects.append(.log("ignored an unexpected \(jsep.isOffer ? "offer" : "answer") on the publisher handle"))
            } else {
                publishing = .published
                effects.append(.publisherAnswer(sdp: jsep.sdp))
                effects += applySending(now: now)
                if let offer = offerWaiting { effects += sendOffer(offer, now: now) }
            }
        }
        return effects
    }

    private mutating func roomNotice(_ notice: JanusVideoRoomEvent.Notice, now: MonotonicInstant) -> [Effect] {
        var effects: [Effect] = []
        if notice.weWereKicked { return fail("kicked from room \(room)", sessionAlive: true, now: now) }
        if !notice.publishers.isEmpty { effects += addPublishers(notice.publishers, now: now) }
        for gone in [notice.unpublished, notice.leaving, notice.kicked].compactMap({ $0 }) {
            effects += removePublisher(gone)
        }
        if let (feed, display) = notice.renamed, var publisher = publishers[feed], publisher.display != display {
            publisher.display = display
            publishers[feed] = publisher
            effects.append(.participant(feed: feed, display: display))
        }
        if let (feed, mid, muted) = notice.moderation {
            if feed == self.feed { effects.append(.log("the room's admin \(muted ? "muted" : "unmuted") our mid \(JanusChecked.shown(mid, maxBytes: 64))")) }
            if var publisher = publishers[feed], let index = publisher.streams.firstIndex(where: { $0.mid == mid }) {
                let before = (publisher.audioSending, publisher.videoSending)
                publisher.streams[index].moderated = muted
                publishers[feed] = publisher
                if before != (publisher.audioSending, publisher.videoSending) {
                    effects.append(.participantMedia(feed: feed, audioSending: publisher.audioSending, videoSending: publisher.videoSending))
                }
            }
        }
        return effects
    }

    private mutating func addPublishers(_ list: [JanusPublisher], now: MonotonicInstant) -> [Effect] {
        var effects: [Effect] = []
        for publisher in list where publisher.feed != feed {
            if let old = publishers[publisher.feed] {
                if old.display != publisher.display { effects.append(.participant(feed: publisher.feed, display: publisher.display)) }
                if old.audioSending != publisher.audioSending || old.videoSending != publisher.videoSending {
                    effects.append(.participantMedia(feed: publisher.feed, audioSending: publisher.audioSending,
                                                     videoSending: publisher.videoSending))
                }
            } else {
                guard publishers.count < limits.maxKnownPublishers else {
                    effects.append(.log("ignored publisher \(publisher.feed): already \(limits.maxKnownPublishers) in the room"))
                    continue
                }
                effects.append(.participant(feed: publisher.feed, display: publisher.display))
                effects.append(.participantMedia(feed: publisher.feed, audioSending: publisher.audioSending,
                                                 videoSending: publisher.videoSending))
            }
            publishers[publisher.feed] = publisher
            if publisher.hasMedia { subscription.want(publisher.feed) }
        }
        return effects + flushSubscription(now: now)
    }

    private mutating func removePublisher(_ feed: UInt64) -> [Effect] {
        subscription.forget(feed)
        guard publishers.removeValue(forKey: feed) != nil else { return [] }
        return [.participantLeft(feed: feed)]
    }

    // MARK: The subscriber handle

    /// Asks for the queued feeds: a new handle, its `join`, or a `subscribe`; never waits for an offer.
    private mutating func flushSubscription(now: MonotonicInstant) -> [Effect] {
        guard phase == .joined, let session, !subscription.queued.isEmpty else { return [] }
        switch subscription.handle {
        case .none:
            subscription.handle = .attaching
            return [send(.attachSubscriber, now: now) { JanusRequest.attach(session: session, transaction: $0) }]
        case .attaching, .joining:
            // Asked for once the handle is attached, or once `attached` answers the join.
            return []
        case .attached(let handle):
            let feeds = subscription.take()
            subscription.handle = .joining(handle)
            var body: [(String, JSONValue)] = [("request", .string("join")), ("ptype", .string("subscriber")),
                                               ("room", JanusRequest.id(room)), ("use_msid", .bool(false)),
                                               ("streams", JanusRequest.feeds(feeds))]
            if let privateID { body.append(("private_id", JanusRequest.id(privateID))) }
            if let pin = configuration.pin { body.append(("pin", .string(pin))) }
            return message(.joinSubscriber, handle: handle, now: now, feeds: feeds, body: body)
        case .joined(let handle):
            let feeds = subscription.take()
            return message(.subscribe, handle: handle, now: now, feeds: feeds,
                           body: [("request", .string("subscribe")), ("streams", JanusRequest.feeds(feeds))])
        }
    }

    private mutating func subscriptionFailed(_ pending: JanusTransactions.Pending, text: String, now: MonotonicInstant) -> [Effect] {
        if pending.kind == .joinSubscriber, case .joining(let handle) = subscription.handle {
            subscription.handle = .attached(handle)
        }
        subscription.failed(pending.feeds, stillKnown: { publishers[$0]?.hasMedia == true }, now: now)
        return [.log(text)] + flushSubscription(now: now)
    }

    private mutating func subscriberEvent(_ event: JanusVideoRoomEvent, pending: JanusTransactions.Pending?,
                                          jsep: JanusInbound.JSEP?, now: MonotonicInstant) -> [Effect] {
        let offer = jsep?.isOffer == true ? jsep?.sdp : nil
        switch event {
        case .error(let code, let reason):
            let text = "Janus refused '\(pending?.kind.name ?? "?")' on the subscriber handle: \(JanusChecked.shown(reason, maxBytes: limits.maxReasonBytes)) (\(code))"
            guard let pending, pending.kind != .start, pending.kind != .configureSubscription else { return [.log(text)] }
            return subscriptionFailed(pending, text: text, now: now)
        case .attached(let streams):
            guard case .joining(let handle) = subscription.handle else { return [.log("ignored an unexpected 'attached'")] }
            subscription.handle = .joined(handle)
            lastStreams = streams
            for feed in streams.compactMap(\.feed) { subscription.carried(feed) }
            var effects: [Effect] = []
            if let offer { effects.append(.subscriberOffer(sdp: offer, streams: streams)) } else {
                effects.append(.log("Janus sent 'attached' without an offer"))
            }
            return effects + flushSubscription(now: now)
        case .updated(let streams):
            guard case .joined = subscription.handle else { return [.log("ignored an 'updated' before 'attached'")] }
            if let streams {
                lastStreams = streams
                for feed in streams.compactMap(\.feed) { subscription.carried(feed) }
            }
            // A feed that waited to be asked for alone goes now that the request before it is answered.
            guard let offer else { return [.log("Janus: subscription updated without a new offer")] + flushSubscription(now: now) }
            return [.subscriberOffer(sdp: offer, streams: lastStreams)] + flushSubscription(now: now)
        case .updating:
            // "the management of that request has been postponed": the offer comes later, or with another.
            return [.log("Janus postponed a subscription update")]
        case .notice, .other, .created, .joined, .talking, .destroyed:
            return offer == nil ? [] : [.log("ignored an offer outside 'attached' or 'updated'")]
        }
    }
}
