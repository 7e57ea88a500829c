import COpenSSL

/// SHA-256 over bytes fed in pieces, so a file's digest is known the moment its last byte is written or read,
/// without reading it again. OpenSSL's EVP interface: it is already linked for TLS, and Linux has no CryptoKit.
public final class SHA256Stream {
    private let context: OpaquePointer
    private var digest: String?
    /// Bytes fed so far.
    public private(set) var count: Int64 = 0

    public init() {
        // Allocation or init failing is this machine out of memory, nothing a peer can cause.
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(SHA-256) failed")
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Feeds `bytes`; ignored once `finish` has been called.
    public func update(_ bytes: [UInt8]) {
        guard digest == nil, !bytes.isEmpty else { return }
        let ok = bytes.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        precondition(ok == 1, "EVP_DigestUpdate failed")
        count += Int64(bytes.count)
    }

    /// The digest of everything fed, as 64 lowercase hex digits (`sha256sum`'s form). Later calls return
    /// the same digest.
    public func finish() -> String {
        if let digest { return digest }
        var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &bytes, &length) == 1 && length == 32, "EVP_DigestFinal_ex failed")
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for b in bytes[0..<32] {
            text.append(hex[Int(b >> 4)])
            text.append(hex[Int(b & 0x0F)])
        }
        let result = String(decoding: text, as: UTF8.self)
        digest = result
        return result
    }

    /// The digest of `bytes` at once.
    public static func hex(_ bytes: [UInt8]) -> String {
        let stream = SHA256Stream()
        stream.update(bytes)
        return stream.finish()
    }
}
