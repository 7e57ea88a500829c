import CSRTP
/// The transport half of a peer connection, sans-IO: ICE + DTLS + SRTP over one BUNDLE 5-tuple, demultiplexed by
/// RFC 7983. Datagrams, timeouts and commands in; datagrams, events and a deadline out — like `IceAgent`, whose
/// conventions it follows. RTP/RTCP payloads cross this boundary in clear; media lives above it.
public final class TransportSession {
    /// What the remote SDP says about the transport (RFC 8839 ufrag/pwd, RFC 8122 fingerprint) and which DTLS role
    /// we take after offer/answer (RFC 5763 §5: our `a=setup:active` → client).
    public struct RemoteParameters: Hashable, Sendable {
        public var credentials: IceCredentials
        public var fingerprint: DtlsFingerprint
        public var localDtlsRole: DtlsEndpoint.Role

        public init(credentials: IceCredentials, fingerprint: DtlsFingerprint, localDtlsRole: DtlsEndpoint.Role) {
            self.credentials = credentials
            self.fingerprint = fingerprint
            self.localDtlsRole = localDtlsRole
        }
    }

    public enum Command: Hashable, Sendable {
        case addLocalHost(TransportAddress)
        /// A TURN allocation's relayed address (see `IceCommand.addLocalRelayed`).
        case addLocalRelayed(relayed: TransportAddress, mapped: TransportAddress?)
        case setRemote(RemoteParameters)
        /// ICE restart (RFC 8445 §9, `IceCommand.restart`): the DTLS association and SRTP keys stay (RFC 8842 §4:
        /// an ICE restart alone does not renegotiate DTLS); the peer's new credentials follow with `setRemote`.
        case restartIce(local: IceCredentials, relayed: TransportAddress?, mapped: TransportAddress?, hosts: [TransportAddress]? = nil)
        case addRemoteCandidate(IceCandidate)
        case endOfRemoteCandidates
        /// A clear RTP / RTCP packet to protect and send on the selected pair (dropped before SRTP is up).
        case sendRTP([UInt8])
        case sendRTCP([UInt8])
        /// An SCTP packet for the data channels, sent as DTLS application data.
        case sendApplicationData([UInt8])
        case close
    }

    public enum Input: Hashable, Sendable {
        case datagram(from: TransportAddress, to: TransportAddress, bytes: [UInt8])
        case timeout
        case command(Command)
    }

    public enum Event: Equatable, Sendable {
        case ice(IceEvent)
        case dtlsConnected(SrtpProfile)
        case failed(EngineError)
        case rtp([UInt8])
        case rtcp([UInt8])
        /// An SCTP packet from the peer, out of DTLS.
        case applicationData([UInt8])
    }

    public struct Output: Sendable {
        public var transmits: [Transmit] = []
        public var events: [Event] = []
        public var deadline: TransportTime?
    }

    public let ice: IceAgent
    public let certificate: DtlsCertificate
    public private(set) var dtls: DtlsEndpoint?
    private var srtp: SrtpContext?
    /// Remote SSRCs that libsrtp holds an inbound stream for (one per SSRC that authenticated; see `TransportLimits`).
    private var inboundSSRCs = Set<UInt32>()
    /// The number of inbound SRTP streams (bounded by `TransportLimits.maxInboundSRTPStreams`).
    public var inboundStreamCount: Int { inboundSSRCs.count }
    private var dtlsDeadline: TransportTime?
    /// Where the last believed DTLS datagram came from: the answer goes there while ICE has not selected a pair yet.
    private var dtlsPeer: (local: TransportAddress, remote: TransportAddress)?
    /// DTLS datagrams from a known remote candidate whose pair our own check has not validated yet (the peer's check
    /// may succeed, and its ClientHello leave, before ours): handed to DTLS once the pair is valid, dropped otherwise.
    private var heldDtls: [(local: TransportAddress, remote: TransportAddress, bytes: [UInt8])] = []
    /// A ClientHello, maybe fragmented, and a retransmission: a few datagrams are enough; older ones make way.
    static let maxHeldDtls = 8
    /// A snapshot for the stats overlay.
    public struct Stats: Hashable, Sendable {
        public var iceState: IceConnectionState
        public var selectedPair: SelectedPair?
        public var roundTripTime: Duration?
        public var srtpProfile: SrtpProfile?
        /// Protected RTP+RTCP packets sent and their bytes on the wire.
        public var packetsSent = 0
        public var bytesSent = 0
        /// Packets that passed SRTP authentication, and their bytes on the wire.
        public var packetsReceived = 0
        public var bytesReceived = 0
        /// SRTP packets that failed authentication (dropped, RFC 3711 §3.3): wrong keys or tampering.
        public var rejectedPackets = 0
        /// SRTP packets dropped by the replay check (RFC 3711 §3.3.2): a copy of a packet already
        /// received, as a plain NACK retransmission of a packet that was only late, or a duplicate
        /// from the network. Harmless, so counted apart from authentication failures.
        public var replayedPackets = 0
        /// SRTP/SRTCP packets from a new SSRC dropped unread because `TransportLimits.maxInboundSRTPStreams` SSRCs
        /// already have libsrtp streams.
        public var unknownSSRCDropped = 0
        /// DTLS, SRTP and SRTCP datagrams dropped because they came from a 5-tuple ICE has not validated (or, once a
        /// pair is selected, from any other than the selected one): forged or stray, never believed.
        public var offPathPackets = 0
    }

