import Foundation
import Synchronization
import EngineMedia
import EngineTransport

/// A call: one `PeerConnection` per remote socketId, driven by one event thread that owns the UDP sockets (one per
/// peer connection and host address), the clock and the decoders, and runs poll() with the nearest deadline as its
/// timeout. Signaling arrives through `handle(_:)` from any thread and leaves through `onSignal` (called on the event
/// thread). Local media comes from one shared `MediaPipeline`.
///
/// This is a driver: who connects to whom, glare, retries and leaving are the room policy's (`Mesh`, a sans-IO
/// `RoomPolicy` tested on a virtual clock). The driver checks what arrives (ids, SDP, candidates) before the policy
/// sees it, feeds it signals, connection states and its deadline, and carries out the actions it returns.
public final class Call: Sendable {
    public enum HostCandidates: String, Sendable {
        /// 127.0.0.1 only, and only loopback remote candidates are used (tests never contact other addresses).
        case loopback
        /// Every usable interface address (HostInterfaces), loopback excluded.
        case all
    }

    public struct Options: Sendable {
        public var hostCandidates: HostCandidates = .all
        /// A STUN server for server-reflexive candidates (RFC 8445 §5.1.1.2); nil gathers host candidates only.
        public var stunServer: TransportAddress?
        /// A TURN server for a relayed candidate per peer connection (RFC 8656); nil relays nothing. The relay pairs
        /// rank below every direct one, so a call uses it only where no direct path works.
        public var turnServer: TurnServer?
        /// Signal candidates only by trickle, none in the SDP (interop tests of trickle).
        public var trickleOnly = false
        public var media = MediaPipeline.Options()
        /// Where the others' audio is played; `.none` (decode for the snapshot only) by default.
        public var playback = PlaybackChoice.none
        public var log: @Sendable (String) -> Void = { _ in }
        public init() {}
    }

    public let options: Options
    public let media: MediaPipeline
    /// Every change a screen shows, in order (peer states, first picture and size, local media); see `CallEvent`.
    public let events = CallEventQueue()
    /// The speaker (nil when `options.playback` is `.none`).
    let playback: CallPlayback?
    private let onSignal: @Sendable (CallSignalOut) -> Void
    /// Tells the room our microphone and camera state (SkyRTC: `__media_state`), on the event thread: once after each
    /// join and whenever mute or video changes, so the others' tiles are told rather than left guessing.
    private let onMediaAnnouncement: @Sendable (LocalMediaState) -> Void
    /// Signaling for the event thread, bounded by `CallLimits.maxQueuedSignals`.
    private let inbox = Mutex<[CallSignalIn]>([])
    private let droppedSignalCount = Atomic<Int>(0)
    private let state = Mutex(Published())
    private let frames = Mutex<[RemotePeerID: VideoFrame]>([:])
    private let running = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(true)
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let origin = ContinuousClock.now

    struct PublishedPeer: Sendable {
        var snapshot: PeerSnapshot
        var recentSamples: [Int16]
    }

    struct Published: Sendable {
        var you: RemotePeerID?
        var peers: [RemotePeerID: PublishedPeer] = [:]
        /// Peers that left, oldest first; only the newest `CallLimits.closedPeerSummaries` stay in `peers`.
        var closedOrder: [RemotePeerID] = []
        /// Connections the event thread holds open.
        var openConnections = 0
    }

    public init(options: Options, onSignal: @escaping @Sendable (CallSignalOut) -> Void,
                onMediaAnnouncement: @escaping @Sendable (LocalMediaState) -> Void = { _ in }) throws(EngineError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .library(name: "libc", call: "pipe", code: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.options = options
        self.onSignal = onSignal
        self.onMediaAnnouncement = onMediaAnnouncement
        let wake = fds[1]
        let events = self.events
        media = try MediaPipeline(options: options.media, onMedia: { Call.wake(wake) },
                                  onLocalChange: { events.push(.localMedia($0)); Call.wake(wake) })
        playback = CallPlayback(options.playback)
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    private static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)   // a full pipe already guarantees a wake-up
    }

