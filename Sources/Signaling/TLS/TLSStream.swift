#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import OpenSSLSupport

/// TLS over a non-blocking socket, with OpenSSL reading and writing the descriptor itself
/// (`SSL_set_fd`). WANT_READ / WANT_WRITE are mapped onto `StreamResult` so the event loop polls for
/// the direction OpenSSL needs (SSL_get_error(3): "the operation must be repeated" when ready).
final class TLSStream: ByteStream {
    let fd: Int32
    let ssl: OpaquePointer

    /// `ssl` must already be attached to `fd` and put in accept or connect state.
    init(fd: Int32, ssl: OpaquePointer) {
        self.fd = fd
        self.ssl = ssl
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamResult {
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
        if n > 0 { return .bytes(Int(n)) }
        return classify(n)
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> StreamResult {
        guard bytes.count > 0 else { return .bytes(0) }
        ERR_clear_error()
        let n = SSL_write(ssl, bytes.baseAddress, Int32(min(bytes.count, 1 << 20)))
        if n > 0 { return .bytes(Int(n)) }
        return classify(n)
    }

    private func classify(_ ret: Int32) -> StreamResult {
        let savedErrno = errno
        switch SSL_get_error(ssl, ret) {
        case SSL_ERROR_WANT_READ: return .wouldBlock
        case SSL_ERROR_WANT_WRITE: return .wantsWrite
        case SSL_ERROR_ZERO_RETURN: return .endOfStream
        case SSL_ERROR_SYSCALL:
            if savedErrno == EAGAIN || savedErrno == EWOULDBLOCK { return .wouldBlock }
            if savedErrno == 0 || savedErrno == ECONNRESET || savedErrno == EPIPE { return .endOfStream }
            return .failed("TLS I/O: \(String(cString: strerror(savedErrno)))")
        default:
            return .failed("TLS: \(OpenSSLErrors.drain().text)")
        }
    }

    func shutdownWrite() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    func close() {
        SSL_free(ssl)
        _ = Glibc.close(fd)
    }
}
