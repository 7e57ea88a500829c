import Foundation
import Synchronization
import EngineMedia
import EngineTransport

/// A call's driver: one event thread owns a `CallCore` (every rule of the call, sans-IO), the UDP sockets it asks
/// for, the TCP streams to a TURN server and the clock, and runs poll() with the core's deadline. Signaling arrives
/// through `handle(_:)` from any thread and leaves through `onSignal` (on the event thread); local media comes from
/// one shared `MediaPipeline`; each participant's decoders run on a `DecodeWorker` of their own.
public final class Call: Sendable {
    public let options: Options
    public let media: MediaPipeline
    /// Every change a screen shows, in order (peer states, first picture and size, local media); see `CallEvent`.
    public let events = CallEventQueue()
    /// The speaker (nil when `options.playback` is `.none`).
    let playback: CallPlayback?
    private let policy: any RoomPolicy
    private let onSignal: @Sendable (CallSignalOut) -> Void
    /// Tells the room our microphone and camera state (SkyRTC: `__media_state`), on the event thread.
    private let onMediaAnnouncement: @Sendable (LocalMediaState) -> Void
    /// Data-channel events (opened, messages, queued bytes, closed), on the event thread, as they happen: chat round
    /// trips are measured in milliseconds, so nothing polls for them.
    private let onData: @Sendable (RemotePeerID, DataChannelEvent) -> Void
    /// Inputs for the event thread from other threads, bounded by `CallLimits.maxQueuedSignals`.
    private let inbox = Mutex<[CallCore.Input]>([])
    private let droppedSignalCount = Atomic<Int>(0)
    fileprivate let published = Mutex(CallPublication())
    fileprivate let decoders = Mutex<[RemotePeerID: DecodeWorker]>([:])
    fileprivate let openConnections = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(true)
    fileprivate let wakePipe: WakePipe
    private let origin = MonotonicClock.nanoseconds()

    public init(options: Options, policy: some RoomPolicy = Mesh(), onSignal: @escaping @Sendable (CallSignalOut) -> Void,
                onMediaAnnouncement: @escaping @Sendable (LocalMediaState) -> Void = { _ in },
                onData: @escaping @Sendable (RemotePeerID, DataChannelEvent) -> Void = { _, _ in }) throws(EngineError) {
        let (events, wake) = (self.events, try WakePipe())
        wakePipe = wake
        (self.options, self.policy, self.onSignal, self.onMediaAnnouncement) = (options, policy, onSignal, onMediaAnnouncement)
        self.onData = onData
        media = try MediaPipeline(options: options.media, onMedia: { wake.wake() },
                                  onLocalChange: { events.push(.localMedia($0)); wake.wake() })
        playback = CallPlayback(options.playback)
    }