    /// Seconds since the call was created.
    public var elapsed: Double { Self.seconds(ContinuousClock.now - origin) }
    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.withLock { $0 = false }
        media.start()
        playback?.start()
        let thread = Thread { [self] in
            let loop = CallEventLoop(call: self)
            loop.run()
            finished.withLock { $0 = true }
        }
        thread.name = "call-events"
        thread.start()
    }

    /// Closes every peer connection, stops the threads and waits for them (up to a few seconds).
    public func stop() {
        media.stop()
        playback?.stop()
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        Self.wake(wakeWrite)
        for _ in 0..<300 where !finished.withLock({ $0 }) { usleep(10_000) }
    }

    /// A signaling message for the call; thread-safe.
    public func handle(_ signal: CallSignalIn) {
        let queued = inbox.withLock { q in
            guard q.count < CallLimits.maxQueuedSignals else { return false }
            q.append(signal)
            return true
        }
        guard queued else {
            droppedSignalCount.add(1, ordering: .relaxed)
            return
        }
        Self.wake(wakeWrite)
    }

    /// Signaling messages dropped because `CallLimits.maxQueuedSignals` were already waiting.
    public var droppedSignals: Int { droppedSignalCount.load(ordering: .relaxed) }

    /// Peers known to the event thread right now (open connections), and the closed ones still summarised:
    /// what the bounds keep (tests of join/leave churn read it).
    public struct Retained: Sendable, Equatable {
        public var openPeers: Int
        public var closedSummaries: Int
        public var queuedSignals: Int
    }

    public var retained: Retained {
        let published = state.withLock { $0 }
        return Retained(openPeers: published.openConnections, closedSummaries: published.closedOrder.count,
                        queuedSignals: inbox.withLock { $0.count })
    }

    /// The call now. `analyseAudio` measures level and dominant frequency over the last ~0.5 s of each peer's
    /// audio here, on the caller's thread (the frequency costs a few ms per peer); `levelsOnly` measures just the
    /// level (microseconds: what a screen refreshing its meters several times a second wants).
    public func snapshot(analyseAudio: Bool = true, levelsOnly: Bool = false) -> CallSnapshot {
        let published = state.withLock { $0 }
        var peers: [RemotePeerID: PeerSnapshot] = [:]
        for (id, p) in published.peers {
            var s = p.snapshot
            if analyseAudio || levelsOnly, !p.recentSamples.isEmpty {
                // The meter wants the last ~100 ms, not the half second the frequency analysis needs.
                s.audio.level = AudioAnalysis.rmsLevel(analyseAudio ? p.recentSamples : Array(p.recentSamples.suffix(4800)))
                if analyseAudio { s.audio.dominantFrequency = AudioAnalysis.dominantFrequency(p.recentSamples) }
            }
            peers[id] = s
        }
        return CallSnapshot(you: published.you, elapsed: elapsed, local: media.snapshot, peers: peers,
                            playback: playback?.snapshot(analyse: analyseAudio))
    }

    /// The latest decoded picture of a peer (for the TUI's tile).
    public func latestFrame(of peer: RemotePeerID) -> VideoFrame? { frames.withLock { $0[peer] } }

    // MARK: event-thread side

    fileprivate var isRunning: Bool { running.load(ordering: .acquiring) }
    fileprivate var wakeFD: Int32 { wakeRead }
    fileprivate func takeInbox() -> [CallSignalIn] { inbox.withLock { q in defer { q = [] }; return q } }
    fileprivate func send(_ signal: CallSignalOut) { onSignal(signal) }
    fileprivate func announce(_ media: LocalMediaState) { onMediaAnnouncement(media) }
    fileprivate func log(_ text: String) { options.log(String(format: "%8.3f ", elapsed) + text) }
    fileprivate func publish(you: RemotePeerID?) { state.withLock { $0.you = you } }
    fileprivate func publish(_ id: RemotePeerID, _ peer: PublishedPeer) {
        state.withLock { s in
            s.peers[id] = peer
            if let i = s.closedOrder.firstIndex(of: id) { s.closedOrder.remove(at: i) }   // open again
        }
    }
    fileprivate func publish(openConnections: Int) { state.withLock { $0.openConnections = openConnections } }
    /// A peer closed: its last snapshot stays among the newest `CallLimits.closedPeerSummaries`, with the level and
    /// dominant frequency of its last audio measured once now instead of its samples (the report of a peer that
    /// left still says what it sounded like, without keeping half a second of audio per summary).
    fileprivate func publishClosed(_ id: RemotePeerID, _ snapshot: PeerSnapshot, lastSamples: [Int16]) {
        var snapshot = snapshot
        if !lastSamples.isEmpty {
            snapshot.audio.level = AudioAnalysis.rmsLevel(lastSamples)
            snapshot.audio.dominantFrequency = AudioAnalysis.dominantFrequency(lastSamples)
        }
        state.withLock { s in
            s.peers[id] = PublishedPeer(snapshot: snapshot, recentSamples: [])
            if let i = s.closedOrder.firstIndex(of: id) { s.closedOrder.remove(at: i) }
            s.closedOrder.append(id)
            while s.closedOrder.count > CallLimits.closedPeerSummaries { s.peers[s.closedOrder.removeFirst()] = nil }
        }
    }
    fileprivate func publish(frame: VideoFrame?, of id: RemotePeerID) { frames.withLock { $0[id] = frame } }
    fileprivate var originInstant: ContinuousClock.Instant { origin }
}

