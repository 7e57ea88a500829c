import EngineRTP
import EngineTransport
/// One peer connection, sans-IO: a `TransportSession` (ICE, DTLS, SRTP on one BUNDLE 5-tuple), JSEP offer/answer
/// (`Jsep.swift`, RFC 8829) over any number of sections keyed by mid (W3C transceivers), renegotiated in both roles
/// on the same transport, and the RTP streams of `Engine/RTP`. Datagrams, timeouts and commands in; datagrams,
/// events and the next deadline out. No sockets, threads or clock reads (docs/architecture.md).
///
/// Our one audio and one video track each ride one section of their kind; every section receives what the peer
/// sends on it. Incoming RTP is routed to a section by `RTPStreamRouter` (MID header extension, then announced or
/// latched SSRC, then a payload type unique in the bundle: RFC 8843 §9.2); each section's receive stream follows the
/// first SSRC routed to it.
public final class PeerConnection {
    public private(set) var configuration: Configuration
    public let certificate: DtlsCertificate
    public private(set) var role: SignalingRole?
    public private(set) var transport: TransportSession?
    public private(set) var state: PeerConnectionState = .new
    public private(set) var localDescription: SessionDescription?
    public private(set) var remoteDescription: SessionDescription?
    public private(set) var selectedPair: SelectedPair?
    public private(set) var srtpProfile: SrtpProfile?
    public private(set) var dtlsRole: DtlsEndpoint.Role?

    private var iceState: IceConnectionState = .new
    private var dtlsError: String?
    private var gathered: [IceCandidate] = []
    private var describing = false
    private var pendingRemoteCandidates: [IceCandidate] = []
    /// The TURN allocation's addresses, once the driver has one (see `Command.addLocalRelayed`).
    private var relayed: (relayed: TransportAddress, mapped: TransportAddress?)?
    private var remoteCandidateAddresses = Set<TransportAddress>()
    /// Our description before the offer now pending: what a rollback restores (glare, `renegotiate`).
    private var stableLocalDescription: SessionDescription?
    /// ICE restarts, ours and the peer's (RFC 8445 §9).
    public private(set) var iceRestarts = 0
    /// Remote candidates ignored because `CallLimits.maxRemoteCandidates` were already taken (pending or added).
    public private(set) var droppedRemoteCandidates = 0
    /// Remote candidates at addresses no unicast peer has (`TransportAddress.notUnicastPeerReason`); the first
    /// `refusalsLogged` are logged, the rest only counted (a hostile peer could send thousands).
    public private(set) var refusedRemoteCandidates = 0
    /// Remote candidates dropped because they name an earlier ICE generation's username fragment.
    public private(set) var staleRemoteCandidates = 0
    static let refusalsLogged = 8
    /// Candidates waiting for the remote description (tests check the bound).
    var pendingRemoteCandidateCount: Int { pendingRemoteCandidates.count }
    private var transportDeadline: TransportTime?
    private var maintenanceAt: TransportTime?

    private struct Negotiated {
        var kind: MediaKind
        var payloadType: PayloadType
        var mid: String
        var mLineIndex: Int
        var send: Bool
        var receive: Bool
        var midExtensionID: UInt8?
        /// The transport-wide sequence number's extension id, when the answer kept it.
        var transportSequenceID: UInt8?
        /// The answer's `a=rtcp-fb ... transport-cc`: the receiver of this section sends transport feedback.
        var transportFeedback: Bool
        /// Our two simulcast encodings were accepted, with the RtpStreamId extension's id.
        var simulcastRidID: UInt8? = nil
    }
    /// The accepted sections of the last completed negotiation, in m= order.
    private var sections: [Negotiated] = []
    /// Every m= line of our next offer, stopped ones included (RFC 8829 §5.2.2 keeps their places).
    private var offered: [OfferedSection] = []
    public private(set) var signalingState = SignalingState.stable
    /// `o=` version of our descriptions: each new one is one more (RFC 3264 §8).
    private var descriptionVersion: UInt64 = 0
    private var videoSend: VideoSendStream?
    /// The simulcast section's low encoding (nil without simulcast), and whether its stream has had a keyframe.
    private var lowVideoSend: VideoSendStream?
    private var sentLowKeyframe = false
    private var audioSend: AudioSendStream?
    /// The sections our video and audio ride.
    private var videoSendMid: String?
    private var audioSendMid: String?
    private var videoReceives: [String: VideoReceiveStream] = [:]
    private var audioReceives: [String: AudioReceiveStream] = [:]
    private var sectionPackets: [String: UInt64] = [:]
    /// One 20 ms playout clock for every audio section.
    private var audioPullAt: TransportTime?
    private var router = RTPStreamRouter()
    /// Transport feedback for what the peer sends us (docs/congestion-control.md), once `transport-cc` is negotiated.
    private var feedbackBuilder: TransportFeedbackBuilder?
    private var transportSequenceID: UInt8?
    /// The send-side estimate (docs/congestion-control.md), when the peer sends transport feedback for what we send;
    /// otherwise the video stream's loss and REMB controller sets our rate.
    private var sendEstimator: SendSideBandwidthEstimator? { sender.estimator }
    /// The estimator, the pacer and the probes: how fast what we send may go.
    private var sender = SendController()
    /// When the datagram being handled arrived (the kernel's time when the driver passes it).
    private var arrival = TransportTime.zero
    private var sentKeyframe = false
    private var videoPacketsReceived: UInt64 = 0
    private var audioPacketsReceived: UInt64 = 0
    private var packetsSent: UInt64 = 0
    private var bytesSent: UInt64 = 0
    private var packetsReceived: UInt64 = 0
    private var bytesReceived: UInt64 = 0
    private var lastMediaAt: TransportTime?
    private var mediaGaps: [MediaGap] = []

    private var out = Output()
    private let sessionID: String
    /// The data channels, once an application section is negotiated and DTLS is up.
    public private(set) var data: DataChannels?
    private var dataDeadline: TransportTime?
    /// What the last negotiation said of the data section: the peer's `a=max-message-size` and `a=sctp-port`.
    private var dataSection: (maxMessageSize: Int, port: UInt16)?
    /// Bytes taken for sending per channel, ever (`DataChannelEvent.buffered`).
    private var acceptedBytes: [UInt16: Int] = [:]
    /// Channels asked for before SCTP could carry them.
    private var pendingChannelLabels: [String] = []
    /// The data-channel rate cap the user asked for (`Command.setDataRate`), if any.
    private var dataRate: Int?
    /// The cap last given to SCTP, bytes a second, and whether data was queued or in flight at the last look.
    private var appliedDataRate: Int?
    private var dataBusy = false
    /// Whether data is held to its share of the estimate now (a bottleneck was found), and since when it has had
    /// bytes to send.
    private var dataShared = false
    private var dataBusySince: TransportTime?

    /// Audio playout runs every 20 ms (one Opus frame, RFC 7587 §4.2).
    static let audioSlot: Duration = .milliseconds(20)
    /// RTCP reports and jitter-buffer timers are looked at this often when nothing else wakes us.
    static let maintenanceInterval: Duration = .milliseconds(50)

