/// JSEP offer/answer generation (RFC 8829 §5.2, §5.3) for conftui's fixed media: one Opus audio and one VP8 video
/// section on one BUNDLE transport with rtcp-mux.

/// What conftui puts on the wire for its transport, identical in every bundled section.
public struct LocalTransportParameters: Hashable, Sendable {
    public var iceUfrag: String
    public var icePwd: String
    public var fingerprint: DtlsFingerprint
    public var candidates: [IceCandidate]
    /// True when gathering is complete (no trickle follows), as aiortc expects.
    public var endOfCandidates: Bool

    public init(iceUfrag: String, icePwd: String, fingerprint: DtlsFingerprint, candidates: [IceCandidate] = [],
                endOfCandidates: Bool = false) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }
}

public enum MediaKind: String, Sendable, CaseIterable {
    case audio, video
}

/// A track conftui sends: identified for the peer by `a=msid` (RFC 8830) and `a=ssrc` (RFC 5576).
public struct LocalTrack: Hashable, Sendable {
    public var kind: MediaKind
    public var streamID: String
    public var trackID: String
    public var ssrc: SSRC
    public var cname: String

    public init(kind: MediaKind, streamID: String, trackID: String, ssrc: SSRC, cname: String) {
        self.kind = kind
        self.streamID = streamID
        self.trackID = trackID
        self.ssrc = ssrc
        self.cname = cname
    }
}

/// The codecs conftui speaks, with the parameters and feedback it supports (docs/webrtc-interop.md §7, §8).
public enum SupportedCodecs {
    public static let opus = (encoding: "opus", clockRate: 48000, channels: 2, defaultPT: PayloadType(rawValue: 111)!,
                              fmtp: "minptime=10;useinbandfec=1")
    public static let vp8 = (encoding: "VP8", clockRate: 90000, defaultPT: PayloadType(rawValue: 96)!)
    /// Chrome sends PLI only if `nack pli` is signalled (docs/webrtc-interop.md). `transport-cc` says we send
    /// transport feedback for every packet stamped with the transport-wide sequence number, so the peer's own
    /// estimator can run on it; REMB stays for peers (and streams) without it (docs/congestion-control.md).
    public static let videoFeedback = ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"]
    public static let audioFeedback = ["transport-cc"]
    /// Header extensions conftui understands; the rest of the offer's `a=extmap` lines are declined.
    public static let extensions = [Extmap.midURI, Extmap.transportWideCCURI]
    /// The ids our offers give them (any of 1...14 fits the one-byte form).
    static let offeredExtmaps = [Extmap(id: 1, uri: Extmap.midURI), Extmap(id: 3, uri: Extmap.transportWideCCURI)]
}

extension SessionDescription {
    /// A fresh offer: `a=setup:actpass` (RFC 5763 §5), BUNDLE over both sections, codecs at their default PTs.
    public static func makeOffer(sessionID: String, transport: LocalTransportParameters, audio: LocalTrack?,
                                 video: LocalTrack?) -> SessionDescription {
        var sd = SessionDescription(origin: SdpOrigin(sessionID: sessionID))
        sd.attributes.append(SdpAttribute(name: "msid-semantic", value: " WMS " + Set([audio?.streamID, video?.streamID].compactMap { $0 }).sorted().joined(separator: " ")))
        var audioSection = MediaDescription(kind: "audio", formats: [SupportedCodecs.opus.defaultPT.description])
        audioSection.rtpMaps = [RtpMap(payloadType: SupportedCodecs.opus.defaultPT, encoding: SupportedCodecs.opus.encoding,
                                       clockRate: SupportedCodecs.opus.clockRate, channels: SupportedCodecs.opus.channels)]
        audioSection.formatParameters = [FormatParameters(payloadType: SupportedCodecs.opus.defaultPT, parameters: SupportedCodecs.opus.fmtp)]
        audioSection.rtcpFeedback = SupportedCodecs.audioFeedback.map { RtcpFeedback(payloadType: SupportedCodecs.opus.defaultPT, value: $0) }
        var videoSection = MediaDescription(kind: "video", formats: [SupportedCodecs.vp8.defaultPT.description])
        videoSection.rtpMaps = [RtpMap(payloadType: SupportedCodecs.vp8.defaultPT, encoding: SupportedCodecs.vp8.encoding,
                                       clockRate: SupportedCodecs.vp8.clockRate)]
        videoSection.rtcpFeedback = SupportedCodecs.videoFeedback.map { RtcpFeedback(payloadType: SupportedCodecs.vp8.defaultPT, value: $0) }
        for (index, (var section, track)) in [(audioSection, audio), (videoSection, video)].enumerated() {
            section.mid = Mid(rawValue: String(index))
            section.extmaps = SupportedCodecs.offeredExtmaps
            section.direction = track == nil ? .recvonly : .sendrecv
            section.rtcpRsize = true
            section.applyTransport(transport, setup: .actpass)
            if let track { section.applySending(track) }
            sd.media.append(section)
        }
        sd.groups = [SdpGroup(semantics: "BUNDLE", mids: sd.media.compactMap(\.mid))]
        return sd
    }

