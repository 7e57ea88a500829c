import Engine

/// A room of `CallCore`s on the virtual clock: a SkyRTC-like signaling server (join order, `_peers`, `_new_peer`,
/// `_remove_peer`, offers, answers and candidates relayed after `signalingDelay`), a seeded `EmulatedLink` between
/// every two members' addresses, sockets that are addresses, and synthetic media (a VP8-shaped frame every
/// `videoInterval` and an audio packet every 20 ms, each naming its sender and a counter), so a whole room's seconds
/// run in a fraction of the time. What each member's decoders would get is recorded per sender.
public final class CallRoomHarness {
    public final class Member {
        public let name: String
        /// Its host address (`move` changes it, as a laptop that changes networks).
        public fileprivate(set) var ip: IPAddress
        public let core: CallCore
        /// The id the server gave at the last join (nil while out of the room).
        public fileprivate(set) var id: RemotePeerID?
        fileprivate var joins = 0
        /// Data-channel events, with the name of the member they came from.
        public fileprivate(set) var data: [(from: String, event: DataChannelEvent)] = []
        fileprivate var deadline: TransportTime?
        fileprivate var videoCounter: UInt32 = 0
        fileprivate var audioCounter: UInt32 = 0
        /// The encodings the core asked for (the low one while its plan has one) and their pending keyframes.
        fileprivate var layers: [EncodingPlan.Layer] = [.full]
        fileprivate var keyframeWanted: Set<EncodingPlan.Layer> = [.full]
        /// Video frames handed to the decoder of each sender (by the sender's name), in order: their counters.
        public fileprivate(set) var videoFrom: [String: [UInt32]] = [:]
        /// Audio packets played out from each sender: their counters.
        public fileprivate(set) var audioFrom: [String: [UInt32]] = [:]
        /// Frames whose content named another sender than the participant they were attributed to.
        public fileprivate(set) var misattributed = 0
        /// Connection states told, as "peerName:state".
        public fileprivate(set) var states: [String] = []
        public fileprivate(set) var announcements: [LocalMediaState] = []
        public fileprivate(set) var log: [String] = []
        fileprivate var openAddresses: [ConnectionID: [TransportAddress]] = [:]

        init(name: String, ip: IPAddress, core: CallCore) {
            self.name = name
            self.ip = ip
            self.core = core
        }
    }

    public private(set) var members: [Member] = []
    public private(set) var now = TransportTime.zero
    public var signalingDelay: Duration = .milliseconds(10)
    public var videoInterval: Duration = .milliseconds(66)
    public var conditions: LinkConditions
    /// Where a member's signal goes, and as what: by default the server's relay (to the member whose id it names,
    /// from the sender's id). A policy whose connections are not one per member (a test's scripted policy) names
    /// its own.
    public var route: ((CallSignalOut, Member) -> (to: Member, signal: CallSignalIn)?)?
    /// Synthetic video frames: a keyframe or delta of this many bytes (several RTP packets each).
    public var frameBytes = 2_500
    private let seed: UInt64
    private var links: [String: EmulatedLink<Transmit>] = [:]
    private var room: [RemotePeerID] = []
    private var signals: [(at: TransportTime, to: RemotePeerID, signal: CallSignalIn)] = []
    private var addresses: [TransportAddress: Member] = [:]
    private var nextPort: UInt16 = 10_000
    private var nextVideo = TransportTime.zero
    private var nextAudio = TransportTime.zero

    public init(conditions: LinkConditions = LinkConditions(), seed: UInt64) {
        self.conditions = conditions
        self.seed = seed
    }

    @discardableResult
    public func add(_ name: String, policy: some RoomPolicy = Mesh()) -> Member {
        var configuration = CallCore.Configuration()
        configuration.loopbackOnly = true
        let member = Member(name: name, ip: IPAddress("127.0.0.\(members.count + 2)")!,
                            core: CallCore(configuration: configuration, policy: policy))
        members.append(member)
        feed(member, .localMedia(LocalMediaState(audioMuted: false, videoOn: true, source: "synthetic")))
        return member
    }

    public func member(_ name: String) -> Member { members.first { $0.name == name }! }
    private func member(id: RemotePeerID) -> Member? { members.first { $0.id == id } }

    // MARK: the signaling server

    /// The member (re)joins: a new id, `_peers` to it, `_new_peer` to the others.
    public func join(_ name: String) {
        let m = member(name)
        m.joins += 1
        let id = RemotePeerID("\(name)-\(m.joins)")
        m.id = id
        send(.joined(you: id, others: room), to: id)
        for other in room { send(.newPeer(id), to: other) }
        room.append(id)
    }

