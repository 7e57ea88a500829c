import COpenSSL
import OpenSSLSupport
import Testing
@testable import EngineTransport

/// The sans-IO TLS client of `turns:` against an OpenSSL server over memory: the handshake, SNI, plaintext both
/// ways, what waits for the handshake, and failures (an untrusted certificate, a server that does not speak TLS)
/// as reasons instead of crashes.
@Suite struct TlsClientCoreTests {
    /// An in-memory TLS server with a fresh self-signed certificate for `turn.test` and 192.0.2.1.
    final class Server {
        let ssl: OpaquePointer
        let readBIO: OpaquePointer
        let writeBIO: OpaquePointer
        let certificate: SelfSignedCertificate

        init() throws {
            certificate = try SelfSignedCertificate(commonName: "turn.test", subjectAltName: "DNS:turn.test,IP:192.0.2.1",
                                                    validFrom: 60, validFor: 3600)
            let ctx = try #require(SSL_CTX_new(TLS_server_method()))
            defer { SSL_CTX_free(ctx) }
            #expect(SSL_CTX_use_certificate(ctx, certificate.x509) == 1 && SSL_CTX_use_PrivateKey(ctx, certificate.key) == 1)
            ssl = try #require(SSL_new(ctx))
            readBIO = try #require(BIO_new(BIO_s_mem()))
            writeBIO = try #require(BIO_new(BIO_s_mem()))
            _ = cbio_set_mem_eof_return(readBIO, -1)
            SSL_set_bio(ssl, readBIO, writeBIO)
            SSL_set_accept_state(ssl)
        }

        deinit { SSL_free(ssl) }

        /// Takes the client's bytes, advances, and returns what the server sends back.
        func exchange(_ bytes: [UInt8]) -> [UInt8] {
            if !bytes.isEmpty { _ = bytes.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) } }
            if SSL_is_init_finished(ssl) == 0 { _ = SSL_do_handshake(ssl) }
            return pending()
        }

        func pending() -> [UInt8] {
            let n = Int(BIO_ctrl_pending(writeBIO))
            guard n > 0 else { return [] }
            var out = [UInt8](repeating: 0, count: n)
            _ = out.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32(n)) }
            return out
        }

        func read() -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            return n > 0 ? Array(buffer.prefix(Int(n))) : []
        }

        func write(_ bytes: [UInt8]) -> [UInt8] {
            _ = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            return pending()
        }

        var serverName: String? { SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) } }
    }

    /// Runs the handshake; returns what the client decrypted on the way (none expected).
    @discardableResult
    func handshake(_ client: TlsClientCore, _ server: Server) -> [UInt8] {
        var toServer = client.start().transmit
        var plaintext: [UInt8] = []
        for _ in 0..<10 where client.state == .handshaking {
            let back = server.exchange(toServer)
            let out = client.receive(back)
            plaintext += out.plaintext
            toServer = out.transmit
        }
        // The server's last flight (TLS 1.3 session tickets) must reach the client too: a record skipped is a MAC
        // failure on the next.
        plaintext += client.receive(server.exchange(toServer)).plaintext
        return plaintext
    }

    @Test func insecureHandshakeCarriesPlaintextBothWaysAndSendsSNI() throws {
        let server = try Server()
        let client = try TlsClientCore(host: "turn.test", verification: .insecure)
        // Sent before the handshake: waits, then leaves first.
        var early = TlsClientCore.Output()
        #expect(client.send(Array("allocate".utf8), into: &early) && early.transmit.isEmpty)
        #expect(handshake(client, server).isEmpty)
        #expect(client.state == .open)
        #expect(server.serverName == "turn.test")
        #expect(server.read() == Array("allocate".utf8))
        #expect(client.receive(server.pending()).plaintext.isEmpty)
        var out = TlsClientCore.Output()
        #expect(client.send(Array(repeating: 7, count: 40_000), into: &out))
        #expect(client.receive(server.exchange(out.transmit)).plaintext.isEmpty)
        var got: [UInt8] = []
        for _ in 0..<8 { got += server.read() }
        #expect(got == Array(repeating: 7, count: 40_000))
        let reply = server.write(Array("success".utf8))
        #expect(!reply.isEmpty)
        #expect(client.receive(reply).plaintext == Array("success".utf8), "\(client.state)")
    }

    @Test func anAddressLiteralGetsNoSNI() throws {
        let server = try Server()
        let client = try TlsClientCore(host: "192.0.2.1", verification: .insecure)
        handshake(client, server)
        #expect(client.state == .open && server.serverName == nil)
    }

    @Test func anUntrustedCertificateFailsWithTheVerificationReason() throws {
        let server = try Server()
        let client = try TlsClientCore(host: "turn.test", verification: .system)
        handshake(client, server)
        guard case .failed(let reason) = client.state else { Issue.record("opened: \(client.state)"); return }
        #expect(reason.contains("certificate"), "\(reason)")
        var out = TlsClientCore.Output()
        #expect(!client.send([1], into: &out))
    }

    @Test func aServerThatDoesNotSpeakTLSIsAFailureNotACrash() throws {
        let client = try TlsClientCore(host: "turn.test", verification: .insecure)
        _ = client.start()
        let out = client.receive(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8) + [UInt8](repeating: 0xFF, count: 300))
        #expect(out.plaintext.isEmpty && client.isFailed)
        #expect(client.receive([1, 2, 3]) == TlsClientCore.Output())
    }

    @Test func whatWaitsForTheHandshakeIsBounded() throws {
        let client = try TlsClientCore(host: "turn.test", verification: .insecure)
        var out = TlsClientCore.Output()
        #expect(client.send([UInt8](repeating: 1, count: TlsClientCore.maxWaitingBytes), into: &out))
        #expect(!client.send([1], into: &out))
    }
}
