import COpenSSL
import OpenSSLSupport

/// One side of a DTLS 1.2 handshake for DTLS-SRTP (RFC 5764), sans-IO: datagrams and `now` in, datagrams, events
/// and a deadline out. Both roles: `a=setup:active` is the DTLS client, `passive` the server (RFC 5763 §5).
/// The peer certificate must match the fingerprint from its SDP, else the handshake fails (RFC 5763 §5, RFC 8122).
///
/// Timers: OpenSSL keeps its own (monotonic, real-time) retransmission timer; the deadline returned here is
/// `now` plus what `DTLSv1_get_timeout` reports, and `handleTimeout` calls `DTLSv1_handle_timeout`, which
/// retransmits only when that real timer has expired.
public final class DtlsEndpoint {
    public enum Role: Sendable {
        case client, server

        /// RFC 5763 §5: "active" initiates the DTLS handshake (client); "passive" waits for it (server).
        public init?(setup: DtlsSetup) {
            switch setup {
            case .active: self = .client
            case .passive: self = .server
            case .actpass, .holdconn: return nil
            }
        }
    }

    public enum State: Equatable, Sendable {
        case new, handshaking, connected, failed(String), closed
    }

    public enum Event: Equatable, Sendable {
        case connected(SrtpKeyingMaterial)
        case failed(EngineError)
        /// The peer sent close_notify.
        case closed
        /// One application-data record: an SCTP packet for the data channels (RFC 8261).
        case applicationData([UInt8])
    }

    public struct Output: Sendable {
        public var transmits: [[UInt8]] = []
        public var events: [Event] = []
        public var deadline: TransportTime?
    }

    /// What the verify callback needs; reached from C through `SSL_get_ex_data(ssl, 0)`.
    final class PeerCheck {
        let expected: DtlsFingerprint
        var verified = false
        var mismatch: String?
        init(expected: DtlsFingerprint) { self.expected = expected }
    }

    public let role: Role
    public private(set) var state: State = .new
    public private(set) var keyingMaterial: SrtpKeyingMaterial?
    private let ctx: OpaquePointer
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let sink = DatagramSink()
    private let peerCheck: PeerCheck
    private let certificate: DtlsCertificate

