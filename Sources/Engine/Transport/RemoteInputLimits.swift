/// Every length a remote party controls, in one place, with the reason for each number.
///
/// Anyone in a SkyRTC room can send us an offer, an answer or a candidate, and whatever a peer writes there ends up
/// in STUN attributes, RTP header extensions, dictionaries and logs. Each value is checked against these limits
/// where it enters (`SessionDescription(parsing:)`, `IceCandidate(parsing:)`, `PeerConnection`'s remote-description
/// and candidate commands, `CallCore` and the session's SkyRTC translation for member ids, the STUN codec,
/// `VP8Decoder`); what is over a limit is refused with an `EngineError.malformed` (or a log line) that says which
/// value and which limit. A refused offer or answer fails that one peer connection, a refused candidate or message is
/// dropped, and the call goes on with everyone else. Where an RFC gives a limit it is quoted; elsewhere the limit is
/// generous next to what browsers and aiortc write and small next to what would hurt. (Display names are cut to
/// 64 bytes by `SkyRTCDisplayName`, in the Signaling module, which both the server and the client apply.)
public enum RemoteInputLimits {
    /// RFC 8839 §5.4: "ufrag = 4*256ice-char".
    public static let iceUfragLength = 4...256
    /// RFC 8839 §5.4: "password = 22*256ice-char".
    public static let icePwdLength = 22...256
    /// RFC 5888 §4 makes a mid a `token` of any length; RFC 8843 §15 sends it in every RTP packet as the MID header
    /// extension, whose element is at most 16 bytes in the one-byte form and 255 in the two-byte form (RFC 8285
    /// §4.2, §4.3). Browsers and aiortc write "0", "1", ...; 64 bytes keeps it well inside one two-byte element.
    public static let midBytes = 1...64
    /// RFC 8830 §2: "msid-id = 1*64token-char", "msid-appdata = 1*64token-char".
    public static let msidPartBytes = 1...64
    /// RFC 3550 §6.5: an SDES item (the CNAME among them) has an 8-bit length, so at most 255 octets.
    public static let cnameBytes = 0...255
    /// RFC 8839 §5.1: "foundation = 1*32ice-char".
    public static let foundationLength = 1...32
    /// RFC 8839 §5.1: connection-address is an IP address or an FQDN; RFC 1035 §2.3.4 caps a name at 255 octets on
    /// the wire, 253 characters written out (Chrome's `<uuid>.local` names are 42).
    public static let candidateAddressBytes = 1...253
    /// RFC 8839 §5.1 leaves extension names (`token`) and values (`*VCHAR`) unbounded. Chrome writes five pairs
    /// (generation, ufrag, network-id, network-cost, tcptype) of a few characters; the ufrag one is at most 256.
    public static let candidateExtensionBytes = 1...256
    public static let candidateExtensions = 16
    /// A whole `candidate:` line (Chrome's are about 150 bytes; 16 extensions of 256 bytes would not fit, so the
    /// line bounds the work before any field is looked at).
    public static let candidateLineBytes = 1024
    /// RFC 8122 §5: "hash-func" is an IANA name ("sha-256", "sha-512", ...) and the fingerprint 2UHEX pairs of the
    /// digest: 16 (MD5) to 64 (SHA-512) bytes.
    public static let fingerprintAlgorithmBytes = 1...16
    public static let fingerprintBytes = 16...64
    /// m= sections in one description. A mesh peer uses two or three (audio, video, perhaps a shared screen and a
    /// data channel); an SFU's subscription has one per stream it forwards: 32 participants' audio and video, a data
    /// channel, and room for stopped sections that keep their places (RFC 8829 §5.2.2).
    public static let mediaSections = 72
    /// A whole SDP text. Chrome's audio+video offer is about 6 KB (a video section about 3 KB), aiortc's about 2 KB;
    /// `mediaSections` of Chrome's video section stay under 128 KB. The signaling server allows 1 MiB messages.
    public static let sdpBytes = 262_144
    /// A room member's id as the signaling server relays it: conftui's server and the original both use UUIDs
    /// (36 characters).
    public static let peerIDBytes = 1...128
    /// RFC 5389 §15.3: USERNAME "MUST contain a UTF-8 encoded sequence of less than 513 bytes" (it holds both
    /// ufrags of a check, RFC 8445 §7.2.2). The STUN decoder refuses longer ones and the encoder will not write them.
    public static let stunUsernameBytes = 512
    /// RFC 5389 §15.6, §15.7, §15.8, §15.10: the ERROR-CODE reason, REALM, NONCE and SOFTWARE are "fewer than 128
    /// characters (which can be as long as 763 bytes)".
    public static let stunTextBytes = 763
    /// RFC 6386 §9.1 lets a VP8 keyframe announce up to 16383x16383, which libvpx would allocate before decoding a
    /// byte of picture (about 400 MB a frame buffer, several buffers). A tile shows a few hundred pixels and the
    /// largest picture a peer ordinarily sends is a 1080p camera (coded as 1920x1088 in 16-pixel macroblocks), so
    /// keyframes above that are dropped before libvpx sees them.
    public static let vp8MaxWidth = 1920
    public static let vp8MaxHeight = 1088

    /// RFC 8839 §5.1: "ice-char = ALPHA / DIGIT / "+" / "/"".
    public static func isIceChars(_ s: some StringProtocol) -> Bool {
        s.utf8.allSatisfy { c in
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2B || c == 0x2F
        }
    }

    /// A remote value for an error message or a log line: at most 40 characters of it, and its size when cut, so
    /// a 70,000-byte value never lands whole in a log.
    public static func quote(_ s: some StringProtocol, size: Bool = true) -> String {
        let bytes = s.utf8.count
        guard bytes > 40 else { return "'\(s)'" }
        return "'\(String(s.prefix(40)))...'" + (size ? " (\(bytes) bytes)" : "")
    }

    /// Why a room member's id cannot be used (nil when it can): ids become dictionary keys, tile keys and log
    /// prefixes, and both servers give 36-character UUIDs.
    public static func peerIDRefusal(_ id: String) -> String? {
        let n = id.utf8.count
        guard !peerIDBytes.contains(n) else { return nil }
        return "peer id \(quote(id, size: false)) is \(n) bytes; \(peerIDBytes.lowerBound)-\(peerIDBytes.upperBound) are accepted"
    }

    static func refuse(_ what: String, _ reason: String) -> EngineError { .malformed(what: what, reason: reason) }

    /// Throws unless `value` has a byte length in `allowed`; `rule` names where the limit comes from.
    static func check(_ value: some StringProtocol, bytes allowed: ClosedRange<Int>, _ what: String, _ name: String,
                      rule: String) throws(EngineError) {
        let n = value.utf8.count
        guard allowed.contains(n) else {
            throw refuse(what, "\(name) \(quote(value, size: false)) is \(n) bytes; \(rule) allows \(allowed.lowerBound)-\(allowed.upperBound)")
        }
    }
}
