import EngineRTP
import EngineTransport

/// JSEP offer/answer generation (RFC 8829 §5.2, §5.3): any number of audio (Opus) and video (VP8) sections on one
/// BUNDLE transport with rtcp-mux, keyed by mid; our one audio and one video track each ride one of them. SDP itself
/// (Transport/SDP) is only the grammar; what conftui offers and accepts is decided here.

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
    /// `application`: data channels, SCTP over the bundle's DTLS (RFC 8841).
    case audio, video, application
}

/// One m= section as we offer it: a W3C transceiver, keyed by its mid, which never changes or is reused.
public struct OfferedSection: Hashable, Sendable {
    public var mid: String
    public var kind: MediaKind
    public var direction: MediaDirection
    /// Our track on it (only where the direction sends).
    public var track: LocalTrack?
    /// Stopped: offered with port 0 from now on (RFC 8829 §5.2.2), its mid kept.
    public var stopped = false
    /// Simulcast encodings offered on a sending video section, highest first (RFC 8853 `a=simulcast:send h;l`).
    public var simulcastRids: [String] = []

    public init(mid: String, kind: MediaKind, direction: MediaDirection, track: LocalTrack? = nil, stopped: Bool = false) {
        self.mid = mid
        self.kind = kind
        self.direction = direction
        self.track = track
        self.stopped = stopped
    }
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
    /// The RtpStreamId's id in our simulcast offers.
    static let offeredRidExtmap = Extmap(id: 4, uri: Extmap.ridURI)
    /// Our simulcast encodings: the full picture and the low one at half its width and height (`EncodingPlan`),
    /// listed highest first, the order Janus assumes unless told otherwise (`rid_order`).
    public static let simulcastRids = ["h", "l"]
}

extension SessionDescription {
    /// An offer of `sections` in order (RFC 8829 §5.2.2: a subsequent offer keeps every m= line where it was, and a
    /// stopped one stays with port 0), codecs at their default PTs, BUNDLE over the live ones. `setup` is `actpass`
    /// (RFC 5763 §5: the offerer's value).
    public static func makeOffer(sessionID: String, version: UInt64 = 0, transport: LocalTransportParameters,
                                 sections: [OfferedSection], maxMessageSize: Int = 256 * 1024) -> SessionDescription {
        var sd = SessionDescription(origin: SdpOrigin(sessionID: sessionID, sessionVersion: String(version)))
        sd.attributes.append(SdpAttribute(name: "msid-semantic", value: " WMS " + Set(sections.compactMap { $0.track?.streamID }).sorted().joined(separator: " ")))
        for offered in sections {
            var section = MediaDescription.offering(offered.kind, maxMessageSize: maxMessageSize)
            section.mid = Mid(rawValue: offered.mid)
            if offered.stopped {
                section.port = 0
                section.direction = offered.kind == .application ? nil : .inactive
                sd.media.append(section)
                continue
            }
            if offered.kind == .application {
                section.applyTransport(transport, setup: .actpass)
                section.rtcpMux = false
                sd.media.append(section)
                continue
            }
            section.extmaps = SupportedCodecs.offeredExtmaps
            section.direction = offered.direction
            section.rtcpRsize = true
            section.applyTransport(transport, setup: .actpass)
            if let track = offered.track, offered.direction.sends {
                if offered.kind == .video, !offered.simulcastRids.isEmpty {
                    section.applySimulcast(track, rids: offered.simulcastRids)
                } else {
                    section.applySending(track)
                }
            }
            sd.media.append(section)
        }
        sd.groups = [SdpGroup(semantics: "BUNDLE", mids: sd.media.filter { !$0.isRejected }.compactMap(\.mid))]
        return sd
    }

    /// The first offer: one audio (mid 0) and one video (mid 1) section, each sendrecv with its track or recvonly.
    public static func makeOffer(sessionID: String, transport: LocalTransportParameters, audio: LocalTrack?,
                                 video: LocalTrack?) -> SessionDescription {
        makeOffer(sessionID: sessionID, transport: transport, sections: [
            OfferedSection(mid: "0", kind: .audio, direction: audio == nil ? .recvonly : .sendrecv, track: audio),
            OfferedSection(mid: "1", kind: .video, direction: video == nil ? .recvonly : .sendrecv, track: video),
        ])
    }

