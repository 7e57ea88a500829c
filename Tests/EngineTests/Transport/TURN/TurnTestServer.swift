@testable import EngineTransport

/// The server side of the TURN exchanges the client tests need, written out by hand from RFC 8656 and RFC 8489 so
/// the tests check the client against the RFCs' messages rather than against itself: it decodes what the client
/// sent and builds the answers (challenge, stale nonce, signed successes, errors, Data indications, ChannelData).
struct TurnTestServer {
    var realm = "conftui.test"
    var nonce = "nonce-1"
    let credentials = TurnCredentials(username: "alice", password: "secret")
    var relayed = TransportAddress("192.0.2.15:50000")!
    var mapped = TransportAddress("198.51.100.1:40000")!

    var key: [UInt8] { StunIntegrity.longTermKey(username: credentials.username, realm: realm, password: credentials.password) }

    func decode(_ bytes: [UInt8]) throws -> StunMessage { try StunMessage(decoding: bytes) }

    /// 401 with REALM and NONCE, unsigned (RFC 8489 §9.2.3).
    func challenge(_ request: StunMessage) throws -> [UInt8] {
        try error(request, code: 401, reason: "Unauthorized", extra: [.realm(realm), .nonce(nonce)], signed: false)
    }

    /// 438 with the new NONCE (and REALM), unsigned.
    func staleNonce(_ request: StunMessage, newNonce: String) throws -> [UInt8] {
        try error(request, code: 438, reason: "Stale Nonce", extra: [.realm(realm), .nonce(newNonce)], signed: false)
    }

    func error(_ request: StunMessage, code: Int, reason: String, extra: [StunAttribute] = [], signed: Bool = true) throws -> [UInt8] {
        try StunMessage(type: StunMessageType(method: request.type.method, stunClass: .errorResponse),
                        transactionID: request.transactionID,
                        attributes: [.errorCode(StunErrorCode(code: code, reason: reason)!)] + extra)
            .encode(integrityKey: signed ? key : nil, fingerprint: true)
    }

    /// A signed success response with `attributes`.
    func success(_ request: StunMessage, _ attributes: [StunAttribute] = [], key overrideKey: [UInt8]? = nil) throws -> [UInt8] {
        try StunMessage(type: StunMessageType(method: request.type.method, stunClass: .successResponse),
                        transactionID: request.transactionID, attributes: attributes)
            .encode(integrityKey: overrideKey ?? key, fingerprint: true)
    }

    func allocateSuccess(_ request: StunMessage, lifetime: UInt32 = 600) throws -> [UInt8] {
        try success(request, [.xorRelayedAddress(relayed), .xorMappedAddress(mapped), .lifetime(lifetime)])
    }

    /// Whether `request` carries our credentials: USERNAME, REALM, the current NONCE, and a MESSAGE-INTEGRITY that
    /// verifies with the long-term key (RFC 8489 §9.2.4).
    func isAuthenticated(_ request: StunMessage, nonce expected: String? = nil) -> Bool {
        request.username == credentials.username && request.realm == realm && request.nonce == (expected ?? nonce)
            && request.verifyIntegrity(key: key)
    }

    func dataIndication(from peer: TransportAddress, _ payload: [UInt8]) throws -> [UInt8] {
        var rng = SplitMixRandom(seed: UInt64(payload.count))
        return try StunMessage(type: StunMessageType(method: .data, stunClass: .indication), transactionID: .random(using: &rng),
                               attributes: [.xorPeerAddress(peer), .data(payload)]).encode()
    }
}

/// A `TurnClient` on a virtual clock with what it sent and reported collected.
final class TurnClientHarness {
    let client: TurnClient
    var server = TurnTestServer()
    var now = TransportTime.zero
    var sent: [[UInt8]] = []
    var events: [TurnEvent] = []
    var deadline: TransportTime?

    init(configure: (inout TurnClientConfig) -> Void = { _ in }) {
        var config = TurnClientConfig(credentials: TurnTestServer().credentials, seed: 7)
        configure(&config)
        client = TurnClient(config: config)
    }

    @discardableResult
    func feed(_ input: TurnInput) -> TurnOutput {
        let out = client.handle(input, now: now)
        sent += out.transmits
        events += out.events
        deadline = out.deadline
        return out
    }

    /// Moves the clock to `time` (firing the deadline on the way whenever it comes first).
    func advance(to time: TransportTime) {
        while let d = deadline, d <= time {
            now = max(now, d)
            feed(.timeout)
        }
        now = max(now, time)
    }

    func advance(by duration: Duration) { advance(to: now + duration) }

    /// The last message the client sent, decoded as STUN.
    func lastRequest() throws -> StunMessage { try server.decode(sent.last ?? []) }

    /// Allocate through the 401 challenge to an allocation with `lifetime`.
    func allocate(lifetime: UInt32 = 600) throws {
        feed(.allocate)
        let first = try lastRequest()
        feed(.received(try server.challenge(first)))
        let second = try lastRequest()
        feed(.received(try server.allocateSuccess(second, lifetime: lifetime)))
    }
}
