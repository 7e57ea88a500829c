#if canImport(Glibc)
import Glibc
#endif
import COpenSSL

/// An in-memory ECDSA P-256 key and self-signed X.509 v3 certificate for `--tls self-signed`:
/// subject CN=localhost, subjectAltName DNS:localhost and IP:127.0.0.1 (browsers and OpenSSL's
/// host check read only the SAN, RFC 6125 §6.4.4), valid from an hour ago for 30 days.
enum SelfSignedCertificate {
    /// Returns owned pointers (X509*, EVP_PKEY*); the caller frees them.
    static func generate() throws(SignalingError) -> (OpaquePointer, OpaquePointer) {
        guard let key = cssl_gen_ec_key("P-256") else { throw .tls("EC key generation: \(TLSErrors.drain())") }
        guard let cert = X509_new() else {
            EVP_PKEY_free(key)
            throw .tls("X509_new failed")
        }
        var ok = X509_set_version(cert, 2) == 1  // 2 means v3 (RFC 5280 §4.1.2.1)
        var serial: UInt32 = 0
        _ = withUnsafeMutableBytes(of: &serial) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 4) }
        ok = ok && ASN1_INTEGER_set(X509_get_serialNumber(cert), Int(serial & 0x7FFF_FFFF)) == 1
        ok = ok && X509_gmtime_adj(X509_getm_notBefore(cert), -3600) != nil
        ok = ok && X509_gmtime_adj(X509_getm_notAfter(cert), 30 * 24 * 3600) != nil
        ok = ok && X509_set_pubkey(cert, key) == 1
        if ok, let name = X509_get_subject_name(cert) {
            ok = X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, Array("localhost".utf8), -1, -1, 0) == 1
            ok = ok && X509_set_issuer_name(cert, name) == 1
        }
        if ok, let san = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1") {
            ok = X509_add_ext(cert, san, -1) == 1
            X509_EXTENSION_free(san)
        } else {
            ok = false
        }
        ok = ok && X509_sign(cert, key, EVP_sha256()) > 0
        guard ok else {
            X509_free(cert)
            EVP_PKEY_free(key)
            throw .tls("building the self-signed certificate: \(TLSErrors.drain())")
        }
        return (cert, key)
    }
}
