/// An SDP session description (RFC 8866) as used by JSEP (RFC 8829): offers and answers with one
/// BUNDLE transport. Parse with `init(parsing:)`, print with `sdpText`.
public struct SessionDescription: Hashable, Sendable {
    public var version = 0
    public var origin: SdpOrigin
    public var sessionName = "-"
    public var timing = "0 0"
    public var connection: String?
    public var otherLines: [String] = []
    public var groups: [SdpGroup] = []
    public var iceLite = false
    public var iceUfrag: String?
    public var icePwd: String?
    public var iceOptions: String?
    public var fingerprints: [DtlsFingerprint] = []
    public var setup: DtlsSetup?
    public var attributes: [SdpAttribute] = []
    public var media: [MediaDescription] = []

    public init(origin: SdpOrigin) {
        self.origin = origin
    }

    public var bundleGroup: SdpGroup? { groups.first { $0.semantics == "BUNDLE" } }

    /// ICE credentials of a section: media-level values override session-level ones (RFC 8839 §5.4).
    public func iceCredentials(mediaIndex i: Int) -> (ufrag: String, pwd: String)? {
        guard media.indices.contains(i) else { return nil }
        guard let u = media[i].iceUfrag ?? iceUfrag, let p = media[i].icePwd ?? icePwd else { return nil }
        return (u, p)
    }

    public func fingerprint(mediaIndex i: Int) -> DtlsFingerprint? {
        guard media.indices.contains(i) else { return fingerprints.first }
        return media[i].fingerprints.first ?? fingerprints.first
    }

    public func setup(mediaIndex i: Int) -> DtlsSetup? {
        guard media.indices.contains(i) else { return setup }
        return media[i].setup ?? setup
    }

    /// The section trickled candidates name (RFC 8840 §4: sdpMid and sdpMLineIndex): with BUNDLE every section shares
    /// one transport, so the first one not rejected; "0" and 0 when there is none rather than an index that is not there.
    public var trickleSection: (mid: String, mLineIndex: Int) {
        guard let index = media.firstIndex(where: { !$0.isRejected }) else { return ("0", 0) }
        return (media[index].mid?.rawValue ?? "0", index)
    }

    /// All candidates of all sections (with BUNDLE they all describe the one transport).
    public var allCandidates: [IceCandidate] { media.flatMap(\.candidates) }
}
