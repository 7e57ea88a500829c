/// Typed values of the SDP attributes WebRTC uses (RFC 8866, RFC 8829 JSEP, RFC 5763/8842 DTLS, RFC 5576 SSRC).

/// Media direction (RFC 8866 §6.7).
public enum MediaDirection: String, Sendable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// RFC 3264 §6.1: the answer mirrors the offer (sendonly ↔ recvonly), limited by what we want.
    public func answer(wanting local: MediaDirection) -> MediaDirection {
        let theySend = self == .sendrecv || self == .sendonly
        let theyReceive = self == .sendrecv || self == .recvonly
        let weSend = theyReceive && (local == .sendrecv || local == .sendonly)
        let weReceive = theySend && (local == .sendrecv || local == .recvonly)
        switch (weSend, weReceive) {
        case (true, true): return .sendrecv
        case (true, false): return .sendonly
        case (false, true): return .recvonly
        case (false, false): return .inactive
        }
    }
}

/// DTLS role negotiation (`a=setup`, RFC 4145 §4, RFC 5763 §5).
public enum DtlsSetup: String, Sendable {
    case actpass, active, passive, holdconn

    /// RFC 5763 §5: "The endpoint that is the offerer MUST use the setup attribute value of setup:actpass";
    /// the answerer picks active or passive, and conftui answers `active` as browsers do.
    public var answer: DtlsSetup {
        switch self {
        case .actpass, .passive: return .active
        case .active: return .passive
        case .holdconn: return .holdconn
        }
    }
}

/// `a=fingerprint:<hash> <hex:hex:...>` (RFC 8122 §5).
public struct DtlsFingerprint: Hashable, Sendable, CustomStringConvertible {
    public var algorithm: String
    public var bytes: [UInt8]

    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    public init(parsing value: some StringProtocol) throws {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { throw EngineError.malformed(what: "SDP", reason: "fingerprint '\(value)'") }
        var bytes: [UInt8] = []
        for hex in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard hex.count == 2, let b = UInt8(hex, radix: 16) else {
                throw EngineError.malformed(what: "SDP", reason: "fingerprint byte '\(hex)'")
            }
            bytes.append(b)
        }
        self.init(algorithm: String(parts[0]), bytes: bytes)
    }

    /// RFC 8122 §5: upper-case hex pairs separated by colons.
    public var description: String {
        "\(algorithm) " + bytes.map { String($0, radix: 16, uppercase: true).leftPadded(2) }.joined(separator: ":")
    }
}

/// `a=rtpmap:<pt> <encoding>/<clock>[/<channels>]`.
public struct RtpMap: Hashable, Sendable {
    public var payloadType: PayloadType
    public var encoding: String
    public var clockRate: Int
    public var channels: Int?

    public init(payloadType: PayloadType, encoding: String, clockRate: Int, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encoding = encoding
        self.clockRate = clockRate
        self.channels = channels
    }

    init?(parsing value: Substring) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let pt = UInt8(parts[0]).flatMap(PayloadType.init(rawValue:)) else { return nil }
        let codec = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        guard codec.count == 2 || codec.count == 3, !codec[0].isEmpty, let clock = Int(codec[1]), clock > 0 else { return nil }
        var channels: Int?
        if codec.count == 3 {
            guard let c = Int(codec[2]), c > 0 else { return nil }
            channels = c
        }
        self.init(payloadType: pt, encoding: String(codec[0]), clockRate: clock, channels: channels)
    }

    var sdpValue: String {
        "\(payloadType) \(encoding)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }

    /// Case-insensitive codec match (RFC 8866 §6.6: encoding names are case-insensitive).
    public func matches(encoding e: String, clockRate c: Int, channels ch: Int? = nil) -> Bool {
        encoding.lowercased() == e.lowercased() && clockRate == c && (ch == nil || (channels ?? 1) == ch)
    }
}

/// `a=rtcp-fb:<pt|*> <type> [<subtype>]` (RFC 4585 §4.2).
public struct RtcpFeedback: Hashable, Sendable {
    /// nil means `*` (all formats).
    public var payloadType: PayloadType?
    public var value: String

    public init(payloadType: PayloadType?, value: String) {
        self.payloadType = payloadType
        self.value = value
    }

    init?(parsing v: Substring) {
        let parts = v.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        if parts[0] == "*" {
            payloadType = nil
        } else {
            guard let pt = UInt8(parts[0]).flatMap(PayloadType.init(rawValue:)) else { return nil }
            payloadType = pt
        }
        value = String(parts[1])
    }