    /// Seconds since the call was created.
    public var elapsed: Double { now.seconds }
    fileprivate var now: TransportTime { TransportTime(nanoseconds: MonotonicClock.nanoseconds() - origin) }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.withLock { $0 = false }
        media.start()
        playback?.start()
        let thread = Thread { [self] in
            CallLoop(call: self, core: CallCore(configuration: options.coreConfiguration, policy: policy)).run()
            finished.withLock { $0 = true }
        }
        thread.name = "call-events"
        thread.start()
    }

    /// Closes every connection, stops the threads and waits for them (up to a few seconds).
    public func stop() {
        media.stop()
        playback?.stop()
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        wakePipe.wake()
        for _ in 0..<300 where !finished.withLock({ $0 }) { usleep(10_000) }
    }

    /// A signaling message for the call; thread-safe.
    public func handle(_ signal: CallSignalIn) { enqueue(.signal(signal)) }

    /// The signaling connection is gone (the room forgot us): the room policy closes what that ends. Thread-safe.
    public func signalingLost() { enqueue(.signalingLost) }

    /// The machine's addresses changed (whoever watches them says so); thread-safe. Every connection moves to the
    /// addresses there are now and restarts ICE on them (`CallCore.Input.hostAddressesChanged`).
    public func hostAddressesChanged() { enqueue(.hostAddressesChanged) }

    /// A message on `peer`'s data channel `channel`; thread-safe. Pace large sends by the channel's queued bytes
    /// (`DataChannelEvent.buffered`): the inbox is bounded and drops what does not fit.
    public func sendData(_ message: DataChannels.Message, to peer: RemotePeerID, channel: UInt16) {
        enqueue(.sendData(peer, channel: channel, message))
    }

    /// Caps new data-channel bytes per second on every connection (nil: no cap); thread-safe.
    public func setDataRate(bytesPerSecond: Int?) { enqueue(.setDataRate(bytesPerSecond: bytesPerSecond)) }

    fileprivate func enqueue(_ input: CallCore.Input) {
        let queued = inbox.withLock { q in
            guard q.count < CallLimits.maxQueuedSignals else { return false }
            q.append(input)
            return true
        }
        if queued { wakePipe.wake() } else { droppedSignalCount.add(1, ordering: .relaxed) }
    }

    /// Signaling messages dropped because `CallLimits.maxQueuedSignals` were already waiting.
    public var droppedSignals: Int { droppedSignalCount.load(ordering: .relaxed) }
    fileprivate var isRunning: Bool { running.load(ordering: .acquiring) }
    fileprivate func takeInbox() -> [CallCore.Input] { inbox.withLock { q in defer { q = [] }; return q } }
    fileprivate func send(_ signal: CallSignalOut) { onSignal(signal) }
    fileprivate func announce(_ media: LocalMediaState) { onMediaAnnouncement(media) }
    fileprivate func deliver(_ peer: RemotePeerID, _ event: DataChannelEvent) { onData(peer, event) }
    fileprivate func log(_ text: String) { options.log(String(format: "%8.3f ", elapsed) + text) }

    /// The call now. `analyseAudio` measures level and dominant frequency over the last ~0.5 s of each peer's audio
    /// on the caller's thread (a few ms per peer); `levelsOnly` just the level (microseconds: what a meter wants).
    public func snapshot(analyseAudio: Bool = true, levelsOnly: Bool = false) -> CallSnapshot {
        let p = published.withLock { $0 }
        // The peers first: their analysis takes a while, and our own counters then cover everything they saw.
        let peers = p.peers(decoders: decoders.withLock { $0 }, analyseAudio: analyseAudio, levelsOnly: levelsOnly)
        return CallSnapshot(you: p.you, elapsed: elapsed, local: media.snapshot, peers: peers,
                            playback: playback?.snapshot(analyse: analyseAudio), traffic: p.traffic)
    }

    /// The latest decoded picture of a peer's main video, or of its video section `mid` (for the TUI's tiles).
    public func latestFrame(of peer: RemotePeerID, mid: String? = nil) -> VideoFrame? {
        guard let worker = decoders.withLock({ $0[peer] }) else { return nil }
        return mid.map { worker.latestFrame(mid: $0) } ?? worker.latestFrame
    }

    /// What the bounds keep now: open connections, participants summarised after they left, inputs queued.
    public var openConnectionCount: Int { openConnections.load(ordering: .relaxed) }
    public var closedSummaryCount: Int { published.withLock { $0.closedOrder.count } }
    public var queuedInputCount: Int { inbox.withLock { $0.count } }
}

/// The event thread: sockets and streams in, the core's transmits and effects out. Created on that thread only.
private final class CallLoop {
    let call: Call
    let core: CallCore
    var sockets: [TransportAddress: UdpSocket] = [:]
    var socketsOf: [ConnectionID: [TransportAddress]] = [:]
    var streams: [ConnectionID: TcpStream] = [:]
    /// Streams carrying TLS records (`turns:`), where a refused write ends the stream instead of dropping a message.
    var recordStreams: Set<ConnectionID> = []
    var deadline: TransportTime?
    var lastPublish = TransportTime.zero
    /// The microphone's and the speaker's notes last logged (a device that fails mid-call changes its note).
    var audioNotes: [String] = []

    init(call: Call, core: CallCore) { (self.call, self.core) = (call, core) }

