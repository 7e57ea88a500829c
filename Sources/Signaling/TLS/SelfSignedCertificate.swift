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

extension SelfSignedCertificate {
    /// A fresh key and certificate as PEM text (for writing `--tls-cert`/`--tls-key` files).
    static func generatePEM() throws(SignalingError) -> (certificate: String, privateKey: String) {
        let (cert, key) = try generate()
        defer { X509_free(cert); EVP_PKEY_free(key) }
        func pem(_ write: (OpaquePointer) -> Int32) throws(SignalingError) -> String {
            guard let bio = BIO_new(BIO_s_mem()) else { throw .tls("BIO_new failed") }
            defer { BIO_free(bio) }
            guard write(bio) == 1 else { throw .tls("PEM write: \(TLSErrors.drain())") }
            var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
            let n = BIO_read(bio, &bytes, Int32(bytes.count))
            return String(decoding: bytes[0..<Int(max(0, n))], as: UTF8.self)
        }
        let certificate = try pem { PEM_write_bio_X509($0, cert) }
        let privateKey = try pem { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        return (certificate, privateKey)
    }
}
