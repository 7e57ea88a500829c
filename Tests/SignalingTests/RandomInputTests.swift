import EngineTestSupport
import Testing
@testable import Signaling

/// Seeded random and mutated inputs into the pure cores: they must refuse, never crash, and the
/// room machine must stay consistent (every socket closed → nothing left).
@Suite struct RandomInputTests {
    static let seeds: [JSONValue] = [
        .object([("eventName", .string("__join")), ("data", .object([("room", .string("r"))]))]),
        .object([("eventName", .string("__offer")), ("data", .object([("socketId", .string("x")), ("sdp", .object([("type", .string("offer"))]))]))]),
        .object([("eventName", .string("__ice_candidate")), ("data", .object([("label", .integer(0)), ("candidate", .string("c")), ("socketId", .string("x"))]))]),
    ]

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func framesAndJSONNeverCrashTheCores(seed: UInt64) {
        var rng = SplitMixRandom(seed: seed)
        var rooms = SkyRTCRooms()
        let ids = (0..<4).map { SocketID("00000000-0000-4000-8000-00000000000\($0)") }
        for id in ids { _ = rooms.handle(.opened(id)) }
        for _ in 0..<1500 {
            // Frames: random bytes, or a valid frame with one byte flipped.
            var parser = WebSocketFrameParser(role: .server, maxMessageSize: 4096)
            var bytes: [UInt8]
            if Bool.random(using: &rng) {
                bytes = (0..<Int.random(in: 0..<64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = WebSocketFrameWriter.frame(.text, payload: Array(JSONWriter.string(Self.seeds.randomElement(using: &rng)!).utf8),
                                                   maskKey: (1, 2, 3, 4))
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            }
            parser.feed(bytes)
            while let message = try? parser.next() {
                if case .text(let t) = message { _ = rooms.handle(.message(ids[0], Array(t.utf8), isBinary: false)) }
            }
            // JSON: a valid message with one byte changed, from a random socket.
            var json = Array(JSONWriter.string(Self.seeds.randomElement(using: &rng)!).utf8)
            json[Int.random(in: 0..<json.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            _ = rooms.handle(.message(ids.randomElement(using: &rng)!, json, isBinary: true))
        }
        for id in ids { _ = rooms.handle(.closed(id)) }
        #expect(rooms.socketCount == 0 && rooms.roomCount == 0 && rooms.joinedCount == 0)
    }
}