    func run() {
        while call.isRunning {
            let waitNs = deadline.map { max(0, ($0 - call.now).nanoseconds) } ?? 100_000_000
            let socketList = Array(sockets.values), streamList = Array(streams)
            var fds = [pollfd(fd: call.wakePipe.readEnd, events: Int16(POLLIN), revents: 0)] + socketList.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                + streamList.map { pollfd(fd: $0.value.fd, events: Int16(POLLIN) | ($0.value.wantsWrite ? Int16(POLLOUT) : 0), revents: 0) }
            _ = Glibc.poll(&fds, nfds_t(fds.count), Int32(min(100, (waitNs + 999_999) / 1_000_000)))
            if fds[0].revents != 0 { call.wakePipe.drain() }
            for input in call.takeInbox() { feed(input) }
            let you = core.you
            call.published.withLock { $0.you = you }
            feed(.localMedia(call.media.localState))
            for item in call.media.drain() { feed(.media(item)) }
            for (i, socket) in socketList.enumerated() where fds[i + 1].revents != 0 && sockets[socket.localAddress] === socket {
                var budget = 256   // other sockets get their turn
                while budget > 0, sockets[socket.localAddress] === socket, let (bytes, from) = socket.receive() {
                    budget -= 1
                    let arrivedAt = socket.ageOfLastDatagram().map { TransportTime(nanoseconds: call.now.nanoseconds - $0.nanoseconds) }
                    feed(.datagram(local: socket.localAddress, from: from, bytes: bytes, arrivedAt: arrivedAt))
                }
            }
            for (j, (id, stream)) in streamList.enumerated() where fds[socketList.count + 1 + j].revents != 0 {
                service(stream, of: id, revents: fds[socketList.count + 1 + j].revents)
            }
            if let due = deadline, due <= call.now { feed(.timeout) }
            if call.now - lastPublish >= .milliseconds(200) { publish() }
        }
        feed(.leave)
        publish()
    }

    /// After poll reported the stream readable, writable or broken: flushes, reads (bounded), and says how it broke.
    func service(_ stream: TcpStream, of id: ConnectionID, revents: Int16) {
        stream.flush()
        for _ in 0..<16 where streams[id] === stream {
            switch stream.read() {
            case .bytes(let bytes): feed(.streamData(id, bytes))
            case .closed(let reason): return feed(.streamClosed(id, reason: reason))
            case .nothing:
                if revents & Int16(POLLERR | POLLHUP) != 0, let error = stream.pendingError() { feed(.streamClosed(id, reason: error)) }
                return
            }
        }
    }

    func feed(_ input: CallCore.Input) {
        let out = core.handle(input, now: call.now)
        deadline = out.deadline   // before the effects: an answer to `.openSockets` brings a newer one
        for t in out.transmits { _ = sockets[t.from]?.send(t.bytes, to: t.to) }
        for effect in out.effects { perform(effect) }
    }

