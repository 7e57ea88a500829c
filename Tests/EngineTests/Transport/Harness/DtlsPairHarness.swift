import Glibc
@testable import EngineTransport

/// Two DTLS endpoints through the virtual network, driven by a virtual clock.
final class DtlsPairHarness {
    let a: DtlsEndpoint
    let b: DtlsEndpoint
    let addressA = TransportAddress("10.0.0.1:5000")!
    let addressB = TransportAddress("10.0.0.2:6000")!
    var network: VirtualNetwork
    var now = TransportTime.zero
    var events: [String: [DtlsEndpoint.Event]] = ["A": [], "B": []]
    var sizes: [Int] = []
    private var deadlines: [String: TransportTime] = [:]

    init(roleA: DtlsEndpoint.Role, seed: UInt64, corruptFingerprintOfA: Bool = false, mtu: Int = 1200,
         profilesA: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80],
         profilesB: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80]) throws {
        let certA = try DtlsCertificate(), certB = try DtlsCertificate()
        var fingerprintA = certA.fingerprint
        if corruptFingerprintOfA { fingerprintA.bytes[0] ^= 0x01 }
        a = try DtlsEndpoint(role: roleA, certificate: certA, remoteFingerprint: certB.fingerprint, mtu: mtu, profiles: profilesA)
        b = try DtlsEndpoint(role: roleA == .client ? .server : .client, certificate: certB, remoteFingerprint: fingerprintA,
                             mtu: mtu, profiles: profilesB)
        network = VirtualNetwork(seed: seed)
    }

    func endpoint(_ name: String) -> DtlsEndpoint { name == "A" ? a : b }

    func apply(_ name: String, _ out: DtlsEndpoint.Output) {
        let from = name == "A" ? addressA : addressB, to = name == "A" ? addressB : addressA
        for d in out.transmits {
            sizes.append(d.count)
            network.send(Transmit(from: from, to: to, bytes: d), now: now)
        }
        events[name, default: []] += out.events
        deadlines[name] = out.deadline
    }

    /// Delivers datagrams in virtual time. When the network falls silent while a handshake is pending, a flight
    /// was lost or dropped as out of order: wait for OpenSSL's real-time retransmission timer (≤ `realWaits`).
    func run(for limit: Duration, realWaits: Int = 0) {
        apply("A", a.start(now: now))
        apply("B", b.start(now: now))
        let end = now + limit
        var waits = 0
        while true {
            if let next = network.nextDelivery, next <= end {
                now = next
                for t in network.due(at: now) {
                    let name = t.to == addressA ? "A" : "B"
                    apply(name, endpoint(name).handle(datagram: t.bytes, now: now))
                }
                continue
            }
            guard waits < realWaits, let (name, deadline) = deadlines.min(by: { $0.value < $1.value }), deadline <= end else { return }
            waits += 1
            usleep(UInt32((deadline - now).nanoseconds / 1000) + 5_000)
            now = deadline
            deadlines[name] = nil
            apply(name, endpoint(name).handleTimeout(now: now))
        }
    }
}
