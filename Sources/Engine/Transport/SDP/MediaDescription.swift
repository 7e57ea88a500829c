/// One `m=` section (RFC 8866 §5.14) with the attributes WebRTC needs typed, everything else kept verbatim.
public struct MediaDescription: Hashable, Sendable {
    /// "audio", "video", "application", ...
    public var kind: String
    /// 0 means rejected (RFC 3264 §6); 9 is the JSEP placeholder (RFC 8829 §5.2.1).
    public var port: UInt16
    public var proto: String
    /// Payload types for RTP media, "webrtc-datachannel" for SCTP.
    public var formats: [String]
    /// The `c=` value, e.g. "IN IP4 0.0.0.0".
    public var connection: String?
    /// Other non-attribute lines (`b=`, `i=`...), verbatim with their `x=` prefix.
    public var otherLines: [String] = []

    public var mid: Mid?
    public var direction: MediaDirection?
    public var msids: [MediaStreamID] = []
    public var iceUfrag: String?
    public var icePwd: String?
    public var iceOptions: String?
    public var fingerprints: [DtlsFingerprint] = []
    public var setup: DtlsSetup?
    public var candidates: [IceCandidate] = []
    public var endOfCandidates = false
    public var rtcpMux = false
    public var rtcpRsize = false
    public var rtpMaps: [RtpMap] = []
    public var formatParameters: [FormatParameters] = []
    public var rtcpFeedback: [RtcpFeedback] = []
    public var extmaps: [Extmap] = []
    public var ssrcGroups: [SsrcGroup] = []
    public var ssrcs: [SsrcAttribute] = []
    /// Attributes not interpreted here (or malformed ones), in order, kept so nothing is silently lost.
    public var attributes: [SdpAttribute] = []

    public init(kind: String, port: UInt16 = 9, proto: String = "UDP/TLS/RTP/SAVPF", formats: [String],
                connection: String? = "IN IP4 0.0.0.0") {
        self.kind = kind
        self.port = port
        self.proto = proto
        self.formats = formats
        self.connection = connection
    }

    public var payloadTypes: [PayloadType] {
        formats.compactMap { UInt8($0).flatMap(PayloadType.init(rawValue:)) }
    }

    public func rtpMap(for pt: PayloadType) -> RtpMap? { rtpMaps.first { $0.payloadType == pt } }
    public func formatParameters(for pt: PayloadType) -> String? {
        formatParameters.first { $0.payloadType == pt }?.parameters
    }
    public func feedback(for pt: PayloadType) -> [String] {
        rtcpFeedback.filter { $0.payloadType == pt || $0.payloadType == nil }.map(\.value)
    }

    /// The first payload type whose rtpmap matches, in the order the m= line lists them (its preference).
    public func payloadType(encoding: String, clockRate: Int, channels: Int? = nil) -> PayloadType? {
        payloadTypes.first { rtpMap(for: $0)?.matches(encoding: encoding, clockRate: clockRate, channels: channels) == true }
    }

    public var isRejected: Bool { port == 0 }
}

/// `a=group:<semantics> <mid>...` (RFC 5888 §5), e.g. BUNDLE (RFC 8843).
public struct SdpGroup: Hashable, Sendable {
    public var semantics: String
    public var mids: [Mid]

    public init(semantics: String, mids: [Mid]) {
        self.semantics = semantics
        self.mids = mids
    }
}

/// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <address>` (RFC 8866 §5.2).
public struct SdpOrigin: Hashable, Sendable {
    public var username = "-"
    /// Kept as text: Chrome writes 19-digit ids that overflow Int64 in some stacks.
    public var sessionID: String
    public var sessionVersion: String
    public var netType = "IN"
    public var addrType = "IP4"
    public var address = "127.0.0.1"

    public init(sessionID: String, sessionVersion: String = "2") {
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
    }
}