    public init(configuration: Configuration) throws(EngineError) {
        self.configuration = configuration
        do {
            certificate = try DtlsCertificate()
        } catch let error as EngineError {
            throw error
        } catch {
            throw .dtlsFailed("certificate: \(error)")
        }
        var rng = SystemRandomNumberGenerator()
        sessionID = String(rng.next() as UInt64 >> 2)
    }

    public var localFingerprint: DtlsFingerprint { certificate.fingerprint }
    /// What `TransportSession` reports when the peer sent close_notify.
    static let peerClosedDTLS = "peer closed the DTLS association"

    public func handle(_ input: Input, now: TransportTime) -> Output {
        out = Output()
        switch input {
        case .command(let command): apply(command, now: now)
        case .datagram(let from, let to, let bytes, let arrivedAt):
            arrival = min(arrivedAt ?? now, now)
            packetsReceived += 1
            bytesReceived += UInt64(bytes.count)
            feedTransport(.datagram(from: from, to: to, bytes: bytes), now: now)
        case .timeout: break
        }
        service(now: now)
        out.deadline = state == .closed ? nil
            : ([transportDeadline, maintenanceAt, audioPullAt, senderDeadline, dataDeadline]
               + videoReceives.values.map { $0.nextDeadline() }).compactMap { $0 }.min()
        defer { out = Output() }
        return out
    }

    // MARK: commands

    private func apply(_ command: Command, now: TransportTime) {
        switch command {
        case .createOffer:
            if transport == nil {
                guard role == nil else { return warn("createOffer: this connection already has a role (\(role!))") }
                role = .offerer
                startTransport(role: .controlling, now: now)
                offered = [OfferedSection(mid: "0", kind: .audio, direction: direction(sending: audioTrack != nil), track: audioTrack),
                           OfferedSection(mid: "1", kind: .video, direction: direction(sending: videoTrack != nil), track: videoTrack)]
                if configuration.simulcast, videoTrack != nil { offered[1].simulcastRids = SupportedCodecs.simulcastRids }
                if configuration.dataChannels { offered.append(OfferedSection(mid: "2", kind: .application, direction: .sendrecv)) }
            } else {
                guard signalingState == .stable, remoteDescription != nil, state != .failed, state != .closed else {
                    return warn("createOffer: not now (\(signalingState.rawValue), \(state.rawValue))")
                }
                descriptionVersion += 1
                stableLocalDescription = localDescription
            }
            offer()
        case .addTransceiver(let kind, let direction):
            offered.append(OfferedSection(mid: nextMid(), kind: kind, direction: direction))
        case .stopTransceiver(let mid):
            guard let i = offered.firstIndex(where: { $0.mid == mid }) else { return warn("stopTransceiver: no section \(mid)") }
            // Data channels are no transceiver (W3C webrtc-pc §6): they end with the connection, not with a section.
            guard offered[i].kind != .application else { return warn("stopTransceiver: \(mid) is the data section") }
            offered[i].stopped = true
        case .applyRemoteOffer(let offer):
            if role != nil { return renegotiate(offer, now: now) }
            role = .answerer
            do throws(EngineError) { try offer.checkRemoteLimits() } catch {
                return refuse("remote offer refused: \(error)", now: now)
            }
            // RFC 8445 §6.1.1: a lite peer is always controlled, so the full agent controls even when it answers.
            startTransport(role: offer.iceLite ? .controlling : .controlled, now: now)
            let answer = offer.makeAnswer(sessionID: sessionID, transport: localTransport, tracks: localTracks,
                                          receive: configuration.receive, dataChannels: configuration.dataChannels,
                                          maxMessageSize: configuration.maxMessageSize)
            // RFC 8829 §5.3.1 would answer an offer we cannot use with every section rejected; there is no call in
            // that, so the connection is refused instead (and nothing is sent back).
            guard answer.media.contains(where: { !$0.isRejected }) else {
                return refuse("remote offer refused: no media section conftui can use (an audio/Opus or video/VP8 "
                              + "section with rtcp-mux; the offer has \(offer.media.count) m= sections)", now: now)
            }
            localDescription = answer
            offered = Self.sections(answering: answer, tracks: localTracks)
            negotiate(ours: answer, theirs: offer, weOffered: false, now: now)
            announce(answer, .answer)
            // RFC 8842 §5.3: the answerer's setup attribute decides; ours is `active` (client) unless the offer forced otherwise.
            let setup = answer.media.first { !$0.isRejected }?.setup ?? .active
            applyRemote(offer, localRole: DtlsEndpoint.Role(setup: setup) ?? .client, now: now)
        case .applyRemoteAnswer(let answer):
            guard signalingState == .haveLocalOffer, state != .failed, let offer = localDescription else {
                return warn("remote answer without a pending local offer")
            }
            do throws(EngineError) { try answer.checkRemoteLimits() } catch {
                guard remoteDescription == nil else { return warn("remote answer ignored: \(error)") }
                return refuse("remote answer refused: \(error)", now: now)
            }
            signalingState = .stable
            if remoteDescription != nil {
                // A subsequent answer: the sections change, the transport and its DTLS roles stay. New ICE credentials
                // in it answer our ICE restart (RFC 8445 §9): the new generation checks against them.
                remoteDescription = answer
                negotiate(ours: offer, theirs: answer, weOffered: true, now: now)
                takeRemoteCredentials(of: answer, now: now)
                for c in answer.allCandidates { addRemote(c, now: now) }
                return
            }
            negotiate(ours: offer, theirs: answer, weOffered: true, now: now)
            guard !sections.isEmpty else {
                return refuse("remote answer refused: it accepts none of our media sections", now: now)
            }
            // RFC 5763 §5: the answer's `active` makes us the server; `passive` makes us the client.
            let remoteSetup = answer.media.first { !$0.isRejected }?.setup ?? answer.setup(mediaIndex: 0) ?? .active
            applyRemote(answer, localRole: remoteSetup == .passive ? .client : .server, now: now)
        case .addRemoteCandidate(let candidate):
            do throws(EngineError) { try candidate.checkRemoteLimits() } catch {
                return warn("remote candidate refused: \(error)")
            }
            if remoteDescription == nil {
                // Candidates before the description wait for it, up to the bound (CallLimits.maxRemoteCandidates).
                guard pendingRemoteCandidates.count < CallLimits.maxRemoteCandidates else { droppedRemoteCandidates += 1; return }
                pendingRemoteCandidates.append(candidate)
            } else {
                addRemote(candidate, now: now)
            }
        case .addLocalRelayed(let address, let mapped):
            guard relayed == nil else { return }
            relayed = (address, mapped)
            feedTransport(.command(.addLocalRelayed(relayed: address, mapped: mapped)), now: now)
        case .restartIce(let address, let mapped, let hosts):
            if let hosts {
                configuration.localHosts = hosts
                if address != relayed?.relayed { relayed = address.map { ($0, mapped) } }
            } else if let address {
                relayed = (address, mapped)
            }
            guard signalingState == .stable, remoteDescription != nil, transport != nil, dtlsError == nil, state != .closed else {
                return warn("ICE restart: not now (\(signalingState.rawValue), \(state.rawValue))")
            }
            restartTransportIce(hosts: hosts, now: now)
            descriptionVersion += 1
            stableLocalDescription = localDescription
            offer()
        case .sendVideo(let frame):
            guard transport?.isSecure == true, videoSend != nil else { return }
            // The shared encoder may still emit delta frames made before this peer connected: they cannot be decoded
            // without the keyframe they refer to, so the peer's stream starts at a keyframe (asked for on connect).
            if !sentKeyframe && !frame.isKeyframe { return }
            sentKeyframe = true
            for packet in videoSend!.send(frame, now: now) { sender.enqueue(packet, now: now) }
        case .sendLowVideo(let frame):
            guard transport?.isSecure == true, lowVideoSend != nil else { return }
            if !sentLowKeyframe && !frame.isKeyframe { return }
            sentLowKeyframe = true
            for packet in lowVideoSend!.send(frame, now: now) { sender.enqueue(packet, now: now) }
        case .sendAudio(let packet, let isDTX):
            guard transport?.isSecure == true, audioSend != nil else { return }
            if let rtp = audioSend!.send(opusPacket: packet, isDTX: isDTX, now: now) { sendRTP(rtp, now: now) }
        case .decodeFailed(let mid):
            videoReceives[mid]?.decodeFailed()
        case .openDataChannel(let label):
            if let data {
                do throws(DataChannels.ChannelError) {
                    let (id, o) = try data.open(label: label, now: now)
                    out.events.append(.dataChannel(.opened(id, label: label, byPeer: false, maxMessageSize: data.configuration.remoteMaxMessageSize)))
                    absorbData(o, now: now)
                } catch { warn("data channel \(label): \(error)") }
            } else if pendingChannelLabels.count < 16 {
                pendingChannelLabels.append(label)
            }
        case .sendData(let channel, let message):
            guard let data else {
                out.events.append(.dataChannel(.sendFailed(channel, "no data channels on this connection")))
                return
            }
            let size = switch message { case .text(let b), .binary(let b): b.count }
            do throws(DataChannels.ChannelError) {
                let o = try data.send(message, on: channel, now: now)
                acceptedBytes[channel, default: 0] += size
                absorbData(o, now: now)
                out.events.append(.dataChannel(.buffered(channel, queued: data.bufferedAmount(channel),
                                                         accepted: acceptedBytes[channel] ?? 0)))
            } catch {
                out.events.append(.dataChannel(.sendFailed(channel, error.description)))
            }
        case .closeDataChannel(let channel):
            if let data { absorbData(data.close(channel, now: now), now: now) }
        case .setDataRate(let rate):
            dataRate = rate
            shareWithData(now: now)
        case .close:
            shutDown(now: now, cause: "closed locally")
        }
    }

