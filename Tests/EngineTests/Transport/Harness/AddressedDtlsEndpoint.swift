import EngineTestSupport
@testable import Engine

/// A `DtlsEndpoint` bound to one address and talking to one peer, which is what the pair harness needs: DTLS
/// itself knows nothing of addresses. Reads through to the endpoint (`h.a.state`, `h.a.keyingMaterial`).
@dynamicMemberLookup
final class AddressedDtlsEndpoint: SansIOEndpoint {
    struct Output: SansIOOutput {
        var transmits: [Transmit]
        var events: [DtlsEndpoint.Event]
        var deadline: TransportTime?
    }

    let dtls: DtlsEndpoint
    let local: TransportAddress
    let remote: TransportAddress

    init(_ dtls: DtlsEndpoint, at local: TransportAddress, peer remote: TransportAddress) {
        self.dtls = dtls
        self.local = local
        self.remote = remote
    }

    subscript<T>(dynamicMember keyPath: KeyPath<DtlsEndpoint, T>) -> T { dtls[keyPath: keyPath] }

    func start(now: TransportTime) -> Output { addressed(dtls.start(now: now)) }
    func receive(_ datagram: Transmit, now: TransportTime) -> Output { addressed(dtls.handle(datagram: datagram.bytes, now: now)) }
    func timeout(now: TransportTime) -> Output { addressed(dtls.handleTimeout(now: now)) }

    private func addressed(_ out: DtlsEndpoint.Output) -> Output {
        Output(transmits: out.transmits.map { Transmit(from: local, to: remote, bytes: $0) }, events: out.events, deadline: out.deadline)
    }
}
