import COpenSSL
import OpenSSLSupport

/// A TLS client over memory, sans-IO: bytes from the server go in, bytes for the server and the plaintext come out;
/// the driver keeps the TCP connection. Used for TURN over TLS (`turns:`, RFC 8656 §3.1, RFC 7065), where the core
/// frames TURN messages on the plaintext exactly as over plain TCP. Owned by one thread (not Sendable).
///
/// Verification: `.system` checks the chain against the system's trust store (OpenSSL's default paths, which
/// `SSL_CERT_FILE`/`SSL_CERT_DIR` may point elsewhere) and the name (RFC 6125) or, for an address literal, the
/// certificate's IP address; SNI (RFC 6066 §3) is sent for names only. `.insecure` accepts any certificate: it
/// encrypts, but anyone on the path can pose as the relay.
public final class TlsClientCore {
    public enum Verification: Sendable, Hashable { case system, insecure }

    public enum State: Equatable, Sendable {
        case handshaking
        case open
        /// The handshake or the session failed (the reason names OpenSSL's error and the verification result).
        case failed(String)
    }

    /// What one input produced: bytes for the server, plaintext from it.
    public struct Output: Equatable {
        public var transmit: [UInt8] = []
        public var plaintext: [UInt8] = []
        public init() {}
    }

    public private(set) var state = State.handshaking
    public var isFailed: Bool { if case .failed = state { true } else { false } }
    public let host: String
    public let verification: Verification
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    /// Plaintext given before the handshake finished, sent once it has (a TURN Allocate is usually first).
    private var waiting: [UInt8] = []
    /// Bound on `waiting`: the caller queues at most a few requests before the session opens.
    public static let maxWaitingBytes = 64 * 1024
    private var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    public init(host: String, verification: Verification) throws(EngineError) {
        self.host = host
        self.verification = verification
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw .library(name: "OpenSSL", call: "SSL_CTX_new: \(OpenSSLErrors.drain().text)", code: 0)
        }
        defer { SSL_CTX_free(ctx) }   // the SSL keeps its own reference
        _ = cssl_ctx_set_min_proto_version(ctx, TLS1_2_VERSION)
        switch verification {
        case .system:
            _ = SSL_CTX_set_default_verify_paths(ctx)
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        case .insecure:
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }
        guard let ssl = SSL_new(ctx), let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem()) else {
            throw .library(name: "OpenSSL", call: "SSL_new: \(OpenSSLErrors.drain().text)", code: 0)
        }
        // An empty read BIO means "wait for more", not end of file.
        _ = cbio_set_mem_eof_return(readBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)
        let literal = IPAddress(host) != nil
        if !literal { _ = cssl_set_tlsext_host_name(ssl, host) }
        if verification == .system {
            if literal {
                _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
            } else {
                _ = SSL_set1_host(ssl, host)
            }
        }
        SSL_set_connect_state(ssl)
        (self.ssl, self.readBIO, self.writeBIO) = (ssl, readBIO, writeBIO)
    }

    deinit { SSL_free(ssl) }   // frees both BIOs

    /// The ClientHello: call once, when the connection is made (or at once: the driver queues until connected).
    public func start() -> Output {
        var out = Output()
        advance(&out)
        return out
    }

    /// Bytes from the server.
    public func receive(_ bytes: [UInt8]) -> Output {
        var out = Output()
        guard !isFailed else { return out }
        if !bytes.isEmpty { _ = bytes.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) } }
        advance(&out)
        return out
    }

    /// Plaintext for the server: encrypted now, or after the handshake. False when it was refused (failed session,
    /// or more than `maxWaitingBytes` waiting for the handshake).
    public func send(_ plaintext: [UInt8], into out: inout Output) -> Bool {
        switch state {
        case .failed: return false
        case .handshaking:
            guard waiting.count + plaintext.count <= Self.maxWaitingBytes else { return false }
            waiting += plaintext
            return true
        case .open:
            write(plaintext)
            out.transmit += drainWrites()
            return state == .open
        }
    }

    private func advance(_ out: inout Output) {
        if state == .handshaking {
            ERR_clear_error()
            let r = SSL_do_handshake(ssl)
            if r == 1 {
                state = .open
                if !waiting.isEmpty { write(waiting); waiting = [] }
            } else {
                let error = SSL_get_error(ssl, r)
                if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE { fail("TLS handshake with \(host)") }
            }
        }
        if state == .open { out.plaintext += readAll() }
        out.transmit += drainWrites()
    }

    private func write(_ plaintext: [UInt8]) {
        guard !plaintext.isEmpty else { return }
        ERR_clear_error()
        // A memory BIO takes everything: SSL_write writes the whole buffer or fails.
        let n = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        if n <= 0 { fail("TLS write to \(host)") }
    }

    private func readAll() -> [UInt8] {
        var plaintext: [UInt8] = []
        while true {
            ERR_clear_error()
            let n = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                plaintext += readBuffer.prefix(Int(n))
                continue
            }
            let error = SSL_get_error(ssl, n)
            if error == SSL_ERROR_ZERO_RETURN { fail("the TURN server closed the TLS session") }
            else if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE { fail("TLS read from \(host)") }
            return plaintext
        }
    }

    private func drainWrites() -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(writeBIO))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let n = bytes.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32(pending)) }
        return n > 0 ? Array(bytes.prefix(Int(n))) : []
    }

    private func fail(_ what: String) {
        guard !isFailed else { return }
        var reason = "\(what): \(OpenSSLErrors.drain().text)"
        let verify = SSL_get_verify_result(ssl)
        if verification == .system, verify != X509_V_OK, let text = X509_verify_cert_error_string(verify) {
            reason += " (certificate: \(String(cString: text)))"
        }
        state = .failed(reason)
        waiting = []
    }
}

