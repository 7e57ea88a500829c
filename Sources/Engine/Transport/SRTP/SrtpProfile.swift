/// DTLS-SRTP protection profiles (RFC 5764 §4.1.2, RFC 7714 §14.2) and their key sizes.
public enum SrtpProfile: UInt, Sendable, CaseIterable {
    /// Mandatory for WebRTC; Chrome picks it even when GCM is listed first (docs/webrtc-interop.md §4).
    case aes128CmHmacSha1_80 = 0x0001
    case aeadAes128Gcm = 0x0007

    /// OpenSSL's name for `SSL_CTX_set_tlsext_use_srtp`.
    var openSSLName: String {
        switch self {
        case .aes128CmHmacSha1_80: return "SRTP_AES128_CM_SHA1_80"
        case .aeadAes128Gcm: return "SRTP_AEAD_AES_128_GCM"
        }
    }

    public var keyLength: Int { 16 }
    /// RFC 3711 §8.2: 112-bit salt for AES-CM; RFC 7714 §12: 96-bit salt for GCM.
    public var saltLength: Int { self == .aes128CmHmacSha1_80 ? 14 : 12 }
}

/// Keys exported from DTLS (RFC 5764 §4.2): each side's master key ‖ master salt.
public struct SrtpKeyingMaterial: Hashable, Sendable {
    public var profile: SrtpProfile
    public var localMasterKey: [UInt8]
    public var remoteMasterKey: [UInt8]

    /// RFC 5764 §4.2: the exporter output is client_write_key ‖ server_write_key ‖ client_write_salt ‖ server_write_salt.
    init(profile: SrtpProfile, exported: [UInt8], isClient: Bool) {
        let k = profile.keyLength, s = profile.saltLength
        let clientKey = Array(exported[0..<k]), serverKey = Array(exported[k..<2 * k])
        let clientSalt = Array(exported[2 * k..<2 * k + s]), serverSalt = Array(exported[2 * k + s..<2 * k + 2 * s])
        self.profile = profile
        localMasterKey = isClient ? clientKey + clientSalt : serverKey + serverSalt
        remoteMasterKey = isClient ? serverKey + serverSalt : clientKey + clientSalt
    }
}
