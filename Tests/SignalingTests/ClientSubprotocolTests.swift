import Foundation
import Synchronization
import Testing
@testable import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// A one-connection WebSocket "server" that records the client's opening handshake and answers 101 with the
/// `Sec-WebSocket-Protocol` lines a test chooses, then holds the connection open until it is dropped.
final class HandshakeRecordingServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let accepted = Atomic<Int32>(-1)
    private let recorded = Mutex<String?>(nil)
    private let arrived = DispatchSemaphore(value: 0)

    /// `protocolLines`: the values of the `Sec-WebSocket-Protocol` lines in the 101, one line each.
    init(protocolLines: [String]) {
        let (listener, port) = loopbackListener()
        self.listener = listener
        self.port = port
        Thread { [self] in
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            accepted.store(fd, ordering: .releasing)
            var received: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 4096)
            while HTTPRequestParser.headEnd(received) == nil {
                let n = recv(fd, &buf, buf.count, 0)
                guard n > 0 else { break }
                received += buf[0..<n]
            }
            let request = String(decoding: received, as: UTF8.self)
            recorded.withLock { $0 = request }
            arrived.signal()
            let key = request.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }?
                .split(separator: ":")[1].trimmingCharacters(in: .whitespaces) ?? ""
            let reply = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(WebSocketAcceptKey.accept(forKey: key))\r\n"
                + protocolLines.map { "Sec-WebSocket-Protocol: \($0)\r\n" }.joined() + "\r\n"
            _ = send(fd, reply, reply.utf8.count, Int32(MSG_NOSIGNAL))
        }.start()
    }

    deinit {
        close(listener)
        let fd = accepted.load(ordering: .acquiring)
        if fd >= 0 { close(fd) }
    }

    var url: String { "ws://127.0.0.1:\(port)/" }

    /// The request head the client sent (nil if none arrived within 3 s).
    func request() -> String? {
        if let request = recorded.withLock({ $0 }) { return request }
        _ = arrived.wait(timeout: .now() + 3)
        return recorded.withLock { $0 }
    }

    /// The values of every `Sec-WebSocket-Protocol` line of the recorded request.
    func requestedProtocolLines() -> [String] {
        (request() ?? "").components(separatedBy: "\r\n").compactMap { line in
            guard line.lowercased().hasPrefix("sec-websocket-protocol:") else { return nil }
            return String(line.dropFirst("sec-websocket-protocol:".count)).trimmingCharacters(in: .whitespaces)
        }
    }
}

