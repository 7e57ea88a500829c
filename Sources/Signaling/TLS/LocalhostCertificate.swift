import COpenSSL
import OpenSSLSupport

/// The certificate of `--tls self-signed`, made in memory at start (OpenSSLSupport's `SelfSignedCertificate`: an
/// ECDSA P-256 key, X.509 v3): subject CN=localhost, subjectAltName DNS:localhost and IP:127.0.0.1 (browsers and
/// OpenSSL's host check read only the SAN, RFC 6125 §6.4.4), valid from an hour ago for 30 days.
enum LocalhostCertificate {
    static func generate() throws(SignalingError) -> SelfSignedCertificate {
        do {
            return try SelfSignedCertificate(commonName: "localhost", subjectAltName: "DNS:localhost,IP:127.0.0.1",
                                             validFrom: 3600, validFor: 30 * 24 * 3600)
        } catch {
            throw .tls("building the self-signed certificate: \(error)")
        }
    }

    /// A fresh key and certificate as PEM text (for writing `--tls-cert`/`--tls-key` files).
    static func generatePEM() throws(SignalingError) -> (certificate: String, privateKey: String) {
        let generated = try generate()
        func pem(_ write: (OpaquePointer) -> Int32) throws(SignalingError) -> String {
            guard let bio = BIO_new(BIO_s_mem()) else { throw .tls("BIO_new failed") }
            defer { BIO_free(bio) }
            guard write(bio) == 1 else { throw .tls("PEM write: \(OpenSSLErrors.drain().text)") }
            var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
            let n = BIO_read(bio, &bytes, Int32(bytes.count))
            return String(decoding: bytes[0..<Int(max(0, n))], as: UTF8.self)
        }
        // `generated` frees the key and certificate on deinit: keep it alive until both are written.
        return try withExtendedLifetime(generated) { () throws(SignalingError) in
            let certificate = try pem { PEM_write_bio_X509($0, generated.x509) }
            let privateKey = try pem { PEM_write_bio_PrivateKey($0, generated.key, nil, nil, 0, nil, nil) }
            return (certificate, privateKey)
        }
    }
}