    /// A remote description we will not use: the connection fails with `reason` (and says so as a warning), so its
    /// owner can drop it or offer again; nothing of the description is kept.
    private func refuse(_ reason: String, now: TransportTime) {
        warn(reason)
        dtlsError = reason   // keeps `updateState` at failed whatever the transport reports while it closes
        setState(.failed, cause: reason)
        sections = []
        videoSend = nil
        lowVideoSend = nil
        audioSend = nil
        if transport != nil { feedTransport(.command(.close), now: now) }
        audioPullAt = nil
        maintenanceAt = nil
        transportDeadline = nil
        sender = SendController()
    }

    /// Stops ICE (and DTLS, which sends close_notify) and every timer.
    private func shutDown(now: TransportTime, cause: String) {
        guard state != .closed else { return }
        // The peer's channels close at once on an ABORT (browsers send one too) rather than when DTLS goes.
        if let data, data.isConnected { absorbData(data.association.abort(reason: "closed", now: now).asChannels, now: now) }
        setState(.closed, cause: cause)
        if transport != nil { feedTransport(.command(.close), now: now) }
        audioPullAt = nil
        maintenanceAt = nil
        transportDeadline = nil
    }

    private var localTracks: [LocalTrack] { [audioTrack, videoTrack].compactMap { $0 } }

    /// What we want of a section: to send when we have its track, to receive unless configured not to.
    private func direction(sending: Bool) -> MediaDirection {
        switch (sending, configuration.receive) {
        case (true, true): .sendrecv
        case (true, false): .sendonly
        case (false, true): .recvonly
        case (false, false): .inactive
        }
    }

    /// Whether our video goes out on this connection (a receive-only one never asks the encoder for keyframes).
    public var sendsVideo: Bool { videoSend != nil }
    /// The video goes out as two simulcast encodings (`Command.sendLowVideo` feeds the second).
    public var sendsSimulcast: Bool { lowVideoSend != nil }

    /// The smallest number not yet a mid of ours or theirs (mids are never reused, RFC 8829 §5.2.2).
    private func nextMid() -> String {
        let used = Set(offered.map(\.mid) + (remoteDescription?.media.compactMap { $0.mid?.rawValue } ?? []))
        var n = offered.count
        while used.contains(String(n)) { n += 1 }
        return String(n)
    }

    /// Our sections as an answer left them, for a later offer of ours: same mids and order, each in the direction we
    /// answered, rejected ones stopped.
    /// The RtpStreamId's id when the answer takes both our simulcast encodings of `offered` (ours listed `a=rid`s,
    /// the answer's `a=simulcast:recv` names them all and keeps the extension); nil sends one encoding.
    static func simulcast(offered: MediaDescription, answered: MediaDescription) -> UInt8? {
        let rids = offered.attributes.filter { $0.name == "rid" }.compactMap { $0.value?.split(separator: " ").first.map(String.init) }
        guard rids == SupportedCodecs.simulcastRids, answered.acceptedSimulcast(of: rids) == rids,
              let id = answered.extmaps.first(where: { $0.uri == Extmap.ridURI }).flatMap({ UInt8(exactly: $0.id) }),
              (1...14).contains(id) else { return nil }
        return id
    }

    static func sections(answering answer: SessionDescription, tracks: [LocalTrack]) -> [OfferedSection] {
        answer.media.map { m in
            let kind = MediaKind(rawValue: m.kind) ?? .application
            let direction = m.direction ?? .sendrecv
            return OfferedSection(mid: m.mid?.rawValue ?? "", kind: kind, direction: direction,
                                  track: direction.sends ? tracks.first { $0.kind == kind } : nil,
                                  stopped: m.isRejected || MediaKind(rawValue: m.kind) == nil)
        }
    }

