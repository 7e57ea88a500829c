@testable import EngineTransport

/// Target 2, STUN both ways. Decode: the input (after two control bytes) as a datagram; whatever decodes is read
/// through every accessor, checked against a key and encoded again. Encode: credentials a remote party chose, of
/// any length (the SDP does not bound them), go through the ICE agent's own check builder and its responder.
enum StunTarget {
    static let local = TransportAddress("127.0.0.1:40000")!
    static let remote = TransportAddress("127.0.0.1:40001")!

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        let datagram = input.chunk()
        decode(datagram, key: Array(datagram.prefix(Int(control & 0x1F))))
        // Hostile credentials: a length from two bytes (times 1..4, so 70,000 and more are reachable within the
        // default 4 KB inputs) and a pattern to repeat.
        let scale = Int(control >> 6) + 1
        let ufragLength = Int(input.uint16()) * scale
        let pwdLength = Int(input.uint16()) * scale
        let pattern = input.rest()
        let ufrag = repeated(pattern, ufragLength), pwd = repeated(pattern.reversed(), pwdLength)
        sendCheck(IceCredentials(ufrag: ufrag, pwd: pwd), controlling: control & 0x20 != 0, bindingRequest: datagram)
    }

    static func decode(_ datagram: [UInt8], key: [UInt8]) {
        _ = StunMessage.looksLikeStun(datagram)
        guard let message = try? StunMessage(decoding: datagram) else { return }
        _ = (message.username, message.priority, message.useCandidate, message.iceControlling, message.iceControlled,
             message.xorMappedAddress, message.errorCode, message.unknownComprehensionRequired, message.hasIntegrity)
        _ = message.verifyIntegrity(key: key)
        // Decoded attributes fit the 16-bit length field they came in, so they must encode again and decode the same.
        guard let again = try? message.encode(integrityKey: key, fingerprint: true) else {
            preconditionFailure("a decoded STUN message does not encode")
        }
        guard let reread = try? StunMessage(decoding: again) else { preconditionFailure("re-encoded STUN does not decode") }
        precondition(reread.verifyIntegrity(key: key), "re-encoded STUN fails its own integrity")
    }

    /// The first check to a remote candidate carries USERNAME `remoteUfrag:localUfrag` signed with the remote pwd;
    /// a request from the peer (the datagram) gets a response signed with ours.
    static func sendCheck(_ remoteCredentials: IceCredentials, controlling: Bool, bindingRequest: [UInt8]) {
        var config = IceAgentConfig(role: controlling ? .controlling : .controlled,
                                    local: IceCredentials(ufrag: "fuzz", pwd: "fuzzfuzzfuzzfuzzfuzzfuzz"), tieBreaker: 1, seed: 1)
        config.ta = .milliseconds(5)
        let agent = IceAgent(config: config)
        var now = TransportTime.zero
        _ = agent.handle(.command(.addLocalHost(local)), now: now)
        _ = agent.handle(.command(.setRemoteCredentials(remoteCredentials)), now: now)
        var deadline = agent.handle(.command(.addRemoteCandidate(IceCandidate(foundation: "1", priority: 1_000, address: .ip(remote.ip),
                                                                            port: remote.port, kind: .host))), now: now).deadline
        _ = agent.handle(.datagram(from: remote, to: local, bytes: bindingRequest), now: now)
        for _ in 0..<3 {
            guard let next = deadline else { break }
            now = max(now, next)
            deadline = agent.handle(.timeout, now: now).deadline
        }
    }

    /// `count` bytes of `pattern` repeated (whole copies by `String(repeating:)`: a per-byte loop over 260,000
    /// bytes would dominate the input's time), cut to `count` and read as UTF-8 as an SDP parser would.
    static func repeated(_ pattern: some Collection<UInt8>, _ count: Int) -> String {
        let unit = pattern.isEmpty ? [UInt8(ascii: "a")] : Array(pattern)
        var bytes = Array(String(repeating: String(decoding: unit, as: UTF8.self), count: count / unit.count + 1).utf8)
        bytes.removeLast(max(0, bytes.count - count))
        return String(decoding: bytes, as: UTF8.self)
    }
}
