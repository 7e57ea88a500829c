import EngineTestSupport
@testable import Engine

/// Two transport sessions on the pair harness: A offered (controlling, DTLS server), B answered `active`
/// (controlled, DTLS client, RFC 5763 §5). Candidates are signalled as they are gathered.
final class SessionPairHarness: PairHarness<TransportSession> {
    init(seed: UInt64, corruptFingerprint: Bool = false) throws {
        var rng = SplitMixRandom(seed: seed)
        let a = TransportSession(ice: IceAgentConfig(role: .controlling, local: .random(using: &rng), tieBreaker: rng.next(), seed: rng.next()),
                                 certificate: try DtlsCertificate())
        let b = TransportSession(ice: IceAgentConfig(role: .controlled, local: .random(using: &rng), tieBreaker: rng.next(), seed: rng.next()),
                                 certificate: try DtlsCertificate())
        super.init(a: a, b: b, addressA: TransportAddress("10.0.0.1:5000")!, addressB: TransportAddress("10.0.0.2:6000")!,
                   network: NetworkEmulator(seed: rng.next()))
        var fingerprintOfA = a.localFingerprint
        if corruptFingerprint { fingerprintOfA.bytes[31] ^= 0xFF }
        feed("A", .command(.setRemote(.init(credentials: b.ice.localCredentials, fingerprint: b.localFingerprint, localDtlsRole: .server))))
        feed("B", .command(.setRemote(.init(credentials: a.ice.localCredentials, fingerprint: fingerprintOfA, localDtlsRole: .client))))
        feed("A", .command(.addLocalHost(addressA)))
        feed("B", .command(.addLocalHost(addressB)))
    }

    func feed(_ name: String, _ input: TransportSession.Input) { apply(name, endpoint(name).handle(input, now: now)) }

    override func observe(_ event: TransportSession.Event, of name: String) {
        if case .ice(.candidateGathered(let c)) = event { feed(other(name), .command(.addRemoteCandidate(c))) }
    }
}
