import Testing
@testable import EngineTransport

@Suite struct HostInterfacesTests {
    @Test func loopbackOnlyWhenAsked() throws {
        let with = try HostInterfaces.list(includeLoopback: true)
        let without = try HostInterfaces.list(includeLoopback: false)
        #expect(with.contains { $0.ip == IPAddress("127.0.0.1") })
        #expect(!without.contains { $0.ip.isLoopback })
        #expect(with.allSatisfy { !$0.ip.isLinkLocal })
        #expect(Set(without.map(\.ip)).isSubset(of: Set(with.map(\.ip))))
    }

    @Test func addressTextRoundTrips() {
        for text in ["127.0.0.1", "192.0.2.255", "2001:db8::1", "::1", "fe80::1"] {
            #expect(IPAddress(text)?.description == text)
        }
        #expect(IPAddress("::1")?.isLoopback == true)
        #expect(IPAddress("fe80::1")?.isLinkLocal == true)
        #expect(IPAddress("1.2.3") == nil && IPAddress("x") == nil && IPAddress("1.2.3.256") == nil)
        #expect(TransportAddress("[2001:db8::1]:443")?.description == "[2001:db8::1]:443")
        #expect(TransportAddress("10.0.0.1:70000") == nil)
    }
}
