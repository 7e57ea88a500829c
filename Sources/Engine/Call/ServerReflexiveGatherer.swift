import EngineTransport
/// Server-reflexive candidates (RFC 8445 §5.1.1.2), sans-IO: one STUN Binding request (RFC 8489 §6) from each host
/// socket to the STUN server; the XOR-MAPPED-ADDRESS of the success response is the candidate and the socket's
/// address its base. The ICE agent keeps checking from the base (§6.1.2.4: a server-reflexive local candidate is
/// replaced by its base in pairs), so the candidate only needs to be signalled to the peer.
struct ServerReflexiveGatherer {
    struct Request {
        var base: TransportAddress
        var transaction: TransactionID
        var attempts: Int
        var nextAt: TransportTime
    }

    let server: TransportAddress
    private(set) var requests: [Request] = []
    /// RFC 8489 §6.2.1 retransmits with a doubling RTO; a call cannot wait 39.5 s for a candidate, so fewer and faster.
    static let initialRTO: Duration = .milliseconds(250)
    static let maxAttempts = 5

    init(server: TransportAddress, bases: [TransportAddress]) {
        self.server = server
        var rng = SystemRandomNumberGenerator()
        // A STUN server on one address family can only map bases of that family.
        requests = bases.filter { $0.ip.isIPv4 == server.ip.isIPv4 }.map {
            Request(base: $0, transaction: .random(using: &rng), attempts: 0, nextAt: .zero)
        }
    }

    var deadline: TransportTime? { requests.map(\.nextAt).min() }

    /// Requests due now: first sends and retransmissions.
    mutating func poll(now: TransportTime) -> [Transmit] {
        var out: [Transmit] = []
        // The last attempt's timeout has passed without an answer: give up on that base.
        requests.removeAll { $0.attempts >= Self.maxAttempts && $0.nextAt <= now }
        for i in requests.indices where requests[i].nextAt <= now {
            // A request without attributes always encodes; `try?` only satisfies the encoder's refusal path.
            if let bytes = try? StunMessage(type: .bindingRequest, transactionID: requests[i].transaction).encode(fingerprint: true) {
                out.append(Transmit(from: requests[i].base, to: server, bytes: bytes))
            }
            requests[i].attempts += 1
            requests[i].nextAt = now + Self.initialRTO * (1 << (requests[i].attempts - 1))
        }
        return out
    }

    /// True for a datagram from the STUN server answering one of our requests.
    func isResponse(from: TransportAddress, bytes: [UInt8]) -> Bool {
        guard from == server, StunMessage.looksLikeStun(bytes), let m = try? StunMessage(decoding: bytes) else { return false }
        return requests.contains { $0.transaction == m.transactionID }
    }

    /// The candidate a success response maps to (nil for an error response or a mapping equal to the base).
    mutating func handle(bytes: [UInt8]) -> IceCandidate? {
        guard let m = try? StunMessage(decoding: bytes), let i = requests.firstIndex(where: { $0.transaction == m.transactionID }) else {
            return nil
        }
        let base = requests.remove(at: i).base
        guard m.type == .bindingSuccess, let mapped = m.xorMappedAddress else { return nil }
        // RFC 8445 §5.1.3: a server-reflexive candidate equal to its base is redundant.
        guard mapped != base else { return nil }
        return IceCandidate(foundation: CandidatePriority.foundation(kind: .srflx, baseIP: base.ip),
                            priority: CandidatePriority.candidate(kind: .srflx, localPreference: 65535),
                            address: .ip(mapped.ip), port: mapped.port, kind: .srflx,
                            relatedAddress: .ip(base.ip), relatedPort: base.port)
    }
}