/// Everything the event thread owns. Created on that thread and never shared.
private final class CallEventLoop {
    final class Peer {
        let id: RemotePeerID
        let connection: PeerConnection
        var sockets: [TransportAddress: UdpSocket]
        var deadline: TransportTime?
        let media: RemoteMedia
        let createdAt: Double
        var timeline: [StateChange] = []
        var timeToConnected: Double?
        var gatherer: ServerReflexiveGatherer?
        var relay: PeerRelay?
        /// Server-reflexive candidates found before our description went out wait for it (trickle follows SDP).
        var described = false
        var heldCandidates: [IceCandidate] = []
        var signalledCandidates: [String] = []
        /// The size of the last picture told to the screen (nil before the first).
        var shownSize: (width: Int, height: Int)?
        /// Which encoding this peer receives (`EncodingPlan`); after a switch, frames wait for that encoding's
        /// keyframe, since the peer's decoder has none of the frames the new encoding's deltas refer to.
        var layer = EncodingPlan.Layer.full
        /// A new peer's video starts at a keyframe too.
        var awaitingKeyframe = true
        var samples: [Int16] { media.recentSamples }

        init(id: RemotePeerID, connection: PeerConnection, sockets: [UdpSocket], media: RemoteMedia, createdAt: Double) {
            self.id = id
            self.connection = connection
            self.sockets = Dictionary(sockets.map { ($0.localAddress, $0) }, uniquingKeysWith: { a, _ in a })
            self.media = media
            self.createdAt = createdAt
        }
    }

    let call: Call
    /// Open connections only: a closed peer is released at once (connection with its ICE/DTLS/SRTP state, sockets,
    /// decoders, last picture); what the report needs of it is its published summary (`CallLimits`).
    var peers: [RemotePeerID: Peer] = [:]
    /// The video encodings last planned (nil before any peer connected).
    var encodingPlan: EncodingPlan?
    /// The microphone's and the speaker's notes last logged (a device that fails mid-call changes its note).
    var audioNotes: [String] = []
    var lastPublish = TransportTime.zero
    var lastPlan = TransportTime.zero
    /// The plan last written to the log (`applyEncodingPlan` logs changes of layers or of 10 % in a rate).
    var loggedPlan: EncodingPlan?
    /// How often the encoders' rates follow the peers' estimates: about every frame at 30 frames a second. Every
    /// 200 ms (with the screen's publishing, as before), a decrease reached the encoder up to three 15 fps frames
    /// late, each at the old rate into the bottleneck's queue the decrease was answering.
    static let encodingPlanInterval: Duration = .milliseconds(33)
    /// Mute and video as last announced to the room (nil: not since the last join).
    var announcedMedia: (audioMuted: Bool, videoOn: Bool)?
    /// The room's rules (who offers, glare, retries, leaving); the loop only carries out its actions.
    var policy = Mesh()
    /// What the driver parsed of the message the policy is handling: the policy sees text, parsing is the driver's
    /// check before it, and the policy's actions then use the parsed value instead of parsing twice.
    var parsedDescription: SessionDescription?
    var parsedCandidate: IceCandidate?