    /// The member's host moves to another network: its address becomes `ip` (the old one is gone, with every socket
    /// on it), and its call is told, as the session's watch of the interfaces tells it.
    public func move(_ name: String, to ip: IPAddress) {
        let m = member(name)
        m.ip = ip
        feed(m, .hostAddressesChanged)
    }

    /// The member leaves the room as a client does: its call leaves, the server tells the others.
    public func leave(_ name: String) {
        let m = member(name)
        feed(m, .leave)
        drop(m)
    }

    /// The member's signaling connection breaks: the server drops it as if it left, and its call is told.
    public func loseSignaling(_ name: String) {
        let m = member(name)
        feed(m, .signalingLost)
        drop(m)
    }

    private func drop(_ m: Member) {
        guard let id = m.id else { return }
        m.id = nil
        room.removeAll { $0 == id }
        signals.removeAll { $0.to == id }
        for other in room { send(.removePeer(id), to: other) }
    }

    private func send(_ signal: CallSignalIn, to id: RemotePeerID) {
        signals.append((now + signalingDelay, id, signal))
    }

    private func relay(_ signal: CallSignalOut, from m: Member) {
        if let route {
            if let (to, translated) = route(signal, m), let id = to.id { send(translated, to: id) }
            return
        }
        guard let me = m.id, room.contains(signal.peer) else { return }
        switch signal {
        case .offer(let to, let sdp): send(.offer(from: me, sdp: sdp), to: to)
        case .answer(let to, let sdp): send(.answer(from: me, sdp: sdp), to: to)
        case .candidate(let to, let c, let mid, let index): send(.candidate(from: me, candidate: c, mid: mid, mLineIndex: index), to: to)
        }
    }

    // MARK: the core's outputs

    public func feed(_ m: Member, _ input: CallCore.Input) {
        let out = m.core.handle(input, now: now)
        m.deadline = out.deadline
        // A socket that was closed (its address went away) sends nothing.
        for t in out.transmits where addresses[t.from] === m { transmit(t) }
        for effect in out.effects { perform(effect, of: m) }
    }

    /// DTLS records (RFC 7983: first byte 20 to 63) take a link of the same delay without loss: OpenSSL times its
    /// handshake retransmissions on the real clock, so on the virtual one a lost flight would wait for real time to
    /// pass (docs/testing.md). Everything else, ICE checks and media, takes the lossy link.
    private func transmit(_ t: Transmit) {
        let isDTLS = t.bytes.first.map { (20...63).contains($0) } ?? false
        let key = "\(t.from.ip)>\(t.to.ip)" + (isDTLS ? " dtls" : "")
        if links[key] == nil {
            var seeds = SplitMixRandom(seed: seed &+ UInt64(links.count) &* 0x9E37_79B9)
            var conditions = self.conditions
            if isDTLS { conditions.loss = 0 }
            links[key] = EmulatedLink(conditions, seed: seeds.next())
        }
        links[key]!.send(t, now: now)
    }

    private func perform(_ effect: CallCore.Effect, of m: Member) {
        switch effect {
        case .openSockets(let id):
            let address = TransportAddress(ip: m.ip, port: nextPort)
            nextPort += 1
            addresses[address] = m
            m.openAddresses[id] = [address]
            feed(m, .socketsOpened(id, [address]))
        case .rebindSockets(let id):
            var kept: [TransportAddress] = []
            for address in m.openAddresses[id] ?? [] {
                if address.ip == m.ip { kept.append(address) } else { addresses[address] = nil }
            }
            if kept.isEmpty {
                let address = TransportAddress(ip: m.ip, port: nextPort)
                nextPort += 1
                addresses[address] = m
                kept.append(address)
            }
            m.openAddresses[id] = kept
            feed(m, .socketsRebound(id, kept))
        case .closeSockets(let id):
            for address in m.openAddresses.removeValue(forKey: id) ?? [] { addresses[address] = nil }
        case .signal(let signal): relay(signal, from: m)
        case .announce(let state): m.announcements.append(state)
        case .event(.peerState(let peer, let state, _)): m.states.append("\(name(of: peer)):\(state.rawValue)")
        case .decodeVideo(let peer, _, let frame): record(frame.data.dropFirst(6), from: peer, into: \.videoFrom, of: m)
        case .decodeAudio(let peer, _, .packet(let bytes)): record(bytes[...], from: peer, into: \.audioFrom, of: m)
        case .requestKeyframe(let layer): m.keyframeWanted.insert(layer)
        case .setVideoBitrates(_, let low): m.layers = low == nil ? [.full] : [.full, .low]
        case .log(let text): m.log.append("\(now) \(text)")
        case .dataChannel(let peer, let event): m.data.append((name(of: peer), event))
        case .event, .decodeAudio, .openStream, .streamWrite, .participantOpened, .participantClosed:
            break
        }
    }

