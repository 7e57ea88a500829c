import Foundation
import Testing
@testable import EngineTransport

/// The TURN client core against Debian's coturn (software nobody here wrote) on 127.0.0.1: a real allocation with the
/// long-term credential dance (401 then the signed retry), a permission, data relayed both ways (a Send indication
/// out, a Data indication back), a channel bound and ChannelData both ways, and a release. The driver is this test:
/// one UDP socket for the client, one for the peer, the real clock. Skipped when coturn is not installed.
@Suite struct TurnAgainstCoturnTests {
    static let binary = "/usr/bin/turnserver"

    final class Server {
        let process = Process()
        let log: URL
        let port: UInt16
        init() throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-coturn-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            log = dir.appendingPathComponent("turnserver.log")
            // A port of our own: a free one picked by binding and releasing it.
            let probe = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
            port = probe.localAddress.port
            process.executableURL = URL(fileURLWithPath: TurnAgainstCoturnTests.binary)
            process.arguments = ["-n", "--listening-ip", "127.0.0.1", "--relay-ip", "127.0.0.1", "--listening-port", "\(port)",
                                 "--allow-loopback-peers", "--no-cli", "--no-tls", "--no-dtls", "--lt-cred-mech",
                                 "--user", "conftui:test-secret", "--realm", "conftui.test", "--log-file", log.path,
                                 "--simple-log", "--no-stdout-log", "--pidfile", dir.appendingPathComponent("pid").path,
                                 "--min-port", "50000", "--max-port", "50999"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }
        var logTail: String { (try? String(contentsOf: log, encoding: .utf8)).map { String($0.suffix(3000)) } ?? "(no log)" }
        // coturn takes its time over SIGTERM (it drains its relay threads); nothing of it is worth keeping here.
        deinit { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary)), .timeLimit(.minutes(1)))
    func allocatesRelaysBothWaysBindsAChannelAndReleases() throws {
        let server = try Server()
        let serverAddress = TransportAddress("127.0.0.1:\(server.port)")!
        let socket = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
        let peer = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
        let client = TurnClient(config: TurnClientConfig(credentials: TurnCredentials(username: "conftui", password: "test-secret"),
                                                        seed: 7))
        let start = MonotonicClock.nanoseconds()
        var events: [TurnEvent] = []
        func now() -> TransportTime { TransportTime(nanoseconds: MonotonicClock.nanoseconds() - start) }
        func feed(_ input: TurnInput) {
            let out = client.handle(input, now: now())
            for t in out.transmits { socket.send(t, to: serverAddress) }
            events += out.events
        }
        /// Pumps both sockets and the client's timers until `done` or 5 s.
        func run(until done: () -> Bool) -> Bool {
            let deadline = MonotonicClock.now() + 5
            while !done() && MonotonicClock.now() < deadline {
                while let (bytes, _) = socket.receive() { feed(.received(bytes)) }
                feed(.timeout)
                usleep(2000)
            }
            return done()
        }
        // coturn may need a moment to open its listener: the client's own retransmissions cover that.
        feed(.allocate)
        #expect(run { client.state == .allocated }, "no allocation; coturn log:\n\(server.logTail)")
        let relayed = try #require(client.relayedAddress)
        #expect(relayed.ip == IPAddress("127.0.0.1")! && relayed.port >= 50000 && relayed.port <= 50999)

        // Out through a Send indication (the permission is created on first use), in as a Data indication.
        feed(.send(to: peer.localAddress, bytes: Array("hello peer".utf8)))
        var atPeer: (bytes: [UInt8], from: TransportAddress)?
        #expect(run { atPeer = atPeer ?? peer.receive(); return atPeer != nil }, "coturn log:\n\(server.logTail)")
        #expect(atPeer?.bytes == Array("hello peer".utf8) && atPeer?.from == relayed)
        peer.send(Array("hello client".utf8), to: relayed)
        #expect(run { events.contains(.data(from: peer.localAddress, bytes: Array("hello client".utf8))) })

        // ChannelBind, then ChannelData both ways.
        #expect(run { client.boundChannel(for: peer.localAddress) != nil } || {
            feed(.send(to: peer.localAddress, bytes: [0])); return run { client.boundChannel(for: peer.localAddress) != nil }
        }(), "no channel; coturn log:\n\(server.logTail)")
        while peer.receive() != nil {}
        feed(.send(to: peer.localAddress, bytes: Array("over the channel".utf8)))
        atPeer = nil
        #expect(run { atPeer = atPeer ?? peer.receive(); return atPeer?.bytes == Array("over the channel".utf8) })
        peer.send(Array("channel back".utf8), to: relayed)
        #expect(run { events.contains(.data(from: peer.localAddress, bytes: Array("channel back".utf8))) })
        #expect(client.droppedReceives == 0)

        feed(.close)
        #expect(run { client.state == .closed })
        withExtendedLifetime(server) {}
    }
}