    init(call: Call) { self.call = call }

    var now: TransportTime { TransportTime(nanoseconds: (ContinuousClock.now - call.originInstant).nanoseconds) }
    var seconds: Double { Double(now.nanoseconds) / 1e9 }

    func run() {
        while call.isRunning {
            let current = now
            let nearest = (peers.values.flatMap { [$0.deadline, $0.gatherer?.deadline, $0.relay?.deadline] } + [policy.nextDeadline])
                .compactMap { $0 }.min()
            let waitNs = nearest.map { max(0, ($0 - current).nanoseconds) } ?? 100_000_000
            let timeoutMs = Int32(min(100, (waitNs + 999_999) / 1_000_000))
            var order: [(Peer, UdpSocket)] = []
            var fds = [pollfd(fd: call.wakeFD, events: Int16(POLLIN), revents: 0)]
            for peer in peers.values {
                for socket in peer.sockets.values {
                    order.append((peer, socket))
                    fds.append(pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0))
                }
            }
            var streams: [(Peer, PeerRelay)] = []
            for peer in peers.values {
                guard let relay = peer.relay, let stream = relay.stream, relay.brokenReason == nil else { continue }
                streams.append((peer, relay))
                fds.append(pollfd(fd: stream.fd, events: Int16(POLLIN) | (stream.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            _ = Glibc.poll(&fds, nfds_t(fds.count), timeoutMs)
            if fds[0].revents & Int16(POLLIN) != 0 {
                var sink = [UInt8](repeating: 0, count: 256)
                while read(call.wakeFD, &sink, sink.count) > 0 {}
            }
            for signal in call.takeInbox() { handle(signal) }
            announceMediaIfChanged()
            for item in call.media.drain() { send(item) }
            for (i, (peer, socket)) in order.enumerated() where fds[i + 1].revents & Int16(POLLIN) != 0 {
                guard peers[peer.id] === peer else { continue }
                var budget = 256   // other sockets get their turn
                while budget > 0, let (bytes, from) = socket.receive() {
                    budget -= 1
                    if let g = peer.gatherer, g.isResponse(from: from, bytes: bytes) {
                        if let candidate = peer.gatherer!.handle(bytes: bytes) { reflexive(candidate, of: peer) }
                        continue
                    }
                    // Everything from the TURN server's own address is the TURN client's: relayed peers arrive from
                    // relayed addresses (other ports), never from the server's listening one.
                    if let relay = peer.relay, relay.udpSocket === socket, from == relay.server.address {
                        take(relay.handle(.received(bytes), now: now), from: peer)
                        continue
                    }
                    let arrivedAt = socket.ageOfLastDatagram().map { TransportTime(nanoseconds: now.nanoseconds - $0.nanoseconds) }
                    feed(peer, .datagram(from: from, to: socket.localAddress, bytes: bytes, arrivedAt: arrivedAt))
                }
            }
            for (j, (peer, relay)) in streams.enumerated() where fds[order.count + 1 + j].revents != 0 {
                guard peers[peer.id] === peer else { continue }
                take(relay.serviceStream(revents: fds[order.count + 1 + j].revents, now: now), from: peer)
            }
            let t = now
            for peer in Array(peers.values) where peer.deadline.map({ $0 <= t }) ?? false { feed(peer, .timeout) }
            for peer in Array(peers.values) where peer.relay?.deadline.map({ $0 <= t }) ?? false {
                take(peer.relay!.handle(.timeout, now: t), from: peer)
            }
            for peer in peers.values where peer.gatherer?.deadline.map({ $0 <= t }) ?? false {
                for transmit in peer.gatherer!.poll(now: t) { peer.sockets[transmit.from]?.send(transmit.bytes, to: transmit.to) }
            }
            if let due = policy.nextDeadline, due <= t { apply(.timer) }
            if t - lastPublish >= .milliseconds(200) {
                publishAll()
            } else if t - lastPlan >= Self.encodingPlanInterval {
                applyEncodingPlan()
            }
        }
        apply(.leave)
        publishAll()
    }

    // MARK: signaling

    func handle(_ signal: CallSignalIn) {
        if let refusal = Self.refusal(of: signal) {
            call.log("refusing a signaling message: \(refusal)")
            return
        }
        parsedDescription = nil
        parsedCandidate = nil
        switch signal {
        case .offer(let from, let sdp), .answer(let from, let sdp):
            guard let description = parse(sdp, from: from) else { return }
            parsedDescription = description
        case .candidate(let from, let text, _, _):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return }   // end-of-candidates
            let candidate: IceCandidate
            do {
                candidate = try IceCandidate(parsing: trimmed)
            } catch {
                call.log("\(short(from)): ignoring candidate \(RemoteInputLimits.quote(trimmed)): \(error)")
                return
            }
            if candidate.address.ip == nil { call.log("\(short(from)): ignoring mDNS candidate \(candidate.address)") }
            parsedCandidate = candidate
        case .joined, .newPeer, .removePeer: break
        }
        apply(.signal(signal))
        if case .joined = signal {
            call.publish(you: policy.you)
            announcedMedia = nil   // a (re)join is a new socket: the room knows nothing of it yet
            announceMediaIfChanged()
        }
    }

    /// The wake-up that follows a mute or video toggle (the pipeline's `onLocalChange` queues an event and the media
    /// thread wakes us) finds the state changed; nothing is sent before the first `_peers`.
    func announceMediaIfChanged() {
        guard policy.you != nil else { return }
        let now = call.media.localState
        if let last = announcedMedia, last == (now.audioMuted, now.videoOn) { return }
        announcedMedia = (now.audioMuted, now.videoOn)
        call.announce(now)
    }

    /// Feeds the policy one input and carries out what it decides, in order.
    func apply(_ input: RoomInput) {
        for action in policy.handle(input, now: now) { carryOut(action) }
    }

    func carryOut(_ action: RoomAction) {
        switch action {
        case .createConnection(let id, let role):
            guard let peer = makePeer(id) else {
                // Told back as a failure: an offer we owe is retried later, an awaited offer replaces it.
                apply(.connectionState(id, .failed))
                return
            }
            if role == .offerer { feed(peer, .command(.createOffer)) }
        case .closeConnection(let id, let cause):
            closePeer(id, cause: cause)
        case .applyRemoteOffer(let id, _):
            guard let peer = peers[id], let offer = parsedDescription else { return }
            permitRelay(to: offer.allCandidates, of: peer)
            feed(peer, .command(.applyRemoteOffer(offer)))
        case .applyRemoteAnswer(let id, _):
            guard let peer = peers[id], let answer = parsedDescription else { return }
            permitRelay(to: answer.allCandidates, of: peer)
            feed(peer, .command(.applyRemoteAnswer(answer)))
        case .addRemoteCandidate(let id, _):
            guard let peer = peers[id], let candidate = parsedCandidate else { return }
            permitRelay(to: [candidate], of: peer)
            feed(peer, .command(.addRemoteCandidate(candidate)))
        case .send(let signal):
            call.send(signal)
        case .log(let text):
            call.log(text)
        }
    }

    /// Room members' ids become dictionary keys and log prefixes: one that `RemoteInputLimits.peerIDRefusal` refuses
    /// refuses the whole message.
    static func refusal(of signal: CallSignalIn) -> String? {
        let ids: [RemotePeerID] = switch signal {
        case .joined(let you, let others): [you] + others
        case .newPeer(let id), .removePeer(let id): [id]
        case .offer(let id, _), .answer(let id, _), .candidate(let id, _, _, _): [id]
        }
        return ids.lazy.compactMap { RemoteInputLimits.peerIDRefusal($0.rawValue) }.first
    }

    func parse(_ sdp: String, from: RemotePeerID) -> SessionDescription? {
        do {
            return try SessionDescription(parsing: sdp)
        } catch {
            call.log("\(short(from)): unparsable SDP: \(error)")
            return nil
        }
    }

    func short(_ id: RemotePeerID) -> String { String(id.rawValue.prefix(8)) }

    func hostAddresses() -> [IPAddress] {
        switch call.options.hostCandidates {
        case .loopback: return [IPAddress("127.0.0.1")!]
        case .all:
            let list = ((try? HostInterfaces.list(includeLoopback: false)) ?? []).map(\.ip)
            return list.isEmpty ? [IPAddress("127.0.0.1")!] : list
        }
    }

    func makePeer(_ id: RemotePeerID) -> Peer? {
        var sockets: [UdpSocket] = []
        for ip in hostAddresses() {
            do {
                sockets.append(try UdpSocket(bind: TransportAddress(ip: ip, port: 0)))
            } catch {
                call.log("\(short(id)): cannot bind \(ip): \(error)")
            }
        }
        guard !sockets.isEmpty else { return nil }
        var configuration = PeerConnection.Configuration.random(localHosts: sockets.map(\.localAddress))
        configuration.candidatesInDescription = !call.options.trickleOnly
        // No microphone at all: say so in the SDP (audio recvonly, RFC 3264 §5.1) rather than offer a stream that
        // never starts; the peers' audio is still received. Video stays sendrecv: `v` turns it off and on mid-call.
        configuration.sendAudio = call.options.media.audioInput != .none
        if call.options.hostCandidates == .loopback {
            configuration.acceptRemoteAddress = { $0.isLoopback }
        } else {
            configuration.acceptRemoteAddress = { !$0.isLinkLocal }
        }
        do {
            let peer = Peer(id: id, connection: try PeerConnection(configuration: configuration), sockets: sockets,
                            media: try RemoteMedia(), createdAt: seconds)
            peers[id] = peer
            call.publish(openConnections: peers.count)
            if let server = call.options.stunServer {
                peer.gatherer = ServerReflexiveGatherer(server: server, bases: sockets.map(\.localAddress))
            }
            call.log("\(short(id)): connection created on \(sockets.map(\.localAddress.description).joined(separator: ", "))")
            if let server = call.options.turnServer { startRelay(server, for: peer, sockets: sockets) }
            return peer
        } catch {
            call.log("\(short(id)): cannot create a peer connection: \(error)")
            return nil
        }
    }

    func closePeer(_ id: RemotePeerID, cause: String) {
        guard let peer = peers.removeValue(forKey: id) else { return }
        call.publish(openConnections: peers.count)
        call.log("\(short(id)): closing (\(cause))")
        feed(peer, .command(.close))
        // RFC 8656 §8: a Refresh with LIFETIME 0 frees the relay at once rather than after its lifetime. Its answer is
        // not awaited: the sockets close below.
        if let relay = peer.relay { _ = relay.handle(.close, now: now) }
        peer.relay = nil
        call.publishClosed(id, snapshot(of: peer), lastSamples: peer.samples)
        call.publish(frame: nil, of: id)   // a closed connection has no picture to show
        call.playback?.remove(id)           // nor any sound
        peer.sockets = [:]   // closes them
    }

    // MARK: media

    func send(_ item: EncodedMedia) {
        for peer in peers.values where peer.connection.state == .connected {
            switch item {
            case .video(let frame, let layer):
                guard peer.layer == layer else { continue }
                if peer.awaitingKeyframe && !frame.isKeyframe {
                    // The keyframe asked for at DTLS time may have come before the peer counted as connected (and
                    // was not sent to it); keyframes come only on request, so ask again.
                    call.media.requestKeyframe(layer: layer)
                    continue
                }
                peer.awaitingKeyframe = false
                feed(peer, .command(.sendVideo(frame)))
            case .audio(let packet, let isDTX): feed(peer, .command(.sendAudio(packet: packet, isDTX: isDTX)))
            }
        }
    }

    // MARK: the connection's outputs

    func feed(_ peer: Peer, _ input: PeerConnection.Input) {
        let t = now
        let out = peer.connection.handle(input, now: t)
        for transmit in out.transmits {
            if let relay = peer.relay, transmit.from == relay.relayedAddress {
                take(relay.handle(.send(to: transmit.to, bytes: transmit.bytes), now: t), from: peer)
                continue
            }
            (peer.sockets[transmit.from] ?? peer.sockets.values.first)?.send(transmit.bytes, to: transmit.to)
        }
        peer.deadline = out.deadline
        for event in out.events { take(event, from: peer) }
    }

    func take(_ event: PeerConnection.Event, from peer: Peer) {
        switch event {
        case .localDescription(let sd):
            let role = peer.connection.role
            apply(.localSignal(role == .offerer ? .offer(to: peer.id, sdp: sd.sdpText) : .answer(to: peer.id, sdp: sd.sdpText)))
            peer.described = true
            for c in peer.heldCandidates { reflexive(c, of: peer) }
            peer.heldCandidates = []
        case .localCandidate(let c):
            peer.signalledCandidates.append(c.sdpLine)
            apply(.localSignal(.candidate(to: peer.id, candidate: c.sdpLine, mid: c.mid, mLineIndex: c.mLineIndex)))
        case .stateChanged(let s, let cause):
            peer.timeline.appendBounded(StateChange(at: seconds, state: s, cause: cause))
            if s == .connected, peer.timeToConnected == nil { peer.timeToConnected = seconds - peer.createdAt }
            call.log("\(short(peer.id)): \(s.rawValue) (\(cause))")
            call.events.push(.peerState(peer.id, s, cause: cause))
            publish(peer)
            apply(.connectionState(peer.id, s))
        case .selectedPair(let pair):
            call.log("\(short(peer.id)): selected pair \(pair.localBase) -> \(pair.remoteAddress)")
        case .dtlsConnected(let profile):
            call.log("\(short(peer.id)): DTLS connected as \(peer.connection.dtlsRole == .client ? "client" : "server"), SRTP \(profile)")
        case .videoFrame(let frame):
            let wall = UInt32(truncatingIfNeeded: Int64((MediaPipeline.wallClock() * 1000).rounded(.down)))
            if peer.media.decode(frame, now: seconds, wallMillis: wall) {
                if let picture = peer.media.latestFrame {
                    call.publish(frame: picture, of: peer.id)
                    if peer.shownSize.map({ $0 != (picture.width, picture.height) }) ?? true {
                        peer.shownSize = (picture.width, picture.height)
                        call.events.push(.videoSize(peer.id, width: picture.width, height: picture.height))
                    }
                }
            } else {
                call.log("\(short(peer.id)): VP8 decode failed (\(peer.media.lastDecodeError ?? "no reason")), asking for a keyframe")
                feed(peer, .command(.decodeFailed))
            }
        case .audio(let pull):
            if let frame = peer.media.play(pull) { call.playback?.push(frame, from: peer.id) }
        case .keyframeRequested:
            call.media.requestKeyframe(layer: peer.layer)
        case .warning(let text):
            call.log("\(short(peer.id)): \(text)")
        }
    }

    /// Opens the peer's TURN allocation (its relayed candidate follows in `take(_:[TurnEvent]...)`).
    func startRelay(_ server: TurnServer, for peer: Peer, sockets: [UdpSocket]) {
        do {
            guard let relay = try PeerRelay(server: server, sockets: sockets, seed: UInt64.random(in: .min ... .max)) else {
                call.log("\(short(peer.id)): no host address of the TURN server's family: no relayed candidate")
                return
            }
            peer.relay = relay
            call.log("\(short(peer.id)): allocating a relay at \(server.address) over \(server.transport.rawValue)")
            take(relay.handle(.allocate, now: now), from: peer)
        } catch {
            call.log("\(short(peer.id)): cannot reach the TURN server \(server.address): \(error)")
        }
    }

    /// RFC 8656 §9: the relay lets in only peers with a permission. Each remote candidate's IP gets one up front, so
    /// the peer's checks to our relayed address get through even before ours have gone out (the client bounds them).
    func permitRelay(to candidates: [IceCandidate], of peer: Peer) {
        guard let relay = peer.relay else { return }
        for ip in Set(candidates.compactMap(\.address.ip)) where !ip.isLoopback || relay.server.address.ip.isLoopback {
            take(relay.handle(.permit(ip), now: now), from: peer)
        }
    }

    /// What the peer's TURN client reports: the allocation becomes a relay candidate; relayed datagrams enter the
    /// connection as if received on the relayed address.
    func take(_ events: [TurnEvent], from peer: Peer) {
        guard peers[peer.id] === peer, let relay = peer.relay else { return }
        for event in events {
            switch event {
            case .allocated(let relayed, let mapped, let lifetime):
                call.log("\(short(peer.id)): relayed candidate \(relayed) (server saw us at \(mapped.map(\.description) ?? "?"), \(lifetime) s)")
                feed(peer, .command(.addLocalRelayed(relayed: relayed, mapped: mapped)))
            case .data(let from, let bytes):
                guard let relayed = relay.relayedAddress else { continue }
                feed(peer, .datagram(from: from, to: relayed, bytes: bytes))
            case .failed(let reason):
                call.log("\(short(peer.id)): TURN relay failed: \(reason)")
            case .permissionFailed(let ip, let reason):
                call.log("\(short(peer.id)): TURN permission for \(ip) refused: \(reason)")
            case .permissionCreated, .channelBound, .closed:
                break
            }
        }
    }

    /// Trickles a server-reflexive candidate in the first bundled section, once our description is out.
    func reflexive(_ candidate: IceCandidate, of peer: Peer) {
        guard peer.described, let description = peer.connection.localDescription else {
            peer.heldCandidates.append(candidate)
            return
        }
        let (mid, index) = description.trickleSection
        let c = TrickleCandidate(candidate: candidate, mid: mid, mLineIndex: index)
        call.log("\(short(peer.id)): server-reflexive candidate \(candidate.sdpValue)")
        peer.signalledCandidates.append(c.sdpLine)
        apply(.localSignal(.candidate(to: peer.id, candidate: c.sdpLine, mid: c.mid, mLineIndex: c.mLineIndex)))
    }

    func publishAll() {
        lastPublish = now
        let notes = [call.media.snapshot.audioInputNote] + [call.playback?.snapshot(analyse: false).note].compactMap { $0 }
        for note in notes where !audioNotes.contains(note) { call.log(note) }
        audioNotes = notes
        for peer in peers.values { publish(peer) }
        applyEncodingPlan()
    }

    /// Re-plans the encodings from the connected peers' video targets and moves peers whose encoding changed.
    func applyEncodingPlan() {
        lastPlan = now
        var targets: [RemotePeerID: Int] = [:]
        for peer in peers.values where peer.connection.state == .connected {
            if let bps = peer.connection.targetVideoBitrate { targets[peer.id] = bps / 1000 }
        }
        guard !targets.isEmpty else { return }
        let plan = EncodingPlan.make(targets: targets, ceilingKbps: call.media.options.videoBitrateKbps, previous: encodingPlan)
        if loggedPlan.map({ !$0.isClose(to: plan) }) ?? true {
            call.log("video encodings: \(plan.fullKbps) kbit/s" + (plan.lowKbps.map { " and \($0) kbit/s for \(plan.lowPeers.map { short($0) }.sorted())" } ?? ""))
            loggedPlan = plan
        }
        encodingPlan = plan
        call.media.setVideoBitrates(fullKbps: plan.fullKbps, lowKbps: plan.lowKbps)
        for peer in peers.values where peer.layer != plan.layer(of: peer.id) {
            peer.layer = plan.layer(of: peer.id)
            peer.awaitingKeyframe = true
            call.media.requestKeyframe(layer: peer.layer)
        }
    }

    func publish(_ peer: Peer) {
        call.publish(peer.id, Call.PublishedPeer(snapshot: snapshot(of: peer), recentSamples: peer.samples))
    }

    func snapshot(of peer: Peer) -> PeerSnapshot {
        PeerSnapshot(role: peer.connection.role, createdAt: peer.createdAt, timeline: peer.timeline,
                                    timeToConnected: peer.timeToConnected, localCandidates: peer.signalledCandidates,
                                    transport: peer.connection.stats(now: now),
                                    video: peer.media.video, audio: peer.media.audio)
    }
}
