import Foundation
import Testing
@testable import Signaling

/// The display-name extension through a real server on 127.0.0.1:0, exact JSON text on the wire.
@Suite(.timeLimit(.minutes(1))) struct DisplayNameServerTests {
    static func you(_ peersText: String) throws -> String {
        guard case .peers(let p) = try SkyRTCServerMessage.decode(Array(peersText.utf8)) else { throw SignalingError.timeout }
        return p.you.rawValue
    }

    /// The resume token a `_peers` carries (conftui format): 32 lowercase hex digits.
    static func token(_ peersText: String) throws -> String {
        guard case .peers(let p) = try SkyRTCServerMessage.decode(Array(peersText.utf8)), let token = p.resume,
              token.utf8.count == 32, token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw SignalingError.timeout
        }
        return token
    }

    @Test func namesReachTheOtherMembers() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let a = try SkyRTCClient(url: server.webSocketURL)
        let b = try SkyRTCClient(url: server.webSocketURL)
        let c = try SkyRTCClient(url: server.webSocketURL)
        defer { a.close(); b.close(); c.close() }

        try a.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r1","name":"Ada"}}"#)
        let peersA = try a.nextText()
        let idA = try Self.you(peersA)
        #expect(peersA == #"{"eventName":"_peers","data":{"connections":[],"you":"\#(idA)","resume":"\#(try Self.token(peersA))"}}"#)

        try b.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r1","name":"Bob"}}"#)
        let peersB = try b.nextText()
        let idB = try Self.you(peersB)
        #expect(peersB == #"{"eventName":"_peers","data":{"connections":["\#(idA)"],"you":"\#(idB)","names":{"\#(idA)":"Ada"},"resume":"\#(try Self.token(peersB))"}}"#)
        #expect(try a.nextText() == #"{"eventName":"_new_peer","data":{"socketId":"\#(idB)","name":"Bob"}}"#)

        // The typed client: join(room:name:) and the decoded names.
        let (peersC, earlier) = try c.join(room: "r1", name: "Cy")
        #expect(earlier.isEmpty)
        #expect(peersC.connections == [SocketID(idA), SocketID(idB)])
        #expect(peersC.names == [SocketID(idA): "Ada", SocketID(idB): "Bob"])
        #expect(try a.next(timeout: 3) == .newPeer(peersC.you, name: "Cy"))
        #expect(try b.next(timeout: 3) == .newPeer(peersC.you, name: "Cy"))
    }

    @Test func hostileNamesAreCleanedOrRefusedWhileBystandersAreServed() throws {
        let server = try TestServer.start()
        defer { server.stop() }
        let bystander = try SkyRTCClient(url: server.webSocketURL)
        defer { bystander.close() }
        let idO = try bystander.join(room: "hostile", name: "Olga").peers.you

        // Each hostile joiner: what it sends as `name` (JSON text) and what everyone else sees.
        let cases: [(json: String, shown: String?)] = [
            (#""\u001b[2J\u001b[HEve""#, "[2J[HEve"),
            ("\"" + String(repeating: "x", count: 10_000) + "\"", String(repeating: "x", count: 64)),
            (#""\u202Emallory.exe\u202C""#, "mallory.exe"),
            (#""\u0007\u009b\u007f""#, nil),
        ]
        var joined: [(SocketID, String?)] = []
        var clients: [SkyRTCClient] = []
        defer { for c in clients { c.close() } }
        for (json, shown) in cases {
            let client = try SkyRTCClient(url: server.webSocketURL)
            clients.append(client)
            try client.webSocket.send(text: #"{"eventName":"__join","data":{"room":"hostile","name":\#(json)}}"#)
            let id = SocketID(try Self.you(try client.nextText()))
            let expected = shown.map { #","name":"\#($0)""# } ?? ""
            #expect(try bystander.nextText() == #"{"eventName":"_new_peer","data":{"socketId":"\#(id)"\#(expected)}}"#)
            joined.append((id, shown))
        }

        // A number instead of a string: `_error` to the sender only; it is not in the room.
        let numeric = try SkyRTCClient(url: server.webSocketURL)
        clients.append(numeric)
        try numeric.webSocket.send(text: #"{"eventName":"__join","data":{"room":"hostile","name":42}}"#)
        #expect(try numeric.nextText() == #"{"eventName":"_error","data":{"code":"bad_field","message":"__join: name must be a string"}}"#)
        #expect(throws: SignalingError.timeout) { try bystander.webSocket.receive(timeout: 0.3) }

        // A later joiner sees every cleaned name in `_peers`, and the bystander is still served.
        let late = try SkyRTCClient(url: server.webSocketURL)
        clients.append(late)
        let peers = try late.join(room: "hostile").peers
        #expect(peers.connections == [idO] + joined.map(\.0))
        var expectedNames: [SocketID: String] = [idO: "Olga"]
        for (id, shown) in joined { if let shown { expectedNames[id] = shown } }
        #expect(peers.names == expectedNames)
        #expect(try bystander.next(timeout: 3) == .newPeer(peers.you, name: nil))
        #expect(try TestServer.stillServes(server))
    }

    @Test func compatOriginalSendsNoNames() throws {
        let server = try TestServer.start { $0.format = .original }
        defer { server.stop() }
        let a = try SkyRTCClient(url: server.webSocketURL)
        let b = try SkyRTCClient(url: server.webSocketURL)
        defer { a.close(); b.close() }
        try a.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r1","name":"Ada"}}"#)
        let idA = try Self.you(try a.nextText())
        try b.webSocket.send(text: #"{"eventName":"__join","data":{"room":"r1","name":"Bob"}}"#)
        let peersB = try b.nextText()
        let idB = try Self.you(peersB)
        #expect(peersB == #"{"eventName":"_peers","data":{"connections":["\#(idA)"],"you":"\#(idB)"}}"#)
        #expect(try a.nextText() == #"{"eventName":"_new_peer","data":{"socketId":"\#(idB)"}}"#)
    }
}