    /// Answers `self` (a remote offer), first or subsequent. Every offered audio and video section with a codec we
    /// speak and rtcp-mux is accepted, any number of each kind, with the offerer's payload type for our codec
    /// (docs/webrtc-interop.md §8); the rest are rejected with port 0 and keep their mid (RFC 8829 §5.3.1). Each of
    /// our `tracks` rides one section of its kind that the offer lets us send on: `sendOn`'s mid when it can (the
    /// section it already rides), else the first; every other section is received only.
    /// `setup`: our DTLS role's value once the association exists (RFC 8842 §5.3: a subsequent answer keeps it);
    /// nil answers the offer's `actpass` or `passive` with `active`.
    /// `receive` false answers every section without receiving (a publishing connection).
    public func makeAnswer(sessionID: String, version: UInt64 = 0, transport: LocalTransportParameters, setup: DtlsSetup? = nil,
                           tracks: [LocalTrack], receive: Bool = true, sendOn: [MediaKind: String] = [:],
                           dataChannels: Bool = false, maxMessageSize: Int = 256 * 1024) -> SessionDescription {
        var sd = SessionDescription(origin: SdpOrigin(sessionID: sessionID, sessionVersion: String(version)))
        sd.attributes.append(SdpAttribute(name: "msid-semantic", value: " WMS " + Set(tracks.map(\.streamID)).sorted().joined(separator: " ")))
        let usable = media.map { $0.acceptedPayloadType() }
        // Where each track goes: its section if the offer still lets us send there, else the first that does.
        var carrier: [MediaKind: String] = [:]
        for track in tracks {
            let candidates = media.indices.filter {
                usable[$0] != nil && MediaKind(rawValue: media[$0].kind) == track.kind && (media[$0].direction ?? .sendrecv).receives
            }.compactMap { media[$0].mid?.rawValue }
            carrier[track.kind] = sendOn[track.kind].flatMap { candidates.contains($0) ? $0 : nil } ?? candidates.first
        }
        // One data section at most (RFC 8841 §5: one SCTP association per DTLS connection): the first usable one.
        let dataIndex = dataChannels ? media.firstIndex { $0.acceptsDataChannels } : nil
        for (index, offered) in media.enumerated() {
            var answer = MediaDescription(kind: offered.kind, proto: offered.proto, formats: [])
            answer.mid = offered.mid
            if index == dataIndex {
                answer = MediaDescription.offering(.application, maxMessageSize: maxMessageSize)
                answer.proto = offered.proto
                answer.mid = offered.mid
                answer.applyTransport(transport, setup: setup ?? (self.setup(mediaIndex: index) ?? .actpass).answer)
                answer.rtcpMux = false
                sd.media.append(answer)
                continue
            }
            guard let pt = usable[index], let kind = MediaKind(rawValue: offered.kind) else {
                answer.port = 0
                answer.formats = Array(offered.formats.prefix(1))
                answer.direction = .inactive
                sd.media.append(answer)
                continue
            }
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
            let track = carrier[kind] == offered.mid?.rawValue ? tracks.first { $0.kind == kind } : nil
            let wanted: MediaDirection = switch (track != nil, receive) {
            case (true, true): .sendrecv
            case (true, false): .sendonly
            case (false, true): .recvonly
            case (false, false): .inactive
            }
            answer.direction = (offered.direction ?? .sendrecv).answer(wanting: wanted)
            answer.rtcpRsize = offered.rtcpRsize
            answer.applyTransport(transport, setup: setup ?? (self.setup(mediaIndex: index) ?? .actpass).answer)
            if let track, answer.direction?.sends == true { answer.applySending(track) }
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

    /// Answers with at most one track of each kind (the first offer's shape).
    public func makeAnswer(sessionID: String, transport: LocalTransportParameters, audio: LocalTrack?,
                           video: LocalTrack?) -> SessionDescription {
        makeAnswer(sessionID: sessionID, transport: transport, tracks: [audio, video].compactMap { $0 })
    }
}

extension MediaDescription {
    /// A section of `kind` with our codec and its feedback, before mid, direction and transport.
    static func offering(_ kind: MediaKind, maxMessageSize: Int = 256 * 1024) -> MediaDescription {
        switch kind {
        case .audio:
            let pt = SupportedCodecs.opus.defaultPT
            var s = MediaDescription(kind: "audio", formats: [pt.description])
            s.rtpMaps = [RtpMap(payloadType: pt, encoding: SupportedCodecs.opus.encoding, clockRate: SupportedCodecs.opus.clockRate,
                                channels: SupportedCodecs.opus.channels)]
            s.formatParameters = [FormatParameters(payloadType: pt, parameters: SupportedCodecs.opus.fmtp)]
            s.rtcpFeedback = SupportedCodecs.audioFeedback.map { RtcpFeedback(payloadType: pt, value: $0) }
            return s
        case .video:
            let pt = SupportedCodecs.vp8.defaultPT
            var s = MediaDescription(kind: "video", formats: [pt.description])
            s.rtpMaps = [RtpMap(payloadType: pt, encoding: SupportedCodecs.vp8.encoding, clockRate: SupportedCodecs.vp8.clockRate)]
            s.rtcpFeedback = SupportedCodecs.videoFeedback.map { RtcpFeedback(payloadType: pt, value: $0) }
            return s
        case .application:
            var s = MediaDescription(kind: "application", proto: "UDP/DTLS/SCTP", formats: ["webrtc-datachannel"])
            s.attributes = [SdpAttribute(name: "sctp-port", value: "5000"),
                            SdpAttribute(name: "max-message-size", value: String(maxMessageSize))]
            return s
        }
    }

    /// The payload type of our codec in this offered section, when we can accept it: a kind we speak, RTP with
    /// rtcp-mux (mandatory, docs/webrtc-interop.md §5), not already rejected.
    func acceptedPayloadType() -> PayloadType? {
        guard rtcpMux, !isRejected else { return nil }
        switch MediaKind(rawValue: kind) {
        case .audio: return payloadType(encoding: SupportedCodecs.opus.encoding, clockRate: SupportedCodecs.opus.clockRate,
                                        channels: SupportedCodecs.opus.channels)
        case .video: return payloadType(encoding: SupportedCodecs.vp8.encoding, clockRate: SupportedCodecs.vp8.clockRate)
        case .application, nil: return nil
        }
    }

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

    /// A simulcast section (RFC 8853, RFC 8851): one `a=rid` per encoding and the RtpStreamId extension, which
    /// names each packet's encoding; no `a=ssrc` lines, since each encoding has an SSRC of its own that the
    /// receiver learns from the RID on its packets (what browsers offer).
    mutating func applySimulcast(_ track: LocalTrack, rids: [String]) {
        msids = [MediaStreamID(stream: track.streamID, track: track.trackID)]
        extmaps.append(SupportedCodecs.offeredRidExtmap)
        for rid in rids { attributes.append(SdpAttribute(name: "rid", value: "\(rid) send")) }
        attributes.append(SdpAttribute(name: "simulcast", value: "send " + rids.joined(separator: ";")))
    }

    /// The rids an answer accepts to receive of `offered` (RFC 8853 §5.3: `a=simulcast:recv` lists them, `~` paused
    /// ones and `,` alternatives aside), in our order; empty when it takes no simulcast.
    func acceptedSimulcast(of offered: [String]) -> [String] {
        guard let value = attributes.first(where: { $0.name == "simulcast" })?.value, value.hasPrefix("recv ") else { return [] }
        let listed = value.dropFirst(5).split(separator: " ").first.map { $0.split(separator: ";").flatMap { $0.split(separator: ",") } } ?? []
        let accepted = Set(listed.map(String.init))
        return offered.filter { accepted.contains($0) }
    }

    mutating func applySending(_ track: LocalTrack) {
        msids = [MediaStreamID(stream: track.streamID, track: track.trackID)]
        ssrcs = [SsrcAttribute(ssrc: track.ssrc, name: "cname", value: track.cname),
                 SsrcAttribute(ssrc: track.ssrc, name: "msid", value: "\(track.streamID) \(track.trackID)")]
    }
}

extension MediaDescription {
    /// An SCTP-over-DTLS data section we can take: the RFC 8841 form (`webrtc-datachannel` with `a=sctp-port`),
    /// not the older `DTLS/SCTP 5000` with `a=sctpmap`.
    var acceptsDataChannels: Bool {
        kind == "application" && !isRejected && proto.hasSuffix("DTLS/SCTP") && formats.contains("webrtc-datachannel")
            && (sctpPort ?? 5000) > 0
    }

    /// `a=sctp-port` (RFC 8841 §5.2), absent: 5000.
    public var sctpPort: UInt16? { attributes.first { $0.name == "sctp-port" }?.value.flatMap { UInt16($0) } }

    /// `a=max-message-size` (RFC 8841 §6): 0 means no limit; absent means 64 KiB. A value beyond what an Int holds
    /// counts as no limit (we would never send that much anyway).
    public var maxMessageSize: Int {
        guard let text = attributes.first(where: { $0.name == "max-message-size" })?.value else { return 65_536 }
        guard text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), !text.isEmpty else { return 65_536 }
        return Int(text) ?? 0
    }
}
