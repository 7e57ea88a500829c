#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import OpenSSLSupport

/// Where the server's certificate comes from.
public enum TLSServerMode: Sendable, Equatable {
    /// `--tls self-signed`: an ECDSA P-256 key and a self-signed X.509 certificate for
    /// localhost/127.0.0.1, generated in memory at start.
    case selfSigned
    /// `--tls-cert FILE --tls-key FILE`: PEM files (the certificate file may hold a chain).
    case files(certificate: String, key: String)
}

/// An OpenSSL server context for https:// and wss:// on the WebSocket port.
///
/// `@unchecked Sendable` because it holds a C pointer: the `SSL_CTX` is fully configured in `init`
/// and never mutated afterwards; OpenSSL documents a configured SSL_CTX as safe to share between
/// threads for `SSL_new` (openssl-threads(7)), and only the event-loop thread calls `makeSession`.
final class TLSServerContext: @unchecked Sendable {
    let ctx: OpaquePointer
    /// SHA-256 of the DER certificate, for clients that pin it.
    let certificateSHA256: [UInt8]

    init(mode: TLSServerMode) throws(SignalingError) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw .tls("SSL_CTX_new: \(OpenSSLErrors.drain().text)") }
        self.ctx = ctx
        _ = cssl_ctx_set_min_proto_version(ctx, TLS1_2_VERSION)
        // SSL_write may return after part of the buffer and be retried with a moved buffer: the event
        // loop's output queue compacts itself between retries.
        _ = cssl_ctx_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        switch mode {
        case .selfSigned:
            let generated = try LocalhostCertificate.generate()
            // The context takes its own references; `generated` frees ours, so it must outlive both calls.
            let installed = withExtendedLifetime(generated) {
                SSL_CTX_use_certificate(ctx, generated.x509) == 1 && SSL_CTX_use_PrivateKey(ctx, generated.key) == 1
            }
            guard installed else {
                SSL_CTX_free(ctx)
                throw .tls("installing the self-signed certificate: \(OpenSSLErrors.drain().text)")
            }
        case .files(let certificate, let key):
            guard SSL_CTX_use_certificate_chain_file(ctx, certificate) == 1 else {
                SSL_CTX_free(ctx)
                throw .tls("reading certificate \(certificate): \(OpenSSLErrors.drain().text)")
            }
            guard SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1 else {
                SSL_CTX_free(ctx)
                throw .tls("reading key \(key): \(OpenSSLErrors.drain().text)")
            }
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            SSL_CTX_free(ctx)
            throw .tls("the key does not match the certificate")
        }
        guard let cert = SSL_CTX_get0_certificate(ctx) else {
            SSL_CTX_free(ctx)
            throw .tls("no certificate")
        }
        certificateSHA256 = TLSFingerprint.sha256(cert)
    }

    deinit { SSL_CTX_free(ctx) }

    /// A server-side TLS session on an accepted, non-blocking socket.
    func makeStream(fd: Int32) -> TLSStream? {
        guard let ssl = SSL_new(ctx) else { return nil }
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
        return TLSStream(fd: fd, ssl: ssl)
    }
}

enum TLSFingerprint {
    static func sha256(_ cert: OpaquePointer) -> [UInt8] {
        var md = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = X509_digest(cert, EVP_sha256(), &md, &length)
        return Array(md[0..<Int(length)])
    }
}
