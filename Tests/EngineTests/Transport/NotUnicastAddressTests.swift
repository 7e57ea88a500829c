import Testing
@testable import EngineTransport

/// Addresses no unicast peer has are named with a reason; every address a real peer could have is not. A relay
/// asked to send to one of the first kind deletes the allocation (coturn 4.6), so this list is a safety property.
@Suite struct NotUnicastAddressTests {
    @Test(arguments: [
        ("0.0.0.0", "unspecified"), ("0.1.2.3", "this network"), ("255.255.255.255", "limited broadcast"),
        ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("240.0.0.1", "reserved"),
        ("::", "unspecified"), ("ff02::1", "multicast"), ("ff0e::fb", "multicast"),
        ("::ffff:255.255.255.255", "IPv4-mapped limited broadcast"), ("::ffff:224.0.0.251", "IPv4-mapped multicast"),
        ("::ffff:0.0.0.0", "IPv4-mapped unspecified"),
    ])
    func refused(_ text: String, _ reason: String) throws {
        let ip = try #require(IPAddress(text))
        #expect(ip.notUnicastReason?.contains(reason) == true, "\(text): \(ip.notUnicastReason ?? "accepted")")
        #expect(TransportAddress(ip: ip, port: 9).notUnicastPeerReason != nil)
    }

    @Test(arguments: ["1.2.3.4", "10.0.0.1", "100.64.0.1", "192.168.1.255", "223.255.255.255", "127.0.0.1",
                      "169.254.1.1", "2001:db8::1", "::1", "fe80::1", "::ffff:192.0.2.1", "fc00::5"])
    func accepted(_ text: String) throws {
        let ip = try #require(IPAddress(text))
        #expect(ip.notUnicastReason == nil, "\(text): \(ip.notUnicastReason ?? "")")
        #expect(TransportAddress(ip: ip, port: 5000).notUnicastPeerReason == nil)
        #expect(TransportAddress(ip: ip, port: 0).notUnicastPeerReason == "port 0")
    }

    @Test func theAgentNeverPairsOrChecksThem() throws {
        let agent = IceAgent(config: IceAgentConfig(role: .controlling, local: IceCredentials(ufrag: "LOCL", pwd: "local-password-0123456789"),
                                                    tieBreaker: 1, seed: 1))
        _ = agent.handle(.command(.addLocalHost(TransportAddress("10.0.0.1:5000")!)), now: .zero)
        _ = agent.handle(.command(.setRemoteCredentials(IceCredentials(ufrag: "REMO", pwd: "remote-password-012345678"))), now: .zero)
        for text in ["255.255.255.255:9", "224.0.0.1:9", "0.0.0.0:9", "10.0.0.2:0"] {
            let a = TransportAddress(text)!
            let out = agent.handle(.command(.addRemoteCandidate(IceCandidate(foundation: "r", priority: 100, address: .ip(a.ip),
                                                                            port: a.port, kind: .host))), now: .zero)
            #expect(out.transmits.isEmpty, "\(text)")
        }
        #expect(agent.pairCount == 0)
        #expect(agent.droppedRemoteCandidates == 4)
    }
}