    /// A subsequent offer on a live connection: answered on the same transport, the sections that stay keep their
    /// streams (RFC 8829 §5.3.2). A bad or mismatched re-offer is a warning: the call that runs is not ended for it.
    private func renegotiate(_ offer: SessionDescription, now: TransportTime) {
        if signalingState == .haveLocalOffer {
            // Glare (both re-offered at once, as both ends of a relayed call do when the relay restarts): the
            // original answerer yields, RFC 8829 §5.2's rollback of its own offer, and answers; the original
            // offerer ignores the other offer and waits for the answer to its own.
            guard role == .answerer, let stable = stableLocalDescription else {
                return warn("remote offer while our own waits for its answer (glare in renegotiation): ignored, ours stands")
            }
            warn("remote offer while our own waits for its answer (glare in renegotiation): ours rolled back")
            localDescription = stable
            signalingState = .stable
        }
        guard let current = remoteDescription, dtlsError == nil, state != .closed else { return warn("remote offer: not now (\(state.rawValue))") }
        do throws(EngineError) { try offer.checkRemoteLimits() } catch { return warn("remote offer ignored: \(error)") }
        let index = offer.media.firstIndex { !$0.isRejected }
        let theirs = index.flatMap { offer.iceCredentials(mediaIndex: $0) }
        let known = current.media.firstIndex { !$0.isRejected }.flatMap { current.iceCredentials(mediaIndex: $0) }
        guard let theirs, let index else { return warn("remote offer ignored: no ICE credentials") }
        if theirs.ufrag != known?.ufrag {
            // RFC 8445 §9: the peer restarts ICE; the answer restarts ours with new credentials too (RFC 8839 §4.4.1.1.1).
            guard offer.fingerprint(mediaIndex: index) == current.fingerprint(mediaIndex: current.media.firstIndex { !$0.isRejected } ?? 0)
            else { return warn("remote offer ignored: a new DTLS fingerprint (a new DTLS association is not renegotiated)") }
            restartTransportIce(now: now)
        }
        descriptionVersion += 1
        // RFC 8842 §5.3: the answer to a subsequent offer keeps the DTLS association, so our role's setup value.
        let answer = offer.makeAnswer(sessionID: sessionID, version: descriptionVersion, transport: localTransport,
                                      setup: dtlsRole == .server ? .passive : .active, tracks: localTracks, receive: configuration.receive,
                                      sendOn: [.audio: audioSendMid, .video: videoSendMid].compactMapValues { $0 },
                                      dataChannels: configuration.dataChannels, maxMessageSize: configuration.maxMessageSize)
        localDescription = answer
        remoteDescription = offer
        offered = Self.sections(answering: answer, tracks: localTracks)
        negotiate(ours: answer, theirs: offer, weOffered: false, now: now)
        announce(answer, .answer)
        takeRemoteCredentials(of: offer, now: now)
        for c in offer.allCandidates { addRemote(c, now: now) }
    }

    /// Our offer of the sections and transport as they are now, sent (`descriptionVersion` set by the caller).
    private func offer() {
        let offer = SessionDescription.makeOffer(sessionID: sessionID, version: descriptionVersion, transport: localTransport,
                                                 sections: offered, maxMessageSize: configuration.maxMessageSize)
        localDescription = offer
        signalingState = .haveLocalOffer
        announce(offer, .offer)
    }

    /// A new ICE generation on our side (RFC 8445 §9): new credentials, the relayed candidate re-added (`relayed`),
    /// and what we knew of the peer's candidates forgotten; the selected pair carries media until a new one is.
    private func restartTransportIce(hosts: [TransportAddress]? = nil, now: TransportTime) {
        var generator = SystemRandomNumberGenerator()
        describing = true   // the candidates go out after the description that names the new credentials
        feedTransport(.command(.restartIce(local: .random(using: &generator), relayed: relayed?.relayed, mapped: relayed?.mapped,
                                           hosts: hosts)), now: now)
        gathered = transport?.ice.localCandidates ?? []
        remoteCandidateAddresses = []
        pendingRemoteCandidates = []
        iceRestarts += 1
    }

    /// The peer's ICE credentials from a subsequent description, told to the transport when they changed (the
    /// peer's half of an ICE restart).
    private func takeRemoteCredentials(of description: SessionDescription, now: TransportTime) {
        guard let index = description.media.firstIndex(where: { !$0.isRejected }),
              let credentials = description.iceCredentials(mediaIndex: index),
              let fingerprint = description.fingerprint(mediaIndex: index), let dtlsRole,
              transport?.ice.remoteCredentials?.ufrag != credentials.ufrag else { return }
        feedTransport(.command(.setRemote(.init(credentials: IceCredentials(ufrag: credentials.ufrag, pwd: credentials.pwd),
                                                fingerprint: fingerprint, localDtlsRole: dtlsRole))), now: now)
    }

    private var audioTrack: LocalTrack? {
        configuration.sendAudio ? LocalTrack(kind: .audio, streamID: configuration.streamID, trackID: configuration.streamID + "-audio",
                                             ssrc: configuration.audioSSRC, cname: configuration.cname) : nil
    }

    private var videoTrack: LocalTrack? {
        configuration.sendVideo ? LocalTrack(kind: .video, streamID: configuration.streamID, trackID: configuration.streamID + "-video",
                                             ssrc: configuration.videoSSRC, cname: configuration.cname) : nil
    }

    private var localTransport: LocalTransportParameters {
        // Candidates go in the SDP and are trickled as well; no end-of-candidates, so a peer that takes trickled
        // candidates (aiortc refuses them after end-of-candidates) keeps accepting them. Duplicates are ignored by
        // both sides (RFC 8838 §11: a duplicate candidate is discarded).
        LocalTransportParameters(iceUfrag: transport!.ice.localCredentials.ufrag, icePwd: transport!.ice.localCredentials.pwd,
                                 fingerprint: certificate.fingerprint,
                                 candidates: configuration.candidatesInDescription ? gathered : [], endOfCandidates: false)
    }

    private func startTransport(role iceRole: IceRole, now: TransportTime) {
        transport = TransportSession(ice: .random(role: iceRole), certificate: certificate, srtpProfiles: configuration.srtpProfiles)
        describing = true
        for host in configuration.localHosts { feedTransport(.command(.addLocalHost(host)), now: now) }
        if let relayed { feedTransport(.command(.addLocalRelayed(relayed: relayed.relayed, mapped: relayed.mapped)), now: now) }
        setState(.connecting, cause: "\(iceRole == .controlling ? "offer created" : "remote offer applied")")
    }

    /// The description first, then its candidates for trickling (they are in the SDP too).
    private func announce(_ description: SessionDescription, _ type: SdpType) {
        out.events.append(.localDescription(description, type))
        describing = false
        let (mid, section) = description.trickleSection
        for c in gathered { out.events.append(.localCandidate(TrickleCandidate(candidate: c, mid: mid, mLineIndex: section))) }
    }

