import Glibc
@testable import EngineTransport
import EngineTestSupport

/// Two DTLS endpoints on the pair harness. OpenSSL's retransmission timer runs on real time, so this harness steps
/// by arrivals only and reaches a deadline by really waiting for it, a bounded number of times (`realWaits`).
final class DtlsPairHarness: PairHarness<AddressedDtlsEndpoint> {
    init(roleA: DtlsEndpoint.Role, seed: UInt64, corruptFingerprintOfA: Bool = false, mtu: Int = 1200,
         profilesA: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80],
         profilesB: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80]) throws {
        let certA = try DtlsCertificate(), certB = try DtlsCertificate()
        var fingerprintA = certA.fingerprint
        if corruptFingerprintOfA { fingerprintA.bytes[0] ^= 0x01 }
        let addressA = TransportAddress("10.0.0.1:5000")!, addressB = TransportAddress("10.0.0.2:6000")!
        let a = try DtlsEndpoint(role: roleA, certificate: certA, remoteFingerprint: certB.fingerprint, mtu: mtu, profiles: profilesA)
        let b = try DtlsEndpoint(role: roleA == .client ? .server : .client, certificate: certB, remoteFingerprint: fingerprintA,
                                 mtu: mtu, profiles: profilesB)
        super.init(a: AddressedDtlsEndpoint(a, at: addressA, peer: addressB), b: AddressedDtlsEndpoint(b, at: addressB, peer: addressA),
                   addressA: addressA, addressB: addressB, network: NetworkEmulator(seed: seed))
    }

    /// The size of every datagram sent, both sides.
    var sizes: [Int] { sent.values.joined().map(\.transmit.bytes.count) }

    /// Starts both, then delivers datagrams in virtual time. When the network falls silent while a handshake is pending, a flight
    /// was lost or dropped as out of order: wait for OpenSSL's real-time retransmission timer (≤ `realWaits`).
    func handshake(for limit: Duration, realWaits: Int = 0) {
        apply("A", a.start(now: now))
        apply("B", b.start(now: now))
        let end = now + limit
        var waits = 0
        while true {
            if let next = network.nextDelivery, next <= end {
                now = next
                deliverDue()
                continue
            }
            guard waits < realWaits, let (name, deadline) = deadlines.min(by: { $0.value < $1.value }), deadline <= end else { return }
            waits += 1
            usleep(UInt32((deadline - now).nanoseconds / 1000) + 5_000)
            now = deadline
            fireTimeout(name)
        }
    }
}
