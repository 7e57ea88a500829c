@testable import EngineTransport

/// Target 5, DTLS records at three moments: at a server that has seen nothing yet, at a client that has sent its
/// ClientHello, and at both ends of a completed handshake (application data, alerts, renegotiation attempts,
/// close_notify). Certificates are made once: they are not under test, and key generation would dominate.
enum DtlsTarget {
    nonisolated(unsafe) static let serverCertificate = try! DtlsCertificate()
    nonisolated(unsafe) static let clientCertificate = try! DtlsCertificate()

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        guard let server = try? DtlsEndpoint(role: .server, certificate: serverCertificate,
                                             remoteFingerprint: clientCertificate.fingerprint),
              let client = try? DtlsEndpoint(role: .client, certificate: clientCertificate,
                                             remoteFingerprint: serverCertificate.fingerprint) else { return }
        var now = TransportTime.zero
        var targets: [DtlsEndpoint]
        switch mode % 3 {
        case 0: targets = [server]
        case 1:
            _ = client.start(now: now)
            targets = [client]
        default:
            guard handshake(client, server, now: &now) else { return }
            targets = [client, server]
        }
        var records = 0
        while !input.isEmpty && records < 32 {
            records += 1
            let op = input.byte()
            let endpoint = targets[Int(op) % targets.count]
            switch op >> 5 {
            case 0:
                now = now + .milliseconds(Int64(op & 0x1F) * 100)
                _ = endpoint.handleTimeout(now: now)
            case 1: _ = endpoint.close(now: now)
            default: _ = endpoint.handle(datagram: input.chunk(), now: now)
            }
        }
        _ = (server.state, client.state, server.keyingMaterial, client.keyingMaterial)
    }

    /// Passes flights between the two until both are connected (a handful of round trips).
    static func handshake(_ client: DtlsEndpoint, _ server: DtlsEndpoint, now: inout TransportTime) -> Bool {
        var toServer = client.start(now: now).transmits
        var toClient: [[UInt8]] = []
        for _ in 0..<10 where client.state != .connected || server.state != .connected {
            for d in toServer { toClient += server.handle(datagram: d, now: now).transmits }
            toServer = []
            for d in toClient { toServer += client.handle(datagram: d, now: now).transmits }
            toClient = []
        }
        return client.state == .connected && server.state == .connected
    }
}