    /// Answers `self` (a remote offer). Each offered section is accepted with the offerer's payload type for our codec
    /// (docs/webrtc-interop.md §8) or rejected with port 0 (RFC 8829 §5.3.1) when it has no codec we speak, is not RTP,
    /// or lacks rtcp-mux (mandatory, docs/webrtc-interop.md §5).
    public func makeAnswer(sessionID: String, transport: LocalTransportParameters, audio: LocalTrack?,
                           video: LocalTrack?) -> SessionDescription {
        var sd = SessionDescription(origin: SdpOrigin(sessionID: sessionID))
        sd.attributes.append(SdpAttribute(name: "msid-semantic", value: " WMS " + Set([audio?.streamID, video?.streamID].compactMap { $0 }).sorted().joined(separator: " ")))
        var usedKinds = Set<MediaKind>()
        for (index, offered) in media.enumerated() {
            let kind = MediaKind(rawValue: offered.kind)
            var answer = MediaDescription(kind: offered.kind, proto: offered.proto, formats: [])
            answer.mid = offered.mid
            let pt: PayloadType? = switch kind {
            case .audio: offered.payloadType(encoding: SupportedCodecs.opus.encoding, clockRate: SupportedCodecs.opus.clockRate,
                                             channels: SupportedCodecs.opus.channels)
            case .video: offered.payloadType(encoding: SupportedCodecs.vp8.encoding, clockRate: SupportedCodecs.vp8.clockRate)
            case nil: nil
            }
            // One section per kind: conftui sends and receives one audio and one video track.
            guard let kind, let pt, offered.rtcpMux, !offered.isRejected, !usedKinds.contains(kind) else {
                answer.port = 0
                answer.formats = Array(offered.formats.prefix(1))
                answer.direction = .inactive
                sd.media.append(answer)
                continue
            }
            usedKinds.insert(kind)
            answer.formats = [pt.description]
            answer.rtpMaps = offered.rtpMaps.filter { $0.payloadType == pt }
            if let fmtp = offered.formatParameters(for: pt) {
                answer.formatParameters = [FormatParameters(payloadType: pt, parameters: fmtp)]
            } else if kind == .audio {
                answer.formatParameters = [FormatParameters(payloadType: pt, parameters: SupportedCodecs.opus.fmtp)]
            }
            let supportedFeedback = kind == .video ? SupportedCodecs.videoFeedback : SupportedCodecs.audioFeedback
            answer.rtcpFeedback = offered.feedback(for: pt).filter(supportedFeedback.contains).map { RtcpFeedback(payloadType: pt, value: $0) }
            answer.extmaps = offered.extmaps.filter { SupportedCodecs.extensions.contains($0.uri) }.map { Extmap(id: $0.id, uri: $0.uri) }
            let track = kind == .audio ? audio : video
            answer.direction = (offered.direction ?? .sendrecv).answer(wanting: track == nil ? .recvonly : .sendrecv)
            answer.rtcpRsize = offered.rtcpRsize
            answer.applyTransport(transport, setup: (setup(mediaIndex: index) ?? .actpass).answer)
            if let track, answer.direction == .sendrecv || answer.direction == .sendonly { answer.applySending(track) }
            sd.media.append(answer)
        }
        let accepted = sd.media.filter { !$0.isRejected }.compactMap(\.mid)
        if !accepted.isEmpty {
            // RFC 8843 §7.3.1: the answer's BUNDLE group lists the accepted mids of the offered group, in order.
            let order = bundleGroup?.mids ?? accepted
            sd.groups = [SdpGroup(semantics: "BUNDLE", mids: order.filter(accepted.contains))]
        }
        return sd
    }
}

extension MediaDescription {
    mutating func applyTransport(_ t: LocalTransportParameters, setup: DtlsSetup) {
        iceUfrag = t.iceUfrag
        icePwd = t.icePwd
        iceOptions = "trickle"
        fingerprints = [t.fingerprint]
        self.setup = setup
        candidates = t.candidates
        endOfCandidates = t.endOfCandidates
        rtcpMux = true
    }

    mutating func applySending(_ track: LocalTrack) {
        msids = [MediaStreamID(stream: track.streamID, track: track.trackID)]
        ssrcs = [SsrcAttribute(ssrc: track.ssrc, name: "cname", value: track.cname),
                 SsrcAttribute(ssrc: track.ssrc, name: "msid", value: "\(track.streamID) \(track.trackID)")]
    }
}
