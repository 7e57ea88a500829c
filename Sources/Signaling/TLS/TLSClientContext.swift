#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import OpenSSLSupport

/// How a client checks the server's certificate.
public enum TLSVerification: Sendable, Equatable {
    /// The system trust store and a host-name check (RFC 6125).
    case system
    /// Accept any certificate: for `--tls self-signed` servers in tests and on a LAN. Encrypts but
    /// does not authenticate.
    case insecure
    /// Accept exactly the certificate whose DER SHA-256 is this (e.g. `SignalingServer.tlsCertificateSHA256`).
    case pinnedSHA256([UInt8])
}

/// Opens client-side TLS sessions on connected sockets.
enum TLSClientSession {
    /// Performs the TLS handshake on a connected non-blocking socket within `timeout` seconds.
    static func connect(fd: Int32, host: String, verification: TLSVerification, timeout: Double) throws(SignalingError) -> TLSStream {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw .tls("SSL_CTX_new: \(OpenSSLErrors.drain().text)") }
        defer { SSL_CTX_free(ctx) }  // the SSL keeps its own reference
        _ = cssl_ctx_set_min_proto_version(ctx, TLS1_2_VERSION)
        _ = cssl_ctx_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        switch verification {
        case .system:
            _ = SSL_CTX_set_default_verify_paths(ctx)
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        case .insecure, .pinnedSHA256:
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }
        guard let ssl = SSL_new(ctx) else { throw .tls("SSL_new: \(OpenSSLErrors.drain().text)") }
        SSL_set_fd(ssl, fd)
        if SocketOptions.ipv4(host) == nil || host == "localhost" {
            _ = cssl_set_tlsext_host_name(ssl, host)  // SNI (RFC 6066 §3) is for names, not addresses
        }
        if verification == .system { _ = SSL_set1_host(ssl, host) }
        SSL_set_connect_state(ssl)
        let stream = TLSStream(fd: fd, ssl: ssl)
        let deadline = MonotonicClock.now() + timeout
        while true {
            ERR_clear_error()
            let r = SSL_do_handshake(ssl)
            if r == 1 { break }
            let err = SSL_get_error(ssl, r)
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else {
                SSL_free(ssl)
                throw .timeout
            }
            if err == SSL_ERROR_WANT_READ {
                _ = SocketOptions.wait(fd, events: Int16(POLLIN), timeout: remaining)
            } else if err == SSL_ERROR_WANT_WRITE {
                _ = SocketOptions.wait(fd, events: Int16(POLLOUT), timeout: remaining)
            } else {
                let text = OpenSSLErrors.drain().text
                SSL_free(ssl)
                throw .tls("handshake: \(text)")
            }
        }
        if case .pinnedSHA256(let expected) = verification {
            guard let cert = SSL_get1_peer_certificate(ssl) else {
                SSL_free(ssl)
                throw .tls("server sent no certificate")
            }
            let actual = TLSFingerprint.sha256(cert)
            X509_free(cert)
            guard actual == expected else {
                SSL_free(ssl)
                throw .tls("server certificate does not match the pinned SHA-256")
            }
        }
        return stream
    }
}