    private var counters = Stats(iceState: .new)

    public var stats: Stats {
        var s = counters
        s.iceState = ice.state
        s.selectedPair = ice.selected
        s.roundTripTime = ice.roundTripTime
        s.srtpProfile = srtp?.profile
        return s
    }

    /// SRTP packets that failed authentication (dropped, RFC 3711 §3.3).
    public var rejectedPackets: Int { counters.rejectedPackets }
    /// SRTP packets dropped as replays (RFC 3711 §3.3.2).
    public var replayedPackets: Int { counters.replayedPackets }
    private var out = Output()

    private let srtpProfiles: [SrtpProfile]

    /// - Parameter srtpProfiles: offered in DTLS `use_srtp`, in preference order (AES-CM-80 is mandatory for WebRTC).
    public init(ice config: IceAgentConfig, certificate: DtlsCertificate,
                srtpProfiles: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80]) {
        ice = IceAgent(config: config)
        self.certificate = certificate
        self.srtpProfiles = srtpProfiles
    }

    public var localFingerprint: DtlsFingerprint { certificate.fingerprint }
    public var isSecure: Bool { srtp != nil }

    public func handle(_ input: Input, now: TransportTime) -> Output {
        out = Output()
        switch input {
        case .command(let command): apply(command, now: now)
        case .datagram(let from, let to, let bytes): receive(bytes, from: from, to: to, now: now)
        case .timeout:
            absorb(ice.handle(.timeout, now: now), now: now)
            if let deadline = dtlsDeadline, deadline <= now, let dtls { absorb(dtls.handleTimeout(now: now)) }
        }
        out.deadline = [ice.state == .closed ? nil : iceDeadline, dtlsDeadline].compactMap { $0 }.min()
        defer { out = Output() }
        return out
    }

    private var iceDeadline: TransportTime?

    private func apply(_ command: Command, now: TransportTime) {
        switch command {
        case .addLocalHost(let address): absorb(ice.handle(.command(.addLocalHost(address)), now: now), now: now)
        case .addLocalRelayed(let relayed, let mapped):
            absorb(ice.handle(.command(.addLocalRelayed(relayed: relayed, mapped: mapped)), now: now), now: now)
        case .addRemoteCandidate(let c): absorb(ice.handle(.command(.addRemoteCandidate(c)), now: now), now: now)
        case .endOfRemoteCandidates: absorb(ice.handle(.command(.endOfRemoteCandidates), now: now), now: now)
        case .restartIce(let local, let relayed, let mapped, let hosts):
            absorb(ice.handle(.command(.restart(local: local, relayed: relayed, mapped: mapped, hosts: hosts)), now: now), now: now)
        case .setRemote(let remote):
            absorb(ice.handle(.command(.setRemoteCredentials(remote.credentials)), now: now), now: now)
            guard dtls == nil else { return }
            do {
                dtls = try DtlsEndpoint(role: remote.localDtlsRole, certificate: certificate, remoteFingerprint: remote.fingerprint,
                                        profiles: srtpProfiles)
            } catch let error as EngineError {
                out.events.append(.failed(error))
            } catch {
                out.events.append(.failed(.dtlsFailed("\(error)")))
            }
            startDtlsIfReady(now: now)
        case .sendRTP(let packet): sendProtected(packet, rtcp: false)
        case .sendRTCP(let packet): sendProtected(packet, rtcp: true)
        case .sendApplicationData(let packet):
            if maySend, let dtls { absorb(dtls.send(applicationData: packet, now: now)) }
        case .close:
            if let dtls { absorb(dtls.close(now: now)) }
            absorb(ice.handle(.command(.close), now: now), now: now)
        }
    }

    /// RFC 8445 §7.3 / RFC 8842 §5 / RFC 5764 §5.1.2: DTLS and SRTP belong to the 5-tuple ICE validated. Before a
    /// pair is selected, any valid pair (our check on it succeeded) is believed; once one is selected, only it is.
    /// Anything else (an off-path epoch-0 alert that would abort the handshake, a ClientHello that would steer our
    /// answer elsewhere, SRTP from a stranger) never reaches DTLS or SRTP.
    private func isBelieved(from remote: TransportAddress, to local: TransportAddress) -> Bool {
        if let pair = ice.selected { return remote == pair.remoteAddress && local == pair.localBase }
        return ice.isValidPair(local: local, remote: remote)
    }

    /// RFC 7675 §5.1: once consent is lost "the agent MUST cease transmission on that 5-tuple": no RTP, RTCP,
    /// retransmission or DTLS record leaves after ICE failed (or was closed), whichever side noticed.
    private var maySend: Bool { ice.state != .failed && ice.state != .closed }

    private func receiveDtls(_ bytes: [UInt8], from: TransportAddress, to: TransportAddress, now: TransportTime) {
        guard let dtls else { return }
        guard isBelieved(from: from, to: to) else {
            if ice.selected == nil && ice.isRemoteCandidate(from) {
                if heldDtls.count >= Self.maxHeldDtls { heldDtls.removeFirst() }
                heldDtls.append((to, from, bytes))
            } else {
                counters.offPathPackets += 1
            }
            return
        }
        dtlsPeer = (to, from)
        absorb(dtls.handle(datagram: bytes, now: now))
    }

    /// Hands held DTLS datagrams over once their pair is valid; after a selection the others are dropped.
    private func releaseHeldDtls(now: TransportTime) {
        guard !heldDtls.isEmpty else { return }
        let held = heldDtls
        heldDtls = []
        for h in held {
            if isBelieved(from: h.remote, to: h.local) {
                receiveDtls(h.bytes, from: h.remote, to: h.local, now: now)
            } else if ice.selected == nil {
                heldDtls.append(h)
            } else {
                counters.offPathPackets += 1
            }
        }
    }

    private func receive(_ bytes: [UInt8], from: TransportAddress, to: TransportAddress, now: TransportTime) {
        switch PacketClass(bytes) {
        case .stun:
            absorb(ice.handle(.datagram(from: from, to: to, bytes: bytes), now: now), now: now)
        case .dtls:
            receiveDtls(bytes, from: from, to: to, now: now)
        case .rtp, .rtcp:
            guard let srtp else { return }
            guard isBelieved(from: from, to: to) else {
                counters.offPathPackets += 1
                return
            }
            let isRTCP = PacketClass(bytes) == .rtcp
            // The SSRC libsrtp keys its stream by: RTP header bytes 8-11 (RFC 3550 §5.1), the RTCP sender's at 4-7
            // (§6.4.1). A packet too short to hold it fails in libsrtp anyway.
            let at = isRTCP ? 4 : 8
            guard bytes.count >= at + 4 else { counters.rejectedPackets += 1; return }
            let ssrc = UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
            // Full table: a new SSRC is dropped before libsrtp can clone a stream for it.
            guard inboundSSRCs.contains(ssrc) || inboundSSRCs.count < TransportLimits.maxInboundSRTPStreams else {
                counters.unknownSSRCDropped += 1
                return
            }
            do {
                let clear = isRTCP ? try srtp.unprotectRTCP(bytes) : try srtp.unprotectRTP(bytes)
                inboundSSRCs.insert(ssrc)
                counters.packetsReceived += 1
                counters.bytesReceived += bytes.count
                out.events.append(isRTCP ? .rtcp(clear) : .rtp(clear))
            } catch EngineError.library(_, _, let code)
                        where code == Int32(srtp_err_status_replay_fail.rawValue) || code == Int32(srtp_err_status_replay_old.rawValue) {
                counters.replayedPackets += 1
            } catch {
                counters.rejectedPackets += 1
            }
        case .zrtp, .turnChannel, .unknown:
            break   // RFC 7983: not ours to interpret; drop.
        }
    }

    private func absorb(_ output: IceOutput, now: TransportTime) {
        out.transmits += output.transmits
        iceDeadline = output.deadline
        for event in output.events {
            out.events.append(.ice(event))
            if case .selectedPairChanged = event { startDtlsIfReady(now: now) }
        }
        releaseHeldDtls(now: now)
    }

    private func absorb(_ output: DtlsEndpoint.Output) {
        dtlsDeadline = output.deadline
        if maySend, let route = ice.selected.map({ ($0.localBase, $0.remoteAddress) }) ?? dtlsPeer {
            out.transmits += output.transmits.map { Transmit(from: route.0, to: route.1, bytes: $0) }
        }
        for event in output.events {
            switch event {
            case .connected(let keys):
                do {
                    srtp = try SrtpContext(keys: keys)
                    out.events.append(.dtlsConnected(keys.profile))
                } catch let error as EngineError {
                    out.events.append(.failed(error))
                } catch {
                    out.events.append(.failed(.dtlsFailed("\(error)")))
                }
            case .failed(let error): out.events.append(.failed(error))
            case .closed: out.events.append(.failed(.dtlsFailed("peer closed the DTLS association")))
            case .applicationData(let bytes): out.events.append(.applicationData(bytes))
            }
        }
    }

    /// The DTLS client speaks first, once ICE has a pair to speak on (RFC 8842 §5: DTLS runs over the selected pair).
    private func startDtlsIfReady(now: TransportTime) {
        guard let dtls, dtls.state == .new, dtls.role == .client, ice.selected != nil else { return }
        absorb(dtls.start(now: now))
    }

    private func sendProtected(_ packet: [UInt8], rtcp: Bool) {
        guard maySend, let srtp, let pair = ice.selected,
              let protected = try? (rtcp ? srtp.protectRTCP(packet) : srtp.protectRTP(packet)) else { return }
        counters.packetsSent += 1
        counters.bytesSent += protected.count
        out.transmits.append(Transmit(from: pair.localBase, to: pair.remoteAddress, bytes: protected))
    }
}