    /// - Parameters:
    ///   - mtu: largest datagram OpenSSL may produce (1200 leaves room for IPv6/UDP/TURN overhead).
    ///   - profiles: offered SRTP profiles in preference order.
    public init(role: Role, certificate: DtlsCertificate, remoteFingerprint: DtlsFingerprint, mtu: Int = 1200,
                profiles: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80]) throws {
        guard remoteFingerprint.algorithm == "sha-256", remoteFingerprint.bytes.count == 32 else {
            throw EngineError.invalidArgument("only sha-256 fingerprints are supported, got \(remoteFingerprint.algorithm)")
        }
        self.role = role
        self.certificate = certificate
        peerCheck = PeerCheck(expected: remoteFingerprint)
        ERR_clear_error()
        guard let ctx = SSL_CTX_new(DTLS_method()) else { throw DtlsCertificate.failure("SSL_CTX_new") }
        self.ctx = ctx
        // docs/webrtc-interop.md §3: DTLS 1.2 only (OpenSSL 3.0 has no DTLS 1.3, but pin it anyway).
        _ = cssl_ctx_set_min_proto_version(ctx, DTLS1_2_VERSION)
        _ = cssl_ctx_set_max_proto_version(ctx, DTLS1_2_VERSION)
        guard SSL_CTX_use_certificate(ctx, certificate.x509) == 1, SSL_CTX_use_PrivateKey(ctx, certificate.key) == 1 else {
            SSL_CTX_free(ctx)
            throw DtlsCertificate.failure("SSL_CTX_use_certificate")
        }
        // Returns 0 on success (docs/toolchain-pitfalls.md §1).
        guard SSL_CTX_set_tlsext_use_srtp(ctx, profiles.map(\.openSSLName).joined(separator: ":")) == 0 else {
            SSL_CTX_free(ctx)
            throw DtlsCertificate.failure("SSL_CTX_set_tlsext_use_srtp")
        }
        // Both sides must present a certificate (the server asks with CertificateRequest); the chain is not
        // checked against CAs, only the leaf against the SDP fingerprint.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, store in
            guard let store else { return 0 }
            guard X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
            guard let rawSSL = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
                  let rawCheck = SSL_get_ex_data(OpaquePointer(rawSSL), 0),
                  let cert = X509_STORE_CTX_get_current_cert(store) else { return 0 }
            let check = Unmanaged<PeerCheck>.fromOpaque(rawCheck).takeUnretainedValue()
            guard let actual = try? DtlsCertificate.sha256Fingerprint(of: cert) else { return 0 }
            // Self-signed, so OpenSSL's own verdict (preverify) is always "fail": the fingerprint decides.
            if StunIntegrity.equal(actual.bytes, check.expected.bytes) {
                check.verified = true
                return 1
            }
            check.mismatch = "peer certificate \(actual) does not match SDP fingerprint \(check.expected)"
            return 0
        }
        guard let ssl = SSL_new(ctx), let readBIO = BIO_new(BIO_s_mem()), let writeBIO = DatagramWriteBIO.make(sink: sink) else {
            SSL_CTX_free(ctx)
            throw DtlsCertificate.failure("SSL_new")
        }
        self.ssl = ssl
        self.readBIO = readBIO
        // An empty read BIO means "no datagram yet" (retry), not end of stream.
        _ = cbio_set_mem_eof_return(readBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(peerCheck).toOpaque())
        // Never ask the (absent) socket for its MTU; use ours.
        SSL_set_options(ssl, CSSL_OP_NO_QUERY_MTU)
        _ = cdtls_set_link_mtu(ssl, mtu)
        // RFC 6347 §4.2.4.1 suggests 1 s; real-time media wants faster first retransmissions (libwebrtc uses 50 ms+).
        DTLS_set_timer_cb(ssl) { _, previous in previous == 0 ? 400_000 : min(previous * 2, 4_000_000) }
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
    }

    deinit {
        SSL_free(ssl)   // frees both BIOs
        SSL_CTX_free(ctx)
    }

    public var localFingerprint: DtlsFingerprint { certificate.fingerprint }

    /// Starts the handshake: the client sends its ClientHello flight, the server waits.
    public func start(now: TransportTime) -> Output {
        guard state == .new else { return finish(Output(), now: now) }
        state = .handshaking
        var out = Output()
        if role == .client { step(&out) }
        return finish(out, now: now)
    }

    /// Feeds one received DTLS datagram (first byte 20...63, RFC 7983).
    public func handle(datagram: [UInt8], now: TransportTime) -> Output {
        var out = Output()
        switch state {
        case .new:
            // A ClientHello can arrive before our answer is applied; the server role starts on it.
            state = .handshaking
            fallthrough
        case .handshaking, .connected:
            ERR_clear_error()
            _ = datagram.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) }
            if state == .handshaking { step(&out) } else { drainApplicationData(&out) }
        case .failed, .closed:
            break
        }
        return finish(out, now: now)
    }

    /// Call at or after the returned deadline: retransmits the last flight if OpenSSL's timer expired.
    public func handleTimeout(now: TransportTime) -> Output {
        var out = Output()
        if state == .handshaking {
            ERR_clear_error()
            if cdtls_handle_timeout(ssl) < 0 { fail(&out, reason: "retransmission limit reached: \(Self.errorText())") }
        }
        return finish(out, now: now)
    }

    private func step(_ out: inout Output) {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            connected(&out)
            // The peer's first application data (an SCTP INIT) can come in the same flight as its Finished.
            if state == .connected { drainApplicationData(&out) }
            return
        }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
        fail(&out, reason: peerCheck.mismatch ?? "handshake: \(Self.errorText())")
    }

    private func connected(_ out: inout Output) {
        // RFC 5763 §5: the certificate must have been checked against the SDP fingerprint.
        guard peerCheck.verified else {
            fail(&out, reason: "peer presented no verified certificate")
            return
        }
        guard let selected = SSL_get_selected_srtp_profile(ssl), let profile = SrtpProfile(rawValue: selected.pointee.id) else {
            fail(&out, reason: "no SRTP profile negotiated (use_srtp extension missing)")
            return
        }
        let label = Array("EXTRACTOR-dtls_srtp".utf8)
        var exported = [UInt8](repeating: 0, count: 2 * (profile.keyLength + profile.saltLength))
        let ok = label.withUnsafeBufferPointer { l in
            l.withMemoryRebound(to: CChar.self) { SSL_export_keying_material(ssl, &exported, exported.count, $0.baseAddress, l.count, nil, 0, 0) }
        }
        guard ok == 1 else {
            fail(&out, reason: "SSL_export_keying_material failed")
            return
        }
        let material = SrtpKeyingMaterial(profile: profile, exported: exported, isClient: role == .client)
        keyingMaterial = material
        state = .connected
        out.events.append(.connected(material))
    }

    /// After the handshake: application data (SCTP packets) comes out as events, a close_notify closes, and a
    /// retransmitted final flight from the peer is answered by OpenSSL inside SSL_read.
    private func drainApplicationData(_ out: inout Output) {
        // A DTLS record holds at most 2^14 bytes of plaintext (RFC 6347 §4.1 via RFC 5246 §6.2.1).
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = SSL_read(ssl, &buffer, Int32(buffer.count))
            if n > 0 {
                out.events.append(.applicationData(Array(buffer[0..<Int(n)])))
                continue
            }
            let error = SSL_get_error(ssl, n)
            if error == SSL_ERROR_ZERO_RETURN {
                state = .closed
                out.events.append(.closed)
            } else if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                fail(&out, reason: "read: \(Self.errorText())")
            }
            return
        }
    }

    /// Sends one application-data record (an SCTP packet); dropped unless the handshake is done.
    public func send(applicationData bytes: [UInt8], now: TransportTime) -> Output {
        var out = Output()
        if state == .connected, !bytes.isEmpty {
            ERR_clear_error()
            let n = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if n <= 0 {
                let error = SSL_get_error(ssl, n)
                if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE { fail(&out, reason: "write: \(Self.errorText())") }
            }
        }
        return finish(out, now: now)
    }

    /// Sends close_notify.
    public func close(now: TransportTime) -> Output {
        let out = Output()
        if state == .connected || state == .handshaking {
            SSL_shutdown(ssl)
            state = .closed
        }
        return finish(out, now: now)
    }

    private func fail(_ out: inout Output, reason: String) {
        state = .failed(reason)
        out.events.append(.failed(.dtlsFailed(reason)))
    }

    private func finish(_ output: Output, now: TransportTime) -> Output {
        var out = output
        out.transmits += sink.datagrams
        sink.datagrams.removeAll()
        if state == .handshaking {
            var tv = timeval()
            if cdtls_get_timeout(ssl, &tv) == 1 {
                out.deadline = now + .seconds(Int64(tv.tv_sec)) + .microseconds(Int64(tv.tv_usec))
            }
        }
        return out
    }

    /// OpenSSL's error queue as text (drained), for a failure's reason.
    private static func errorText() -> String { OpenSSLErrors.drain().text }
}
