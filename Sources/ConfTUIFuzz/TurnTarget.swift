@testable import EngineTransport

/// Target 9, a TURN server's answers. The target plays a server far enough to get the client allocated (the 401
/// challenge, then a success signed with the long-term key it knows), so what follows reaches the allocated
/// client's paths: the input is a sequence of operations, each a byte and a chunk: server datagrams as they are,
/// the same bytes through the TCP stream framer, sends to a peer (permissions, Send indications, channels), permits,
/// and time passing (refreshes, retransmissions). Nothing the server sends may trap or grow the client's tables
/// beyond their bounds.
enum TurnTarget {
    static let credentials = TurnCredentials(username: "fuzz", password: "fuzz-secret")
    static let realm = "fuzz.test"

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let reliable = input.byte() & 1 == 1
        var config = TurnClientConfig(credentials: credentials, seed: 5)
        config.reliableTransport = reliable
        let client = TurnClient(config: config)
        var now = TransportTime.zero
        var framer = TurnStreamFramer()
        guard allocate(client, now: &now) else { preconditionFailure("the scripted allocation failed") }
        while !input.isEmpty {
            let op = input.byte()
            let chunk = input.chunk()
            switch op % 6 {
            case 0, 1: _ = client.handle(.received(chunk), now: now)
            case 2:
                guard let messages = try? framer.push(chunk) else { framer = TurnStreamFramer(); continue }
                for m in messages { _ = client.handle(.received(m), now: now) }
            case 3: _ = client.handle(.send(to: peer(op), bytes: chunk), now: now)
            case 4: _ = client.handle(.permit(peer(op).ip), now: now)
            default:
                now = now + .milliseconds(Int64(op) * 40)
                _ = client.handle(.timeout, now: now)
            }
            precondition(client.permissionCount <= config.maxPermissions && client.channelCount <= config.maxChannels)
            precondition(framer.buffered <= TurnStreamFramer.maxMessage + 65536)
        }
    }

    /// One of 32 peers, so permissions and channels fill up and hit their bounds.
    static func peer(_ op: UInt8) -> TransportAddress {
        TransportAddress(ip: .v4(0xC000_0200 | UInt32(op >> 3)), port: 6000)
    }

    /// Allocate: the unauthenticated request is challenged, the signed retry answered with a signed success.
    static func allocate(_ client: TurnClient, now: inout TransportTime) -> Bool {
        let key = StunIntegrity.longTermKey(username: credentials.username, realm: realm, password: credentials.password)
        var out = client.handle(.allocate, now: now)
        guard let first = out.transmits.first.flatMap({ try? StunMessage(decoding: $0) }),
              let challenge = try? StunMessage(type: StunMessageType(method: first.type.method, stunClass: .errorResponse),
                                               transactionID: first.transactionID,
                                               attributes: [.errorCode(StunErrorCode(code: 401, reason: "Unauthorized")!),
                                                            .realm(realm), .nonce("n")]).encode(fingerprint: true)
        else { return false }
        out = client.handle(.received(challenge), now: now)
        guard let signed = out.transmits.first.flatMap({ try? StunMessage(decoding: $0) }),
              let success = try? StunMessage(type: StunMessageType(method: signed.type.method, stunClass: .successResponse),
                                             transactionID: signed.transactionID,
                                             attributes: [.xorRelayedAddress(TransportAddress("192.0.2.99:50000")!),
                                                          .xorMappedAddress(TransportAddress("198.51.100.1:40000")!),
                                                          .lifetime(600)]).encode(integrityKey: key, fingerprint: true)
        else { return false }
        _ = client.handle(.received(success), now: now)
        return client.state == .allocated
    }
}