/// RFC 6455 §4.1's subprotocol negotiation from the client's side, against servers that answer as a test says.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ClientSubprotocolTests {
    static func options(_ subprotocols: [String]) -> WebSocketClientOptions {
        var options = WebSocketClientOptions()
        options.subprotocols = subprotocols
        options.connectTimeout = 3
        return options
    }

    @Test func theAskedListIsSentAndTheServersChoiceExposed() throws {
        let server = HandshakeRecordingServer(protocolLines: ["janus-protocol"])
        let client = try WebSocketClient(url: server.url, options: Self.options(["janus-protocol", "chat.v2"]))
        defer { client.close() }
        #expect(server.requestedProtocolLines() == ["janus-protocol, chat.v2"])
        #expect(client.subprotocol == "janus-protocol")
    }

    @Test func noneAskedSendsNoHeader() throws {
        let server = HandshakeRecordingServer(protocolLines: [])
        let client = try WebSocketClient(url: server.url, options: Self.options([]))
        defer { client.close() }
        #expect(server.request()?.hasPrefix("GET / HTTP/1.1\r\n") == true)
        #expect(server.requestedProtocolLines() == [])
        #expect(client.subprotocol == nil)
    }

    @Test func aServerThatChoosesNoneIsAcceptedWithNil() throws {
        let server = HandshakeRecordingServer(protocolLines: [])
        let client = try WebSocketClient(url: server.url, options: Self.options(["janus-protocol"]))
        defer { client.close() }
        #expect(client.subprotocol == nil)
        #expect(!client.isClosed)
    }

    @Test(arguments: [
        // A name nobody asked for, the same name in another case (names are compared exactly), and the empty string
        // (§4.2.2: "The empty string is not the same as the null value ... and is not a legal value").
        (["janus-protocol"], ["chat"]), (["janus-protocol"], ["Janus-Protocol"]), (["janus-protocol"], [""]),
        // Asked for none, answered one.
        ([], ["janus-protocol"]),
    ])
    func aSubprotocolThatWasNotAskedForFailsTheConnection(asked: [String], answered: [String]) throws {
        let server = HandshakeRecordingServer(protocolLines: answered)
        do {
            _ = try WebSocketClient(url: server.url, options: Self.options(asked))
            Issue.record("connected although the server chose \(answered)")
        } catch {
            guard case .protocolViolation(let why) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(why.contains("not asked for"), "\(why)")
        }
    }

    @Test(arguments: [["a, b"], ["a", "b"], ["a", "a"]])
    func moreThanOneSubprotocolInTheAnswerFailsTheConnection(answered: [String]) throws {
        let server = HandshakeRecordingServer(protocolLines: answered)
        #expect(throws: SignalingError.protocolViolation("server answered more than one subprotocol: \(answered.joined(separator: ", "))")) {
            _ = try WebSocketClient(url: server.url, options: Self.options(["a", "b"]))
        }
    }

    @Test func anOverlongAnswerIsRefusedBeforeItIsRead() throws {
        let server = HandshakeRecordingServer(protocolLines: [String(repeating: "x", count: WebSocketSubprotocols.maxHeaderValueBytes + 1)])
        #expect(throws: SignalingError.protocolViolation("Sec-WebSocket-Protocol answer of 1025 bytes, over 1024")) {
            _ = try WebSocketClient(url: server.url, options: Self.options(["x"]))
        }
    }

    @Test(arguments: ["", "two words", "a,b", "semi;colon", "quo\"te", "tab\t", "caf\u{E9}", "new\r\nX-Injected: 1", "slash/1"])
    func aBadTokenIsRefusedBeforeConnecting(name: String) throws {
        // Nothing listens on the port: reaching the network would be a `.system` error, not `.invalidArgument`.
        do {
            _ = try WebSocketClient(url: "ws://127.0.0.1:9/", options: Self.options(["good", name]))
            Issue.record("accepted \(name.debugDescription)")
        } catch {
            guard case .invalidArgument(let why) = error else {
                Issue.record("\(name.debugDescription): expected invalidArgument, got \(error)")
                return
            }
            #expect(why.contains("not an RFC 6455 token"), "\(why)")
        }
    }

    @Test func aNameAskedForTwiceOrAnOverlongListIsRefused() {
        #expect(throws: SignalingError.invalidArgument("subprotocol \"a\" asked for twice")) {
            try WebSocketSubprotocols.validate(["a", "b", "a"])
        }
        let long = (0..<200).map { "proto-\($0)" }
        #expect(throws: SignalingError.self) { try WebSocketSubprotocols.validate(long) }
        #expect(throws: Never.self) { try WebSocketSubprotocols.validate(["janus-protocol", "v1.chat.example.com", "x~!#$%&'*+-.^_`|"]) }
    }

    /// conftui's own server speaks no subprotocol: asked for one, it upgrades without the header (§4.2.2), and the
    /// client goes on with nil.
    @Test func conftuisServerAnswersWithoutTheHeaderAndTheClientSeesNil() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let client = try WebSocketClient(url: server.webSocketURL, options: Self.options(["janus-protocol"]))
        defer { client.close() }
        #expect(client.subprotocol == nil)
        try client.send(text: #"{"eventName":"__join","data":{"room":"subprotocol"}}"#)
        guard case .text(let text) = try client.receive(timeout: 3) else {
            Issue.record("no reply to the join")
            return
        }
        #expect(text.hasPrefix(#"{"eventName":"_peers""#))
    }
}