    /// Reads payload types, directions and MID extension ids of every accepted section from the negotiated pair:
    /// `ours` is our description (offer or answer), `theirs` the peer's. RFC 3264 §6.1: we send on a section when
    /// our direction sends and theirs receives; payload types and extension ids are those of the answer. Streams of
    /// sections that go on are kept; those of removed or rejected sections stop.
    private func negotiate(ours: SessionDescription, theirs: SessionDescription, weOffered: Bool, now: TransportTime) {
        let answer = weOffered ? theirs : ours
        sections = []
        for (index, section) in ours.media.enumerated() where !section.isRejected {
            guard let mid = section.mid?.rawValue, let kind = MediaKind(rawValue: section.kind), kind != .application,
                  let remoteSection = theirs.media.first(where: { $0.mid?.rawValue == mid }), !remoteSection.isRejected,
                  let answered = answer.media.first(where: { $0.mid?.rawValue == mid }),
                  let pt = answered.payloadTypes.first else { continue }
            let mine = section.direction ?? .sendrecv, peer = remoteSection.direction ?? .sendrecv
            sections.append(Negotiated(kind: kind, payloadType: pt, mid: mid, mLineIndex: index,
                               send: mine.sends && peer.receives, receive: mine.receives && peer.sends,
                               midExtensionID: answered.extmaps.first { $0.uri == Extmap.midURI }.flatMap { UInt8(exactly: $0.id) },
                               transportSequenceID: answered.extmaps.first { $0.uri == TransportWideSequenceNumber.uri }
                                   .flatMap { UInt8(exactly: $0.id) }.flatMap { (1...14).contains($0) ? $0 : nil },
                               transportFeedback: answered.feedback(for: pt).contains(TransportWideSequenceNumber.feedback),
                               simulcastRidID: weOffered ? Self.simulcast(offered: section, answered: answered) : nil))
        }
        // Route by what the remote side sends: its MID extension id, its announced SSRCs, the negotiated PTs.
        var ids: [String: UInt8] = [:]
        if let id = sections.first?.midExtensionID { ids[Extmap.midURI] = id }
        router = RTPStreamRouter(extensions: RTPHeaderExtensionMap(ids: ids))
        // BUNDLE puts every section on one transport, so one counter and one feedback stream serve them all; the
        // extension id is the same in each (RFC 8285 §6: ids are per bundle).
        let withFeedback = sections.filter { $0.transportFeedback && $0.transportSequenceID != nil }
        if let twcc = withFeedback.first(where: \.receive) {
            transportSequenceID = twcc.transportSequenceID
            if feedbackBuilder == nil { feedbackBuilder = TransportFeedbackBuilder(senderSSRC: configuration.videoSSRC) }
        }
        if let twcc = withFeedback.first(where: \.send) {
            transportSequenceID = twcc.transportSequenceID
            if let id = twcc.transportSequenceID { sender.estimate(sequenceID: id) }
        }
        let receiving = Set(sections.filter(\.receive).map(\.mid))
        videoReceives = videoReceives.filter { receiving.contains($0.key) }
        audioReceives = audioReceives.filter { receiving.contains($0.key) }
        if audioReceives.isEmpty { audioPullAt = nil }
        for n in sections where n.receive {
            let mid = Mid(rawValue: n.mid)
            router.expect(payloadTypes: [n.payloadType], mid: mid)
            let section = theirs.media.first { $0.mid?.rawValue == n.mid }
            // With an SSRC group (e.g. FID for RTX) the first SSRC is the media one (RFC 5576 §4.2).
            if let ssrc = section?.ssrcGroups.first?.ssrcs.first ?? section?.ssrcs.first?.ssrc { router.expect(ssrc: ssrc, mid: mid) }
            // A stream that goes on keeps its source.
            if let stream = videoReceives[n.mid] { router.expect(ssrc: stream.configuration.remoteSSRC, mid: mid) }
            if let stream = audioReceives[n.mid] { router.expect(ssrc: stream.remoteSSRC, mid: mid) }
        }
        let videoSection = sections.first { $0.kind == .video && $0.send }
        if videoSection?.mid != videoSendMid || videoSend == nil || (videoSection?.simulcastRidID != nil) != (lowVideoSend != nil) {
            videoSend = nil
            lowVideoSend = nil
        }
        if let video = videoSection, let ridID = video.simulcastRidID, lowVideoSend == nil {
            var c = VideoSendStream.Configuration(ssrc: configuration.lowVideoSSRC, payloadType: video.payloadType, cname: configuration.cname)
            c.initialSequenceNumber = UInt16.random(in: 0...0x7FFF)
            c.headerExtensions = sendExtensions(video, rid: (ridID, SupportedCodecs.simulcastRids[1]))
            c.bitrate = TargetBitrateController(maximum: SendController.maximumBitrate)
            lowVideoSend = VideoSendStream(configuration: c)
            sentLowKeyframe = false
            if transport?.isSecure == true { out.events.append(.lowKeyframeRequested) }
        }
        if let video = videoSection, videoSend == nil {
            var c = VideoSendStream.Configuration(ssrc: configuration.videoSSRC, payloadType: video.payloadType, cname: configuration.cname)
            c.initialSequenceNumber = UInt16.random(in: 0...0x7FFF)
            c.headerExtensions = sendExtensions(video, rid: video.simulcastRidID.map { ($0, SupportedCodecs.simulcastRids[0]) })
            // The stream's own ceiling is the estimator's: what video may use is the encoder's business
            // (`--max-video-kbps`, the encoding plan), not a second, lower cap here.
            c.bitrate = TargetBitrateController(maximum: SendController.maximumBitrate)
            videoSend = VideoSendStream(configuration: c)
            sentKeyframe = false
            // A new stream starts at a keyframe; on a secure transport nothing else would ask for one now.
            if transport?.isSecure == true { out.events.append(.keyframeRequested) }
        }
        videoSendMid = videoSection?.mid
        let audioSection = sections.first { $0.kind == .audio && $0.send }
        if audioSection?.mid != audioSendMid { audioSend = nil }
        if let audio = audioSection, audioSend == nil {
            var s = AudioSendStream(ssrc: configuration.audioSSRC, payloadType: audio.payloadType, cname: configuration.cname,
                                    initialSequenceNumber: UInt16.random(in: 0...0x7FFF))
            s.headerExtensions = sendExtensions(audio)
            audioSend = s
        }
        audioSendMid = audioSection?.mid
        negotiateData(ours: ours, theirs: theirs, now: now)
        out.events.append(.sectionsChanged(sectionStates))
    }

    /// The data section goes on once both sides have it; its channels start when DTLS is up (RFC 8261 §3).
    private func negotiateData(ours: SessionDescription, theirs: SessionDescription, now: TransportTime) {
        guard let mine = ours.media.first(where: { $0.kind == "application" && !$0.isRejected }),
              let peer = theirs.media.first(where: { $0.mid == mine.mid && !$0.isRejected && $0.kind == "application" }) else {
            // A data section the peer rejects in a renegotiation takes the association with it (RFC 8841 §9.3).
            if let data {
                if data.isConnected { absorbData(data.association.abort(reason: "data section rejected", now: now).asChannels, now: now) }
                for id in data.openChannels { out.events.append(.dataChannel(.closed(id))) }
                warn("the data section was rejected: data channels closed")
            }
            data = nil
            dataSection = nil
            dataDeadline = nil
            return
        }
        dataSection = (peer.maxMessageSize, peer.sctpPort ?? 5000)
        startData(now: now)
    }

    private func startData(now: TransportTime) {
        guard data == nil, let section = dataSection, transport?.isSecure == true, let role = dtlsRole else { return }
        var c = DataChannels.Configuration(isDtlsClient: role == .client)
        c.remoteMaxMessageSize = section.maxMessageSize
        c.sctp.remotePort = section.port
        c.sctp.maxIncomingMessage = configuration.maxMessageSize
        let channels = DataChannels(configuration: c)
        data = channels
        absorbData(channels.start(now: now), now: now)
        appliedDataRate = nil
        shareWithData(now: now)
        for label in pendingChannelLabels {
            do throws(DataChannels.ChannelError) {
                let (id, o) = try channels.open(label: label, now: now)
                out.events.append(.dataChannel(.opened(id, label: label, byPeer: false, maxMessageSize: channels.configuration.remoteMaxMessageSize)))
                absorbData(o, now: now)
            } catch { warn("data channel \(label): \(error)") }
        }
        pendingChannelLabels = []
    }

