#if canImport(Glibc)
import Glibc
#endif

/// Turning away a connection that a cap refuses, right after `accept`, without keeping any state
/// for it (keeping it would be what the cap is there to prevent).
enum ConnectionRefusal {
    /// Plain http: what the client already sent is read and discarded (closing with unread bytes
    /// would make the kernel answer with a RST that can destroy the reply in flight), a 503 is
    /// written if the socket takes it at once, then the socket is closed. With TLS there is no
    /// handshake to spend on it: the socket is just closed.
    static func refuse(_ fd: Int32, plainHTTP: Bool, reason: String) {
        if plainHTTP {
            var scratch = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<4 where Glibc.recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT)) > 0 {}
            let reply = Array(HTTPResponse.text(503, "Service Unavailable", reason + "\n",
                                                extraHeaders: [("Retry-After", "10")]).serialized())
            _ = reply.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        }
        Glibc.close(fd)
    }
}
