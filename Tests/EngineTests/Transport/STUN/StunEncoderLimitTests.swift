import Testing
@testable import EngineTransport

/// The STUN encoder refuses what the wire cannot carry (issue #12: a 70,000-byte ufrag made the first connectivity
/// check trap in `UInt16(value.count)`), and the ICE agent turns that refusal into a failed pair, not a crash.
@Suite struct StunEncoderLimitTests {
    let tid = TransactionID(bytes: [UInt8](repeating: 9, count: 12))!

    func encoded(_ attributes: [StunAttribute], integrity: Bool = true) -> Result<[UInt8], EngineError> {
        Result { () throws(EngineError) -> [UInt8] in
            try StunMessage(type: .bindingRequest, transactionID: tid, attributes: attributes)
                .encode(integrityKey: integrity ? [1, 2, 3] : nil, fingerprint: true)
        }
    }

    @Test func usernameOverRFC5389LimitIsRefusedNotTrapped() throws {
        // RFC 5389 §15.3: fewer than 513 bytes. 512 goes out and comes back; 513 and 70,001 are refused.
        let fits = try encoded([.username(String(repeating: "u", count: 512))]).get()
        #expect(try StunMessage(decoding: fits).username?.utf8.count == 512)
        for n in [513, 70_001] {
            guard case .failure(let error) = encoded([.username(String(repeating: "u", count: n))]) else {
                Issue.record("a \(n)-byte USERNAME was encoded")
                continue
            }
            #expect(error.description.contains("512") && error.description.contains("RFC 5389"), "\(error)")
        }
    }

    @Test func textAttributesAndTheSixteenBitFieldsAreBounded() throws {
        #expect((try? encoded([.software(String(repeating: "s", count: 764))]).get()) == nil)
        #expect((try? encoded([.software(String(repeating: "s", count: 763))]).get()) != nil)
        let reason = StunErrorCode(code: 400, reason: String(repeating: "r", count: 800))!
        #expect((try? encoded([.errorCode(reason)]).get()) == nil)
        // One attribute over the 16-bit length field, and a message whose attributes add up past it.
        #expect((try? encoded([.unknown(type: 0x7F00, value: [UInt8](repeating: 0, count: 70_000))]).get()) == nil)
        let half = StunAttribute.unknown(type: 0x7F00, value: [UInt8](repeating: 0, count: 40_000))
        guard case .failure(let error) = encoded([half, half]) else {
            Issue.record("an 80 KB message was encoded")
            return
        }
        #expect(error.description.contains("RFC 5389 §6"), "\(error)")
        // Just under the limit with the trailer counted: 65,535 - 24 - 8 - 4 (the attribute header) is the most.
        let most = StunAttribute.unknown(type: 0x7F00, value: [UInt8](repeating: 0, count: 65_496))
        #expect((try? encoded([most]).get())?.count == 20 + 65_496 + 4 + 24 + 8)
        #expect((try? encoded([StunAttribute.unknown(type: 0x7F00, value: [UInt8](repeating: 0, count: 65_500))]).get()) == nil)
    }

    @Test func agentWithAHugeRemoteUfragFailsThePairInsteadOfTrapping() {
        let agent = IceAgent(config: IceAgentConfig(role: .controlling, local: .init(ufrag: "LOCL", pwd: "local-password-0123456789"),
                                                    tieBreaker: 1, seed: 1))
        _ = agent.handle(.command(.addLocalHost(TransportAddress("10.0.0.1:5000")!)), now: .zero)
        _ = agent.handle(.command(.setRemoteCredentials(.init(ufrag: String(repeating: "u", count: 70_000),
                                                               pwd: "remote-password-012345678"))), now: .zero)
        var now = TransportTime.zero
        var out = agent.handle(.command(.addRemoteCandidate(IceCandidate(foundation: "r", priority: 100, address: .ip(IPAddress("10.0.0.2")!),
                                                                        port: 6000, kind: .host))), now: now)
        var transmits = out.transmits.count
        for _ in 0..<200 {
            guard let deadline = out.deadline else { break }
            now = max(now, deadline)
            out = agent.handle(.timeout, now: now)
            transmits += out.transmits.count
        }
        #expect(transmits == 0, "no check can carry that USERNAME")
        #expect(agent.state == .failed)
    }
}