    /// Data yields to media (docs/chat-and-files.md): where the send-side estimate has found the path's limit
    /// (below the estimator's maximum), new SCTP data may use `dataShare` of it, and while data is queued or in
    /// flight the video's target leaves that share free, so a file never fills the bottleneck's queue in front of
    /// the video. At the maximum no bottleneck was seen (loopback, a LAN): data then goes as fast as SCTP's own
    /// congestion control lets it, and if that builds a queue the estimate falls and the share applies again.
    /// Without an estimate (a peer without transport-cc) SCTP's congestion control is all there is.
    private func shareWithData(now: TransportTime) {
        guard let data else { return }
        dataBusy = data.association.bufferedAmount > 0 || data.association.bytesInFlight > 0
        if !dataBusy { dataBusySince = nil } else if dataBusySince == nil { dataBusySince = now }
        // The share is reached over `dataRampUp`: the encoder needs a moment to leave it free, and data taking it at
        // once would stand in the bottleneck's queue meanwhile (the estimate then falls for both).
        let ramp = dataBusySince.map { min(1, max(0, (now - $0) / Self.dataRampUp)) } ?? 0
        let share = sender.estimator.flatMap { estimator -> Int? in
            guard Double(estimator.target) < Double(SendController.maximumBitrate) * Self.unboundedAbove else { return nil }
            let full = max(Self.minimumDataRate, Int(Double(estimator.target) * Self.dataShare) / 8)
            return Self.minimumDataRate + Int(Double(full - Self.minimumDataRate) * ramp)
        }
        dataShared = share != nil
        let rate: Int? = switch (share, dataRate) {
        case (let s?, let d?): min(s, d)
        case (let s, let d): s ?? d
        }
        let changed = switch (rate, appliedDataRate) {
        case (nil, nil): false
        case (let r?, let a?): abs(r - a) * 10 > a
        default: true
        }
        guard changed else { return }
        appliedDataRate = rate
        absorbData(data.setSendRate(bytesPerSecond: rate, now: now), now: now)
    }

    /// The share of the send estimate data channels may take, and the least they get (bytes a second); from this
    /// fraction of the estimator's maximum up, data is not held to a share.
    static let dataShare = 0.25
    static let minimumDataRate = 8_000
    static let unboundedAbove = 0.9
    static let dataRampUp: Duration = .seconds(2)

    private func absorbData(_ o: DataChannels.Output, now: TransportTime) {
        dataDeadline = o.deadline
        for packet in o.transmits { feedTransport(.command(.sendApplicationData(packet)), now: now) }
        for event in o.events {
            switch event {
            case .connected: break
            case .opened(let id, let label, _): out.events.append(.dataChannel(.opened(id, label: label, byPeer: true, maxMessageSize: data?.configuration.remoteMaxMessageSize ?? 65_536)))
            case .message(let id, let m): out.events.append(.dataChannel(.message(id, m)))
            case .buffered(let id, let n): out.events.append(.dataChannel(.buffered(id, queued: n, accepted: acceptedBytes[id] ?? 0)))
            case .closed(let id): out.events.append(.dataChannel(.closed(id)))
            case .warning(let why): warn("data channels: \(why)")
            case .ended(let reason): warn("data channels closed: \(reason)")
            }
        }
    }

    private var sectionStates: [SectionState] {
        sections.map { SectionState(mid: $0.mid, kind: $0.kind.rawValue, sends: $0.send, receives: $0.receive,
                                    packetsReceived: sectionPackets[$0.mid] ?? 0) }
    }

    /// RFC 8843 §15.1: the MID header extension lets the peer route packets before it has learned the SSRCs. With
    /// a send-side estimate, a transport-wide sequence number too, stamped as each packet leaves (`sendRTP`).
    private func sendExtensions(_ n: Negotiated, rid: (id: UInt8, value: String)? = nil) -> RTPHeaderExtensions? {
        var elements: [RTPHeaderExtensionElement] = []
        if let id = n.midExtensionID, id >= 1, id <= 14 { elements.append(RTPHeaderExtensionElement(id: id, data: Array(n.mid.utf8))) }
        // On every packet, as browsers do: the receiver may join late or lose the first ones (RFC 8852 §4).
        if let rid, rid.id >= 1, rid.id <= 14 { elements.append(RTPHeaderExtensionElement(id: rid.id, data: Array(rid.value.utf8))) }
        if sendEstimator != nil, let id = transportSequenceID { elements.append(TransportWideSequenceNumber.placeholder(id: id)) }
        return elements.isEmpty ? nil : .elements(elements)
    }

    private func applyRemote(_ remote: SessionDescription, localRole: DtlsEndpoint.Role, now: TransportTime) {
        let index = remote.media.firstIndex { !$0.isRejected } ?? 0
        guard let credentials = remote.iceCredentials(mediaIndex: index), let fingerprint = remote.fingerprint(mediaIndex: index) else {
            dtlsError = "remote description lacks ICE credentials or a fingerprint"
            setState(.failed, cause: dtlsError!)
            return
        }
        remoteDescription = remote
        dtlsRole = localRole
        feedTransport(.command(.setRemote(.init(credentials: IceCredentials(ufrag: credentials.ufrag, pwd: credentials.pwd),
                                                fingerprint: fingerprint, localDtlsRole: localRole))), now: now)
        for c in remote.allCandidates + pendingRemoteCandidates { addRemote(c, now: now) }
        pendingRemoteCandidates = []
        maintenanceAt = now + Self.maintenanceInterval
    }

    private func addRemote(_ candidate: IceCandidate, now: TransportTime) {
        // Chrome's `<uuid>.local` names are not resolved: peer-reflexive candidates cover them (docs/webrtc-interop.md §1).
        guard let ip = candidate.address.ip, candidate.transport == "udp", candidate.component == 1,
              let address = candidate.transportAddress else { return }
        if let reason = address.notUnicastPeerReason {
            refusedRemoteCandidates += 1
            if refusedRemoteCandidates <= Self.refusalsLogged {
                warn("remote candidate \(address) refused: \(reason), not a unicast peer"
                     + (refusedRemoteCandidates == Self.refusalsLogged ? " (further refusals are counted, not logged)" : ""))
            }
            return
        }
        if let ufrag = candidate.extensions.first(where: { $0.name == "ufrag" })?.value,
           let current = transport?.ice.remoteCredentials?.ufrag, ufrag != current {
            // RFC 8838 §11 (and RFC 8445 §9): a candidate trickled for the generation before an ICE restart, arriving
            // after it, belongs to no pair of this one. Browsers name the generation in each candidate.
            staleRemoteCandidates += 1
            if staleRemoteCandidates <= Self.refusalsLogged { warn("remote candidate \(address) of an earlier ICE generation ignored") }
            return
        }
        guard configuration.acceptRemoteAddress(ip), !remoteCandidateAddresses.contains(address) else { return }
        guard remoteCandidateAddresses.count < CallLimits.maxRemoteCandidates else { droppedRemoteCandidates += 1; return }
        remoteCandidateAddresses.insert(address)
        feedTransport(.command(.addRemoteCandidate(candidate)), now: now)
    }