    func perform(_ effect: CallCore.Effect) {
        switch effect {
        case .openSockets(let id): feed(.socketsOpened(id, bind(id)))
        case .rebindSockets(let id): feed(.socketsRebound(id, rebind(id)))
        case .closeSockets(let id):
            for address in socketsOf.removeValue(forKey: id) ?? [] { sockets[address] = nil }
            streams[id] = nil
            recordStreams.remove(id)
            call.openConnections.store(core.openConnections, ordering: .relaxed)
        case .openStream(let id, let server, let records):
            do { streams[id] = try TcpStream(connectTo: server) } catch { feed(.streamClosed(id, reason: "\(error)")) }
            if records { recordStreams.insert(id) } else { recordStreams.remove(id) }
        case .streamWrite(let id, let bytes):
            guard let stream = streams[id], !stream.write(bytes) else { return }
            if recordStreams.contains(id) {
                // A TLS record cannot be skipped (the next one would fail its MAC): the session is over.
                streams[id] = nil
                feed(.streamClosed(id, reason: "the stream fell \(TcpStream.maxQueuedBytes / 1024) KiB behind and TLS cannot drop a record"))
            } else {
                call.log("TURN stream of \(id) is full: a message to the server dropped")
            }
        case .signal(let signal): call.send(signal)
        case .announce(let media): call.announce(media)
        case .event(let event):
            if case .videoStreams(let peer, let mids) = event { call.decoders.withLock { $0[peer] }?.setVideoSections(mids) }
            call.events.push(event)
            publish()
        case .participantOpened(let peer): openDecoder(for: peer)
        case .participantClosed(let peer, let summary):
            guard let worker = call.decoders.withLock({ $0.removeValue(forKey: peer) }) else { return }
            worker.stop()
            call.published.withLock { $0.close(peer, summary, decoded: worker.latest) }
        case .decodeVideo(let peer, let mid, let frame): call.decoders.withLock { $0[peer] }?.decode(frame, mid: mid)
        case .decodeAudio(let peer, let mid, let pull): call.decoders.withLock { $0[peer] }?.play(pull, mid: mid)
        case .requestKeyframe(let layer): call.media.requestKeyframe(layer: layer)
        case .setVideoBitrates(let full, let low): call.media.setVideoBitrates(fullKbps: full, lowKbps: low)
        case .dataChannel(let peer, let event): call.deliver(peer, event)
        case .log(let text): call.log(text)
        }
    }

    /// The addresses a connection's sockets go on: 127.0.0.1 alone for `.loopback`; every interface but loopback,
    /// else 127.0.0.1.
    func hostIPs() -> [IPAddress] {
        let all = call.options.hostCandidates == .all ? ((try? HostInterfaces.list(includeLoopback: false)) ?? []).map(\.ip) : []
        return all.isEmpty ? [IPAddress("127.0.0.1")!] : all
    }

    /// One socket per host address.
    func bind(_ id: ConnectionID) -> [TransportAddress] {
        let bound = hostIPs().compactMap { openSocket(on: $0, for: id) }
        socketsOf[id] = bound
        call.openConnections.store(core.openConnections, ordering: .relaxed)
        return bound
    }

    /// The connection's sockets on the addresses there are now: those on addresses still there stay (their ports are
    /// in the running ICE session), the rest close, and each new address gets one.
    func rebind(_ id: ConnectionID) -> [TransportAddress] {
        let ips = hostIPs()
        var kept: [TransportAddress] = []
        for address in socketsOf[id] ?? [] {
            if ips.contains(address.ip) { kept.append(address) } else { sockets[address] = nil }
        }
        kept += ips.filter { ip in !kept.contains { $0.ip == ip } }.compactMap { openSocket(on: $0, for: id) }
        socketsOf[id] = kept
        return kept
    }

    /// A UDP socket on `ip` (any port) for connection `id`; nil, and a log line, when it cannot be bound.
    private func openSocket(on ip: IPAddress, for id: ConnectionID) -> TransportAddress? {
        do {
            let socket = try UdpSocket(bind: TransportAddress(ip: ip, port: 0))
            sockets[socket.localAddress] = socket
            return socket.localAddress
        } catch {
            call.log("\(id): cannot bind \(ip): \(error)")
            return nil
        }
    }

    func openDecoder(for peer: RemotePeerID) {
        let call = self.call
        let worker = DecodeWorker(peer: peer, playback: call.playback, events: call.events, clock: { call.elapsed }) { mid, reason in
            call.log("\(peer.rawValue.prefix(8)): VP8 decode of section \(mid) failed (\(reason)), asking for a keyframe")
            call.enqueue(.decodeFailed(peer, mid: mid))
        }
        call.decoders.withLock { $0[peer]?.stop(); $0[peer] = worker }
    }

    func publish() {
        lastPublish = call.now
        let notes = [call.media.snapshot.audioInputNote] + [call.playback?.snapshot(analyse: false).note].compactMap { $0 }
        for note in notes where !audioNotes.contains(note) { call.log(note) }
        audioNotes = notes
        let summaries = core.summaries(now: call.now), you = core.you, traffic = core.traffic(now: call.now)
        call.published.withLock { $0.you = you; $0.open = summaries; $0.traffic = traffic }
    }
}