    var sdpValue: String { "\(payloadType.map(\.description) ?? "*") \(value)" }
}

/// `a=fmtp:<pt> <parameters>`, parameters kept verbatim.
public struct FormatParameters: Hashable, Sendable {
    public var payloadType: PayloadType
    public var parameters: String

    public init(payloadType: PayloadType, parameters: String) {
        self.payloadType = payloadType
        self.parameters = parameters
    }

    init?(parsing v: Substring) {
        let parts = v.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let pt = UInt8(parts[0]).flatMap(PayloadType.init(rawValue:)) else { return nil }
        payloadType = pt
        parameters = String(parts[1])
    }

    var sdpValue: String { "\(payloadType) \(parameters)" }
}

/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285 §8).
public struct Extmap: Hashable, Sendable {
    public var id: Int
    public var direction: MediaDirection?
    public var uri: String
    public var attributes: String?

    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// RFC 8852's RtpStreamId: which simulcast encoding (`a=rid`) a packet belongs to.
    public static let ridURI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// The transport-wide sequence number congestion control feedback is keyed on (docs/congestion-control.md).
    public static let transportWideCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    public init(id: Int, direction: MediaDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }

    init?(parsing v: Substring) {
        let parts = v.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2 else { return nil }
        let idPart = parts[0].split(separator: "/", maxSplits: 1)
        // RFC 8285 §5: ids 1-14 (one-byte) or 1-255 (two-byte headers).
        // "/" alone splits into nothing: guard the first element rather than index it.
        guard let first = idPart.first, let id = Int(first), (1...255).contains(id) else { return nil }
        self.id = id
        if idPart.count == 2 {
            guard let d = MediaDirection(rawValue: String(idPart[1])) else { return nil }
            direction = d
        } else {
            direction = nil
        }
        uri = String(parts[1])
        attributes = parts.count == 3 ? String(parts[2]) : nil
    }

    var sdpValue: String {
        "\(id)" + (direction.map { "/\($0.rawValue)" } ?? "") + " \(uri)" + (attributes.map { " \($0)" } ?? "")
    }
}

/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 §4.1).
public struct SsrcAttribute: Hashable, Sendable {
    public var ssrc: SSRC
    public var name: String
    public var value: String?

    public init(ssrc: SSRC, name: String, value: String?) {
        self.ssrc = ssrc
        self.name = name
        self.value = value
    }

    init?(parsing v: Substring) {
        let parts = v.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let n = UInt32(parts[0]) else { return nil }
        ssrc = SSRC(n)
        if let colon = parts[1].firstIndex(of: ":") {
            name = String(parts[1][..<colon])
            value = String(parts[1][parts[1].index(after: colon)...])
        } else {
            name = String(parts[1])
            value = nil
        }
    }

    var sdpValue: String { "\(ssrc) \(name)" + (value.map { ":\($0)" } ?? "") }
}

/// `a=ssrc-group:<semantics> <ssrc>...` (RFC 5576 §4.2), e.g. FID for RTX.
public struct SsrcGroup: Hashable, Sendable {
    public var semantics: String
    public var ssrcs: [SSRC]

    public init(semantics: String, ssrcs: [SSRC]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    init?(parsing v: Substring) {
        let parts = v.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var list: [SSRC] = []
        for p in parts.dropFirst() {
            guard let n = UInt32(p) else { return nil }
            list.append(SSRC(n))
        }
        semantics = String(parts[0])
        ssrcs = list
    }

    var sdpValue: String { ([semantics] + ssrcs.map(\.description)).joined(separator: " ") }
}

/// `a=msid:<stream id> [<track id>]` (RFC 8830 §2).
public struct MediaStreamID: Hashable, Sendable {
    public var stream: String
    public var track: String?

    public init(stream: String, track: String?) {
        self.stream = stream
        self.track = track
    }

    init?(parsing v: Substring) {
        let parts = v.split(separator: " ")
        guard parts.count == 1 || parts.count == 2 else { return nil }
        stream = String(parts[0])
        track = parts.count == 2 ? String(parts[1]) : nil
    }

    var sdpValue: String { stream + (track.map { " \($0)" } ?? "") }
}

/// An attribute line this layer does not interpret, kept verbatim (`a=<name>[:<value>]`).
public struct SdpAttribute: Hashable, Sendable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    var sdpLine: String { "a=\(name)" + (value.map { ":\($0)" } ?? "") }
}