    private func warn(_ text: String) { out.events.append(.warning(text)) }

    // MARK: transport

    private func feedTransport(_ input: TransportSession.Input, now: TransportTime) {
        guard let transport else { return }
        let o = transport.handle(input, now: now)
        transportDeadline = o.deadline
        for t in o.transmits {
            packetsSent += 1
            bytesSent += UInt64(t.bytes.count)
        }
        out.transmits += o.transmits
        for event in o.events { take(event, now: now) }
    }

    private func take(_ event: TransportSession.Event, now: TransportTime) {
        switch event {
        case .ice(.candidateGathered(let c)):
            gathered.append(c)
            if !describing, let description = localDescription {
                let (mid, section) = description.trickleSection
                out.events.append(.localCandidate(TrickleCandidate(candidate: c, mid: mid, mLineIndex: section)))
            }
        case .ice(.stateChanged(let s)):
            iceState = s
            updateState(cause: "ICE \(s.rawValue)")
        case .ice(.selectedPairChanged(let pair)):
            selectedPair = pair
            out.events.append(.selectedPair(pair))
        case .ice(.roleChanged): break
        case .dtlsConnected(let profile):
            srtpProfile = profile
            out.events.append(.dtlsConnected(profile))
            // The peer's decoder needs a keyframe first: start with one rather than wait for its PLI.
            out.events.append(.keyframeRequested)
            updateState(cause: "DTLS connected (\(profile))")
            startData(now: now)
        case .failed(.dtlsFailed(Self.peerClosedDTLS)):
            // A close_notify is the peer hanging up, not a failure (RFC 5246 §7.2.1).
            shutDown(now: now, cause: "the peer closed the DTLS association")
        case .failed(let error):
            dtlsError = error.description
            updateState(cause: error.description)
        case .rtp(let bytes): receiveRTP(bytes, now: now)
        case .rtcp(let bytes): receiveRTCP(bytes, now: now)
        case .applicationData(let bytes):
            if let data { absorbData(data.receive(packet: bytes, now: now), now: now) }
        }
    }

    /// W3C webrtc-pc §4.3.3: the aggregate of the ICE and DTLS transport states.
    private func updateState(cause: String) {
        guard state != .closed else { return }
        let next: PeerConnectionState
        if dtlsError != nil || iceState == .failed {
            next = .failed
        } else if iceState == .disconnected {
            next = .disconnected
        } else if (iceState == .connected || iceState == .completed) && srtpProfile != nil {
            next = .connected
        } else if iceState == .new && transport == nil {
            next = .new
        } else {
            next = .connecting
        }
        setState(next, cause: cause)
    }

    private func setState(_ next: PeerConnectionState, cause: String) {
        guard next != state else { return }
        state = next
        out.events.append(.stateChanged(next, cause: cause))
    }

    /// Every RTP packet leaves here, retransmissions included, so each gets its own transport-wide number.
    private func sendRTP(_ packet: [UInt8], now: TransportTime) {
        var packet = packet
        sender.stamp(&packet, now: now)
        feedTransport(.command(.sendRTP(packet)), now: now)
    }

    private func sendRTCP(_ packet: [UInt8], now: TransportTime) {
        feedTransport(.command(.sendRTCP(packet)), now: now)
    }

    // MARK: media in

    private func receiveRTP(_ bytes: [UInt8], now: TransportTime) {
        if let last = lastMediaAt, now - last >= MediaGap.threshold {
            if mediaGaps.count >= MediaGap.kept { mediaGaps.removeFirst() }
            mediaGaps.append(MediaGap(endedAt: Double(now.nanoseconds) / 1e9, milliseconds: Double((now - last).nanoseconds) / 1e6))
        }
        lastMediaAt = now
        guard let packet = try? RTPPacket.parse(bytes) else { return }
        // Every stamped packet is reported, routed or not (probes and padding included): the sender's estimate
        // counts every byte it put on the path.
        if let id = transportSequenceID, let sequence = TransportWideSequenceNumber.read(from: packet, id: id) {
            feedbackBuilder?.record(sequence: sequence, mediaSSRC: packet.ssrc, arrival: arrival)
        }
        guard let mid = router.route(packet)?.rawValue, let n = sections.first(where: { $0.mid == mid }), n.receive,
              packet.payloadType == n.payloadType else { return }
        sectionPackets[mid, default: 0] += 1
        switch n.kind {
        case .video:
            if videoReceives[mid] == nil {
                videoReceives[mid] = VideoReceiveStream(configuration: .init(localSSRC: configuration.videoSSRC, remoteSSRC: packet.ssrc,
                                                                             cname: configuration.cname))
            }
            videoPacketsReceived += 1
            videoReceives[mid]!.receive(packet, size: bytes.count, now: now)
            pollVideo(mid, now: now)
        case .audio:
            if audioReceives[mid] == nil {
                audioReceives[mid] = AudioReceiveStream(localSSRC: configuration.audioSSRC, remoteSSRC: packet.ssrc, cname: configuration.cname)
                if audioPullAt == nil { audioPullAt = now + Self.audioSlot }
            }
            audioPacketsReceived += 1
            audioReceives[mid]!.receive(packet, size: bytes.count, now: now)
        case .application: break
        }
    }

    private func receiveRTCP(_ bytes: [UInt8], now: TransportTime) {
        guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
        if sendEstimator != nil {
            let roundTrip = videoSend?.statistics.roundTripTime ?? transport?.stats.roundTripTime
            for case .transportFeedback(let feedback) in packets {
                sender.onFeedback(feedback, roundTrip: roundTrip, now: now)
            }
        }
        if videoSend != nil {
            for resend in videoSend!.handleRTCP(packets, estimate: sendEstimator?.target, now: now) { sendRTP(resend, now: now) }
            if videoSend!.takeKeyframeRequest(now: now) { out.events.append(.keyframeRequested) }
            if lowVideoSend != nil {
                for resend in lowVideoSend!.handleRTCP(packets, estimate: nil, now: now) { sendRTP(resend, now: now) }
                if lowVideoSend!.takeKeyframeRequest(now: now) { out.events.append(.lowKeyframeRequested) }
            }
            if let rtt = videoSend!.statistics.roundTripTime {
                for mid in videoReceives.keys { videoReceives[mid]!.roundTripTime = rtt }
            }
        }
        audioSend?.handleRTCP(packets, now: now)
        for mid in videoReceives.keys { videoReceives[mid]!.handleRTCP(packets, now: now) }
        for mid in audioReceives.keys { audioReceives[mid]!.handleRTCP(packets, now: now) }
    }

    private func pollVideo(_ mid: String, now: TransportTime) {
        guard videoReceives[mid] != nil else { return }
        let polled = videoReceives[mid]!.poll(now: now)
        for f in polled.frames {
            out.events.append(.videoFrame(mid: mid, ReceivedVideoFrame(data: f.data, isKeyframe: f.isKeyframe, rtpTimestamp: f.rtpTimestamp)))
        }
        for p in polled.rtcp { sendRTCP(p, now: now) }
    }

