import Glibc
import Synchronization
import Testing
@testable import Engine

/// Two `TransportDriver`s, each with its own event thread, on 127.0.0.1: candidates are signalled from the event
/// callbacks, commands cross threads through `submit`, and SRTP media flows. Bounded to a few seconds.
@Suite struct TransportDriverTests {
    final class Observed: Sendable {
        let secure = Atomic<Int>(0)
        let rtp = Mutex<[[UInt8]]>([])
        let candidates = Mutex<[IceCandidate]>([])
    }

    @Test func twoDriversExchangeSrtpOnTheirOwnThreads() throws {
        let seenByA = Observed(), seenByB = Observed()
        let sessionA = TransportSession(ice: .random(role: .controlling), certificate: try DtlsCertificate())
        let sessionB = TransportSession(ice: .random(role: .controlled), certificate: try DtlsCertificate())
        let remoteForA = TransportSession.RemoteParameters(credentials: sessionB.ice.localCredentials, fingerprint: sessionB.localFingerprint,
                                                           localDtlsRole: .server)
        let remoteForB = TransportSession.RemoteParameters(credentials: sessionA.ice.localCredentials, fingerprint: sessionA.localFingerprint,
                                                           localDtlsRole: .client)
        func observer(_ seen: Observed) -> @Sendable (TransportSession.Event) -> Void {
            { event in
                switch event {
                case .dtlsConnected: seen.secure.add(1, ordering: .relaxed)
                case .rtp(let packet): seen.rtp.withLock { $0.append(packet) }
                case .ice(.candidateGathered(let c)): seen.candidates.withLock { $0.append(c) }
                default: break
                }
            }
        }
        let a = try TransportDriver(session: sessionA, hosts: [IPAddress("127.0.0.1")!], onEvent: observer(seenByA))
        let b = try TransportDriver(session: sessionB, hosts: [IPAddress("127.0.0.1")!], onEvent: observer(seenByB))
        defer {
            #expect(a.stop())
            #expect(b.stop())
        }
        a.submit(.setRemote(remoteForA))
        b.submit(.setRemote(remoteForB))
        a.start()
        b.start()

        func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
            let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            while ContinuousClock.now < end {
                if condition() { return true }
                usleep(2_000)
            }
            return condition()
        }
        // Trickle: each side's gathered candidate goes to the other through `submit`.
        #expect(waitUntil(2) { !seenByA.candidates.withLock(\.isEmpty) && !seenByB.candidates.withLock(\.isEmpty) })
        for c in seenByA.candidates.withLock({ $0 }) { b.submit(.addRemoteCandidate(c)) }
        for c in seenByB.candidates.withLock({ $0 }) { a.submit(.addRemoteCandidate(c)) }
        #expect(waitUntil(5) { seenByA.secure.load(ordering: .relaxed) == 1 && seenByB.secure.load(ordering: .relaxed) == 1 })

        var packet: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7]
        packet += [0xF8, 0xFF, 0xFE]
        a.submit(.sendRTP(packet))
        #expect(waitUntil(2) { seenByB.rtp.withLock { $0.contains(packet) } })
    }
}
