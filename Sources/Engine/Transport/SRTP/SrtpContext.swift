import CSRTP

/// SRTP and SRTCP protection for one DTLS-SRTP association through libsrtp2 (RFC 3711, RFC 7714): an outbound
/// session keyed with our master key and an inbound one keyed with the peer's, each with libsrtp's replay
/// protection (RFC 3711 §3.3.2).
///
/// The inbound session is keyed for `ssrc_any_inbound`: libsrtp authenticates a packet from an SSRC it has no stream
/// for with the session's template and, once it authenticates, clones a stream (a crypto context per SSRC, RFC 3711
/// §3.2.3) for that SSRC that lives as long as the session. Only the keyed peer can add streams, but one per SSRC it
/// makes up: `TransportSession` therefore drops packets from new SSRCs before `unprotect` once
/// `TransportLimits.maxInboundSRTPStreams` have streams.
public final class SrtpContext {
    private let outbound: OpaquePointer
    private let inbound: OpaquePointer
    public let profile: SrtpProfile

    /// libsrtp2 needs one global `srtp_init`; a static `let` runs it exactly once, thread-safely.
    private static let libraryStatus: srtp_err_status_t = srtp_init()

    public convenience init(keys: SrtpKeyingMaterial) throws {
        try self.init(profile: keys.profile, localMasterKey: keys.localMasterKey, remoteMasterKey: keys.remoteMasterKey)
    }

    public init(profile: SrtpProfile, localMasterKey: [UInt8], remoteMasterKey: [UInt8]) throws {
        let expected = profile.keyLength + profile.saltLength
        guard localMasterKey.count == expected, remoteMasterKey.count == expected else {
            throw EngineError.invalidArgument("SRTP master key+salt must be \(expected) bytes")
        }
        guard Self.libraryStatus == srtp_err_status_ok else {
            throw EngineError.library(name: "libsrtp2", call: "srtp_init", code: Int32(Self.libraryStatus.rawValue))
        }
        self.profile = profile
        outbound = try Self.session(profile: profile, key: localMasterKey, direction: ssrc_any_outbound)
        do {
            inbound = try Self.session(profile: profile, key: remoteMasterKey, direction: ssrc_any_inbound)
        } catch {
            srtp_dealloc(outbound)
            throw error
        }
    }

    deinit {
        srtp_dealloc(outbound)
        srtp_dealloc(inbound)
    }

    private static func session(profile: SrtpProfile, key: [UInt8], direction: srtp_ssrc_type_t) throws -> OpaquePointer {
        var policy = srtp_policy_t()
        switch profile {
        case .aes128CmHmacSha1_80:
            // The `aes_cm_128_hmac_sha1_80` setter is a macro alias of these (docs/toolchain-pitfalls.md §1).
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction
        // Replay window (RFC 3711 §3.3.2 minimum 64); 1024 tolerates video bursts reordered by the network.
        policy.window_size = 1024
        // NACK answers resend the same sequence number without RTX; libsrtp would refuse them otherwise.
        policy.allow_repeat_tx = 1
        var session: OpaquePointer?
        var keyCopy = key
        let status = keyCopy.withUnsafeMutableBufferPointer { buffer -> srtp_err_status_t in
            policy.key = buffer.baseAddress
            return srtp_create(&session, &policy)   // libsrtp copies the key
        }
        guard status == srtp_err_status_ok, let session else {
            throw EngineError.library(name: "libsrtp2", call: "srtp_create", code: Int32(status.rawValue))
        }
        return session
    }

    public func protectRTP(_ packet: [UInt8]) throws -> [UInt8] {
        try transform(packet, grow: true, minimum: 12, call: "srtp_protect") { srtp_protect(outbound, $0, $1) }
    }

    /// Fails on authentication failure (tampered or wrong key) and on replays.
    public func unprotectRTP(_ packet: [UInt8]) throws -> [UInt8] {
        try transform(packet, grow: false, minimum: 12, call: "srtp_unprotect") { srtp_unprotect(inbound, $0, $1) }
    }

    public func protectRTCP(_ packet: [UInt8]) throws -> [UInt8] {
        try transform(packet, grow: true, minimum: 8, call: "srtp_protect_rtcp") { srtp_protect_rtcp(outbound, $0, $1) }
    }

    public func unprotectRTCP(_ packet: [UInt8]) throws -> [UInt8] {
        try transform(packet, grow: false, minimum: 8, call: "srtp_unprotect_rtcp") { srtp_unprotect_rtcp(inbound, $0, $1) }
    }

    private func transform(_ packet: [UInt8], grow: Bool, minimum: Int, call: String,
                           _ body: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t) throws -> [UInt8] {
        // RTP needs a 12-byte header and RTCP an 8-byte one; libsrtp checks the rest.
        guard packet.count >= minimum else { throw EngineError.malformed(what: "SRTP", reason: "packet of \(packet.count) bytes") }
        var buffer = packet + [UInt8](repeating: 0, count: grow ? Int(SRTP_MAX_TRAILER_LEN) : 0)
        var length = Int32(packet.count)
        let status = buffer.withUnsafeMutableBytes { body($0.baseAddress!, &length) }
        guard status == srtp_err_status_ok else {
            throw EngineError.library(name: "libsrtp2", call: call, code: Int32(status.rawValue))
        }
        return Array(buffer.prefix(Int(length)))
    }
}
