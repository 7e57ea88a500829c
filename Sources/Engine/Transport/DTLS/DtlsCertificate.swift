import COpenSSL

/// A self-signed ECDSA P-256 certificate, generated per connection as browsers do; its SHA-256 fingerprint goes
/// into `a=fingerprint` (RFC 8122 §5), which is all the peer needs to authenticate it (RFC 5763 §5).
public final class DtlsCertificate {
    let key: OpaquePointer
    let x509: OpaquePointer
    public let fingerprint: DtlsFingerprint

    public init(commonName: String = "conftui") throws {
        guard let key = cssl_gen_ec_key("P-256") else { throw Self.failure("EVP_EC_gen") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw Self.failure("X509_new")
        }
        self.key = key
        self.x509 = x509
        var serial = SystemRandomNumberGenerator()
        X509_set_version(x509, 2)
        ASN1_INTEGER_set(X509_get_serialNumber(x509), Int(serial.next() >> 2))
        // Browsers backdate a day so peers with skewed clocks accept it; a month of validity covers any call.
        X509_gmtime_adj(X509_getm_notBefore(x509), -86_400)
        X509_gmtime_adj(X509_getm_notAfter(x509), 30 * 86_400)
        X509_set_pubkey(x509, key)
        let name = X509_get_subject_name(x509)
        // The length is given: the bytes of a Swift array have no terminating NUL for OpenSSL's strlen to stop at.
        let commonNameBytes = Array(commonName.utf8)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonNameBytes, Int32(clamping: commonNameBytes.count), -1, 0)
        X509_set_issuer_name(x509, name)
        guard X509_sign(x509, key, EVP_sha256()) > 0 else { throw Self.failure("X509_sign") }
        fingerprint = try Self.sha256Fingerprint(of: x509)
    }

    /// The subject's common name as the certificate carries it (what a peer reading it sees).
    var subjectCommonName: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = X509_NAME_get_text_by_NID(X509_get_subject_name(x509), NID_commonName, &buffer, Int32(buffer.count))
        guard n >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        X509_free(x509)
        EVP_PKEY_free(key)
    }

    static func sha256Fingerprint(of x509: OpaquePointer) throws -> DtlsFingerprint {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(x509, EVP_sha256(), &digest, &length) == 1 else { throw failure("X509_digest") }
        return DtlsFingerprint(algorithm: "sha-256", bytes: Array(digest.prefix(Int(length))))
    }

    static func failure(_ call: String) -> EngineError {
        .library(name: "OpenSSL", call: call, code: Int32(truncatingIfNeeded: ERR_get_error()))
    }
}
