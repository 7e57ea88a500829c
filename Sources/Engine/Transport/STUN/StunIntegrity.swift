import COpenSSL

/// MESSAGE-INTEGRITY keys and HMAC-SHA1 (RFC 5389 §15.4) through OpenSSL.
public enum StunIntegrity {
    /// Short-term credentials (what ICE uses, RFC 8445 §7.2.2): the key is the SASLprep'd password itself.
    /// ICE passwords are ASCII (RFC 8839 §5.4 ice-char), for which SASLprep is the identity.
    public static func shortTermKey(password: String) -> [UInt8] { Array(password.utf8) }

    /// Long-term credentials: key = MD5(username ":" realm ":" SASLprep(password)). The caller passes the
    /// password already prepared (conftui has no SASLprep; ICE never needs long-term credentials).
    public static func longTermKey(username: String, realm: String, password: String) -> [UInt8] {
        let input = Array("\(username):\(realm):\(password)".utf8)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var len: UInt32 = 0
        let ok = input.withUnsafeBytes { src in
            EVP_Digest(src.baseAddress, src.count, &out, &len, EVP_md5(), nil)
        }
        precondition(ok == 1, "EVP_Digest(MD5) failed: the OpenSSL default provider is missing")
        return Array(out.prefix(Int(len)))
    }

    static func hmacSHA1(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var len: UInt32 = 0
        key.withUnsafeBytes { k in
            data.withUnsafeBytes { d in
                _ = HMAC(EVP_sha1(), k.baseAddress, Int32(k.count), d.baseAddress?.assumingMemoryBound(to: UInt8.self),
                         d.count, &out, &len)
            }
        }
        return Array(out.prefix(Int(len)))
    }

    /// Constant-time comparison so a forger cannot learn the MAC byte by byte.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