    /// The member a peer id belongs to, by the id's name part (ids are "name-join").
    private func name(of peer: RemotePeerID) -> String { String(peer.rawValue.split(separator: "-").first ?? "?") }

    private func record(_ bytes: ArraySlice<UInt8>, from peer: RemotePeerID, into list: ReferenceWritableKeyPath<Member, [String: [UInt32]]>,
                        of m: Member) {
        guard let (sender, counter) = Self.readMarker(bytes) else { return }
        if sender != name(of: peer) { m.misattributed += 1 }
        m[keyPath: list][sender, default: []].append(counter)
    }

    // MARK: media

    /// Media names its sender and carries a counter: a length byte, the name, the counter (big-endian), padding.
    static func marker(_ name: String, counter: UInt32, size: Int) -> [UInt8] {
        let label = Array(name.utf8.prefix(15))
        let bytes = [UInt8(label.count)] + label + withUnsafeBytes(of: counter.bigEndian, Array.init)
        return bytes + [UInt8](repeating: 0x5a, count: max(0, size - bytes.count))
    }

    static func readMarker(_ bytes: ArraySlice<UInt8>) -> (String, UInt32)? {
        guard let first = bytes.first, case let n = Int(first), bytes.count >= 1 + n + 4,
              let name = String(bytes: bytes.dropFirst().prefix(n), encoding: .utf8) else { return nil }
        return (name, bytes.dropFirst(1 + n).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    private func sendMedia() {
        if now >= nextVideo {
            nextVideo = now + videoInterval
            for m in members where m.id != nil {
                m.videoCounter += 1
                for layer in m.layers {
                    let key = m.keyframeWanted.remove(layer) != nil
                    // A VP8 payload header (RFC 7741 §4.3: P = 0 on a keyframe, with its start code), then the marker;
                    // the low encoding is a quarter of the size, like a picture of half the width and height.
                    let header: [UInt8] = key ? [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a] : [0x11, 0x02, 0x00, 0x00, 0x00, 0x00]
                    let size = layer == .full ? frameBytes : frameBytes / 4
                    let data = header + Self.marker(m.name, counter: m.videoCounter, size: size)
                    let frame = EncodedVideoFrame(data: data, isKeyframe: key, timestamp: Double(now.nanoseconds) / 1e9)
                    feed(m, .media(.video(frame, layer: layer)))
                }
            }
        }
        if now >= nextAudio {
            nextAudio = now + .milliseconds(20)
            for m in members where m.id != nil {
                m.audioCounter += 1
                feed(m, .media(.audio(packet: Self.marker(m.name, counter: m.audioCounter, size: 80), isDTX: false)))
            }
        }
    }

    // MARK: the clock

    /// Advances the virtual clock event by event until `until` holds or `limit` passes; returns `until`.
    @discardableResult
    public func run(for limit: Duration, until: () -> Bool = { false }) -> Bool {
        let end = now + limit
        var steps = 0
        while !until() {
            steps += 1
            precondition(steps < 5_000_000, "the room did not settle at \(now)")
            let next = ([links.values.compactMap { $0.nextDelivery }.min(), signals.map { $0.at }.min(), nextVideo, nextAudio]
                        + members.map { $0.deadline }).compactMap { $0 }.min()!
            guard next <= end else {
                now = end
                return until()
            }
            now = max(now, next)
            for key in links.keys.sorted() {
                for t in links[key]!.deliver(now: now) {
                    guard let m = addresses[t.to] else { continue }
                    feed(m, .datagram(local: t.to, from: t.from, bytes: t.bytes, arrivedAt: now))
                }
            }
            let due = signals.filter { $0.at <= now }
            signals.removeAll { $0.at <= now }
            for s in due { if let m = member(id: s.to) { feed(m, .signal(s.signal)) } }
            for m in members where m.deadline.map({ $0 <= now }) ?? false { feed(m, .timeout) }
            sendMedia()
        }
        return true
    }

    /// True when every two members in the room have a connected connection, both ways.
    /// Datagrams the members handed to the network so far.
    public var datagramsSent: Int { links.values.reduce(0) { $0 + $1.sent } }

    public var fullyConnected: Bool {
        let inRoom = members.filter { $0.id != nil }
        return inRoom.allSatisfy { m in
            inRoom.allSatisfy { o in o === m || m.core.connection(of: o.id!)?.state == .connected }
        }
    }
}
