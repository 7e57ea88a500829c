import COpenSSL

/// A fresh ECDSA P-256 key and a self-signed X.509 v3 certificate over it, signed with SHA-256: a random positive
/// 62-bit serial, subject = issuer = CN `commonName`, an optional subjectAltName. DTLS makes one per connection
/// (RFC 5763 §5: the SDP fingerprint, not a CA, vouches for it); `--tls self-signed` makes one at start.
///
/// Owns both OpenSSL objects and frees them on deinit; `SSL_CTX_use_certificate`/`_PrivateKey` take their own
/// references, so a context may outlive this.
package final class SelfSignedCertificate {
    /// `EVP_PKEY *`
    package let key: OpaquePointer
    /// `X509 *`
    package let x509: OpaquePointer

    /// - Parameters:
    ///   - subjectAltName: OpenSSL's config syntax, e.g. "DNS:localhost,IP:127.0.0.1"; nil: no extension.
    ///   - validFrom: seconds before now the certificate becomes valid (a peer with a slow clock still accepts it).
    ///   - validFor: seconds after now it expires.
    package init(commonName: String, subjectAltName: String? = nil, validFrom: Int, validFor: Int) throws(OpenSSLFailure) {
        guard let key = cssl_gen_ec_key("P-256") else { throw OpenSSLFailure(call: "EVP_EC_gen") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw OpenSSLFailure(call: "X509_new")
        }
        // From here deinit frees both, on the error paths too.
        self.key = key
        self.x509 = x509
        var random = SystemRandomNumberGenerator()
        let serial = Int(random.next() >> 2)   // positive, as RFC 5280 §4.1.2.2 requires
        func check(_ ok: Bool, _ call: String) throws(OpenSSLFailure) {
            if !ok { throw OpenSSLFailure(call: call) }
        }
        try check(X509_set_version(x509, 2) == 1, "X509_set_version")   // 2 means v3 (RFC 5280 §4.1.2.1)
        try check(ASN1_INTEGER_set(X509_get_serialNumber(x509), serial) == 1, "ASN1_INTEGER_set")
        try check(X509_gmtime_adj(X509_getm_notBefore(x509), -validFrom) != nil, "X509_gmtime_adj")
        try check(X509_gmtime_adj(X509_getm_notAfter(x509), validFor) != nil, "X509_gmtime_adj")
        try check(X509_set_pubkey(x509, key) == 1, "X509_set_pubkey")
        guard let name = X509_get_subject_name(x509) else { throw OpenSSLFailure(call: "X509_get_subject_name") }
        // The length is given: the bytes of a Swift array have no terminating NUL for OpenSSL's strlen to stop at.
        let commonNameBytes = Array(commonName.utf8)
        try check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonNameBytes,
                                             Int32(clamping: commonNameBytes.count), -1, 0) == 1, "X509_NAME_add_entry_by_txt")
        try check(X509_set_issuer_name(x509, name) == 1, "X509_set_issuer_name")
        if let subjectAltName {
            guard let san = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, subjectAltName) else {
                throw OpenSSLFailure(call: "X509V3_EXT_conf_nid")
            }
            defer { X509_EXTENSION_free(san) }
            try check(X509_add_ext(x509, san, -1) == 1, "X509_add_ext")
        }
        try check(X509_sign(x509, key, EVP_sha256()) > 0, "X509_sign")
    }

    deinit {
        X509_free(x509)
        EVP_PKEY_free(key)
    }
}
