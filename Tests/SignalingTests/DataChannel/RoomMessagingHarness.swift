import Foundation
import Testing
@testable import Signaling

/// Two `RoomMessaging` cores back to back through an in-memory channel: what one sends is queued for the other,
/// delivered one message at a time, and after each delivery the sender is told its channel's buffered amount
/// (the bytes still queued), as a real driver reports a draining channel. Each side writes into its own
/// temporary download directory through a `DiskFileSink`.
final class MessagingLink {
    static let alice = SocketID("alice")
    static let bob = SocketID("bob")

    let root: String
    var a: RoomMessaging
    var b: RoomMessaging
    var now = MonotonicInstant(seconds: 100)
    var toBob: [String] = []
    var toAlice: [String] = []
    var aliceEvents: [RoomMessaging.Effect] = []
    var bobEvents: [RoomMessaging.Effect] = []
    var aliceDeadline: MonotonicInstant?
    var bobDeadline: MonotonicInstant?
    /// The most bytes ever queued towards bob: what pacing keeps bounded.
    private(set) var maxQueuedToBob = 0

    var aliceDownloads: String { root + "/alice" }
    var bobDownloads: String { root + "/bob" }

    init(alice aliceConfiguration: RoomMessaging.Configuration = .init(), bob bobConfiguration: RoomMessaging.Configuration = .init(),
         seed: UInt64 = 1) throws {
        root = NSTemporaryDirectory() + "conftui-messaging-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        a = RoomMessaging(configuration: aliceConfiguration, sink: try DiskFileSink(directory: root + "/alice"),
                          random: SeededRandom(seed: seed))
        b = RoomMessaging(configuration: bobConfiguration, sink: try DiskFileSink(directory: root + "/bob"),
                          random: SeededRandom(seed: seed + 1000))
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Alice's core takes `input`; its sends to bob are queued, everything else is recorded.
    @discardableResult
    func alice(_ input: RoomMessaging.Input) -> RoomMessaging.Output {
        let out = a.handle(input, now: now)
        aliceDeadline = out.deadline
        for effect in out.effects {
            if case .send(let peer, let text) = effect, peer == Self.bob { toBob.append(text) } else { aliceEvents.append(effect) }
        }
        maxQueuedToBob = max(maxQueuedToBob, Self.bytes(toBob))
        return out
    }

    @discardableResult
    func bob(_ input: RoomMessaging.Input) -> RoomMessaging.Output {
        let out = b.handle(input, now: now)
        bobDeadline = out.deadline
        for effect in out.effects {
            if case .send(let peer, let text) = effect, peer == Self.alice { toAlice.append(text) } else { bobEvents.append(effect) }
        }
        return out
    }

    func open() {
        alice(.channelOpened(Self.bob))
        bob(.channelOpened(Self.alice))
    }

    /// Delivers queued messages both ways until none are left, or `limit` deliveries.
    func run(limit: Int = 1_000_000) {
        var delivered = 0
        while delivered < limit, !toBob.isEmpty || !toAlice.isEmpty {
            if !toBob.isEmpty {
                let text = toBob.removeFirst()
                bob(.received(Self.alice, text: text))
                alice(.bufferedAmount(Self.bob, Self.bytes(toBob)))
                delivered += 1
            }
            if delivered < limit, !toAlice.isEmpty {
                let text = toAlice.removeFirst()
                alice(.received(Self.bob, text: text))
                bob(.bufferedAmount(Self.alice, Self.bytes(toAlice)))
                delivered += 1
            }
        }
    }

    static func bytes(_ queue: [String]) -> Int { queue.reduce(0) { $0 + $1.utf8.count } }

    /// Writes `bytes` to a file in the link's root and returns its path.
    func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = root + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    func filesIn(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }
}

extension RoomMessaging.Effect {
    var logText: String? { if case .log(let text) = self { text } else { nil } }
    var noticeText: String? { if case .notice(let text) = self { text } else { nil } }
    var offeredID: FileTransferID? { if case .offered(let id, _, _, _) = self { id } else { nil } }
    var sentText: String? { if case .send(_, let text) = self { text } else { nil } }
}

/// Random bytes, repeatable.
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        var word = random.next()
        for _ in 0..<8 where i < count {
            bytes[i] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            i += 1
        }
    }
    return bytes
}
