import Engine
import Testing
@testable import ConfTUI

/// `--stun` and `--turn` as users type them (RFC 7064 / RFC 7065 URIs), and the errors they get when something is
/// missing or unsupported.
@Suite struct IceServerOptionsTests {
    func turn(_ args: [String], environment password: String? = nil) throws -> TurnServer? {
        try CallOptionsParsing.turnServer(ParsedArguments.parse(args, specs: CallOptionsParsing.specs))
    }

    func message(_ body: () throws -> Any?) -> String {
        do { _ = try body(); return "no error" } catch { return "\(error)" }
    }

    @Test func stunDefaultsToPort3478() throws {
        #expect(try IceServerURI.stun("stun:192.0.2.7") == TransportAddress("192.0.2.7:3478")!)
        #expect(try IceServerURI.stun("stun:192.0.2.7:19302") == TransportAddress("192.0.2.7:19302")!)
    }

    @Test func turnDefaultsToUDPOn3478AndTakesTheTransportParameter() throws {
        let udp = try #require(try turn(["--turn", "turn:192.0.2.9", "--turn-user", "u", "--turn-password", "p"]))
        #expect(udp.address == TransportAddress("192.0.2.9:3478")! && udp.transport == .udp)
        #expect(udp.credentials == TurnCredentials(username: "u", password: "p"))
        let tcp = try #require(try turn(["--turn", "turn:192.0.2.9:443?transport=tcp", "--turn-user", "u", "--turn-password", "p"]))
        #expect(tcp.address == TransportAddress("192.0.2.9:443")! && tcp.transport == .tcp)
        #expect(try turn([]) == nil)
    }

    @Test func turnsIsTLSOn5349NamingTheHostItVerifies() throws {
        let tls = try #require(try turn(["--turn", "turns:192.0.2.9", "--turn-user", "u", "--turn-password", "p"]))
        #expect(tls.address == TransportAddress("192.0.2.9:5349")! && tls.transport == .tls)
        #expect(tls.tlsHost == "192.0.2.9" && tls.tlsVerification == .system)
        let on443 = try #require(try turn(["--turn", "turns:192.0.2.9:443?transport=tcp", "--turn-user", "u",
                                           "--turn-password", "p", "--turn-insecure"]))
        #expect(on443.address == TransportAddress("192.0.2.9:443")! && on443.transport == .tls)
        #expect(on443.tlsVerification == .insecure)
        let named = try #require(try turn(["--turn", "turns:localhost:443", "--turn-user", "u", "--turn-password", "p"]))
        #expect(named.tlsHost == "localhost" && named.address.ip == IPAddress("127.0.0.1"))
    }

    @Test func mistakesAreExplained() {
        #expect(message { try turn(["--turn", "turn:192.0.2.9"]) }.contains("--turn-user"))
        #expect(message { try turn(["--turn", "turn:192.0.2.9", "--turn-user", "u"]) }.contains("--turn-password"))
        #expect(message { try turn(["--turn-user", "u"]) }.contains("need --turn"))
        #expect(message { try turn(["--turn", "turns:192.0.2.9?transport=udp", "--turn-user", "u", "--turn-password", "p"]) }
            .contains("DTLS"))
        #expect(message { try turn(["--turn", "turn:192.0.2.9", "--turn-user", "u", "--turn-password", "p", "--turn-insecure"]) }
            .contains("turns:"))
        #expect(message { try turn(["--turn", "192.0.2.9", "--turn-user", "u", "--turn-password", "p"]) }.contains("not a turn: or turns: URI"))
        #expect(message { try turn(["--turn", "turn:192.0.2.9?transport=sctp", "--turn-user", "u", "--turn-password", "p"]) }
            .contains("transport=udp"))
        #expect(message { try turn(["--turn", "turn:192.0.2.9:99999", "--turn-user", "u", "--turn-password", "p"]) }.contains("bad port"))
        #expect(message { try IceServerURI.stun("stun::3478") }.contains("no host"))
    }
}