    /// Timers: the transport's, RTCP reports, the video buffer, the 20 ms audio playout clock.
    private func service(now: TransportTime) {
        guard state != .closed else { return }
        if let t = transportDeadline, t <= now { feedTransport(.timeout, now: now) }
        if let t = dataDeadline, t <= now, let data { absorbData(data.handleTimeout(now: now), now: now) }
        shareWithData(now: now)
        // The maintenance timer runs from the remote description on, before SRTP too, so it never stays in the past.
        let reportsDue = maintenanceAt.map { $0 <= now } ?? false
        if reportsDue { maintenanceAt = now + Self.maintenanceInterval }
        serviceMedia(now: now, reports: reportsDue)
    }

    private func serviceMedia(now: TransportTime, reports: Bool) {
        guard transport?.isSecure == true else { return }
        if reports {
            if videoSend != nil, let sr = videoSend!.pollReport(now: now) { sendRTCP(sr, now: now) }
            if lowVideoSend != nil, let sr = lowVideoSend!.pollReport(now: now) { sendRTCP(sr, now: now) }
            if audioSend != nil, let sr = audioSend!.pollReport(now: now) { sendRTCP(sr, now: now) }
            for mid in audioReceives.keys.sorted() { if let rr = audioReceives[mid]!.pollReport(now: now) { sendRTCP(rr, now: now) } }
            // Reduced-size RTCP (RFC 5506), which every peer that negotiates transport-cc also accepts.
            if feedbackBuilder != nil {
                for feedback in feedbackBuilder!.poll() { sendRTCP(RTCPPacket.transportFeedback(feedback).serialized(), now: now) }
            }
        }
        for mid in videoReceives.keys.sorted() where videoReceives[mid]!.nextDeadline().map({ $0 <= now }) ?? false { pollVideo(mid, now: now) }
        sendPaced(now: now)
        sendProbe(now: now)
        if var pullAt = audioPullAt, !audioReceives.isEmpty {
            // After a stall (a busy machine), do not play a burst of catch-up slots: resume from now.
            if now - pullAt > .milliseconds(200) { pullAt = now }
            let mids = audioReceives.keys.sorted()
            while pullAt <= now {
                for mid in mids { out.events.append(.audio(mid: mid, audioReceives[mid]!.pull(now: now))) }
                pullAt = pullAt + Self.audioSlot
            }
            audioPullAt = pullAt
        }
    }

    /// Sends the queued video packets whose turn has come (`SendController.pacedPackets`).
    private func sendPaced(now: TransportTime) {
        let fallback = (targetVideoBitrate ?? 0) + SendController.audioShare
        for packet in sender.pacedPackets(now: now, fallbackRate: fallback) { sendRTP(packet, now: now) }
    }

    /// Probes go once video flows, and only where the peer sends transport feedback.
    private func sendProbe(now: TransportTime) {
        guard videoSend != nil, sentKeyframe else { return }
        sender.sendProbe(now: now, padding: { videoSend!.paddingPacket(padding: ProbeCluster.paddingBytes, now: now) }) { controller, packet in
            var packet = packet
            controller.stamp(&packet, now: now)
            feedTransport(.command(.sendRTP(packet)), now: now)
        }
    }

    private var senderDeadline: TransportTime? {
        guard state != .closed, transport?.isSecure == true else { return nil }
        return sender.nextDeadline(probing: sentKeyframe)
    }

    /// What the peer's feedback allows for our video, bits per second; nil before video is negotiated. With transport
    /// feedback: the send-side estimate less the audio's share and the video's headers (and under any REMB the peer
    /// sends); without: the video stream's loss and REMB controller.
    public var targetVideoBitrate: Int? {
        guard let videoSend else { return nil }
        guard let target = sender.videoTarget(hasAudio: audioSend != nil, maximum: videoSend.rate.maximum,
                                              rembCap: videoSend.rate.rembCap) else { return videoSend.targetBitrate }
        // While data moves, its share of the estimate is not the video's.
        guard dataBusy, dataShared, let estimate = sender.estimator?.target else { return target }
        return max(SendController.minimumVideoBitrate, target - Int(Double(estimate) * Self.dataShare))
    }

    /// The timers behind `Output.deadline`, for diagnostics.
    public var debugDeadlines: String {
        "transport \(String(describing: transportDeadline)) maintenance \(String(describing: maintenanceAt)) "
            + "audio \(String(describing: audioPullAt)) video \(videoReceives.mapValues { String(describing: $0.nextDeadline()) })"
    }

    // MARK: stats

    public func stats(now: TransportTime) -> Stats {
        var s = Stats(state: state, iceState: iceState.rawValue)
        if let p = selectedPair { s.selectedPair = "\(p.localBase) -> \(p.remoteAddress) (\(p.local.kind.rawValue)/\(p.remote.kind.rawValue))" }
        s.dtlsRole = dtlsRole.map { $0 == .client ? "client" : "server" }
        s.srtpProfile = srtpProfile.map { "\($0)" }
        s.packetsSent = packetsSent
        s.bytesSent = bytesSent
        s.packetsReceived = packetsReceived
        s.bytesReceived = bytesReceived
        s.videoPacketsReceived = videoPacketsReceived
        s.audioPacketsReceived = audioPacketsReceived
        s.srtpRejected = transport?.rejectedPackets ?? 0
        s.offPathPackets = transport?.stats.offPathPackets ?? 0
        s.mediaGaps = mediaGaps
        s.transportFeedbackSent = feedbackBuilder?.messagesSent ?? 0
        s.transportFeedbackReceived = sendEstimator?.feedbackReceived ?? 0
        s.sendEstimateBitrate = sendEstimator?.target
        s.sendEstimateUsage = sendEstimator?.usage.rawValue
        s.probesSent = sendEstimator?.probesSent ?? 0
        s.probesRaisingEstimate = sendEstimator?.probesRaisingTarget ?? 0
        s.paddingPacketsReceived = videoReceives.values.reduce(0) { $0 + $1.paddingPacketsReceived }
        s.iceRoundTripTimeMs = (transport?.stats.roundTripTime).map { Double($0.nanoseconds) / 1e6 }
        if videoSend != nil {
            let v = videoSend!.snapshot(now: now)
            s.videoPacketsSent = UInt64(v.packetsSent)
            s.roundTripTimeMs = v.roundTripTime.map { Double($0.nanoseconds) / 1e6 }
            s.remoteReportedLoss = v.remoteFractionLost
            s.keyframeRequestsReceived = v.keyframeRequests
        }
        if let a = audioSend { s.audioPacketsSent = UInt64(a.statistics.packetsSent) }
        let expected = videoReceives.values.reduce(0) { $0 + Int($1.statistics.expected) }
        let lost = videoReceives.values.reduce(0) { $0 + Int($1.statistics.cumulativeLost) }
        s.receiveLoss = expected == 0 ? 0 : max(0, Double(lost) / Double(expected))
        for mid in videoReceives.keys {
            let v = videoReceives[mid]!.snapshot(now: now)
            s.nacksSent += v.nacksSent
            s.plisSent += v.plisSent
        }
        s.sections = sectionStates
        return s
    }
}

extension MediaDirection {
    var sends: Bool { self == .sendrecv || self == .sendonly }
    var receives: Bool { self == .sendrecv || self == .recvonly }
}
