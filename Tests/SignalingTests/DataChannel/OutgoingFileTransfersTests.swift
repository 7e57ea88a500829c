import Foundation
import Testing
@testable import Signaling

/// A `FileSource` over bytes in memory, counting its reads.
final class MemoryFileSource: FileSource {
    var bytes: [UInt8]
    var failAt: Int64?
    private(set) var reads = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(at offset: Int64, count: Int) throws(FileSourceError) -> [UInt8] {
        reads += 1
        if let failAt, offset >= failAt { throw FileSourceError("I/O error") }
        let start = Int(min(offset, Int64(bytes.count)))
        return Array(bytes[start..<min(start + count, bytes.count)])
    }
}

@Suite struct OutgoingFileTransfersTests {
    static let alice = SocketID("alice")
    static let bob = SocketID("bob")
    static let t0 = MonotonicInstant(seconds: 5)

    static func sends(_ effects: [OutgoingFileTransfers.Effect]) -> [(SkyRTCPeerMessage, SocketID)] {
        effects.compactMap { if case .send(let m, let p) = $0 { (m, p) } else { nil } }
    }

    static func askedId(_ effects: [OutgoingFileTransfers.Effect], _ peer: SocketID) -> FileSendID? {
        for (message, to) in sends(effects) where to == peer {
            if case .file(.ask(let id, _, _)) = message { return id }
        }
        return nil
    }

    @Test func offerAsksEveryPeerWithItsOwnId() {
        var sender = OutgoingFileTransfers()
        var random = SeededRandom(seed: 3)
        let effects = sender.offer(MemoryFileSource([1, 2, 3]), name: "/home/me/secret/notes.txt", size: 3,
                                   to: [Self.alice, Self.bob], random: &random)
        let asks = Self.sends(effects)
        #expect(asks.count == 2 && sender.count == 2)
        guard case .file(.ask(let a, let name, 3)) = asks[0].0, case .file(.ask(let b, _, _)) = asks[1].0 else {
            Issue.record("not asks"); return
        }
        #expect(name == "notes.txt" && a != b)
    }

    /// Sender → codec → receiver, every chunk re-cut at random points as a channel with a smaller max message
    /// size might, reproduces the file byte for byte.
    @Test(arguments: [0, 1, 2, 3, 4, 1000, 48 * 1024, 48 * 1024 + 1, 200_001])
    func roundTripReproducesTheBytes(size: Int) throws {
        var random = SeededRandom(seed: UInt64(size) + 11)
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
        var configuration = OutgoingFileTransfers.Configuration()
        configuration.maxChunkCharacters = Int.random(in: 1000...70_000, using: &random)
        var sender = OutgoingFileTransfers(configuration: configuration)
        let sink = MemoryFileSink()
        var receiver = IncomingFileTransfers(sink: sink)

        var wire: [(SkyRTCPeerMessage, SocketID)] = Self.sends(sender.offer(MemoryFileSource(bytes), name: "f.bin",
                                                                           size: Int64(size), to: [Self.bob], random: &random))
        var percents: [Double] = []
        var completed: [String] = []
        var rounds = 0
        while !wire.isEmpty || sender.count > 0 {
            rounds += 1
            if rounds > 10_000 { Issue.record("no progress"); return }
            var next: [(SkyRTCPeerMessage, SocketID)] = []
            for (message, _) in wire {
                // Through the codec, as the channel would carry it.
                let parsed = try SkyRTCPeerMessage.parse(message.jsonBytes)
                guard case .file(let signal) = parsed else { Issue.record("not a file message"); return }
                if case .chunk(let id, let data, let last, let percent) = signal {
                    if let percent { percents.append(percent) }
                    // Re-cut the data at a random point: the receiver must not depend on the sender's cuts.
                    let utf8 = Array(data.utf8)
                    let cut = utf8.isEmpty ? 0 : Int.random(in: 0...utf8.count, using: &random)
                    for (piece, isLast) in [(utf8[..<cut], false), (utf8[cut...], last)] {
                        let effects = receiver.receive(.chunk(sendId: id, data: String(decoding: piece, as: UTF8.self),
                                                              last: isLast, percent: percent), from: Self.alice, now: Self.t0)
                        for case .completed(_, let path) in effects { completed.append(path) }
                    }
                    continue
                }
                for effect in receiver.receive(signal, from: Self.alice, now: Self.t0) {
                    if case .offered(let offer, _, _) = effect {
                        next += receiver.accept(offer, now: Self.t0).compactMap { if case .send(let m, _) = $0 { (m, Self.bob) } else { nil } }
                    }
                }
            }
            // What the receiver sent goes back to the sender, then the channel drains completely.
            var effects: [OutgoingFileTransfers.Effect] = []
            for (message, _) in next { if case .file(let s) = message { effects += sender.receive(s, from: Self.bob) } }
            effects += sender.bufferedAmount(Self.bob, 0)
            wire = Self.sends(effects)
        }
        #expect(completed == ["downloads/f.bin"])
        #expect(sink.finished["f.bin"] == bytes)
        #expect(zip(percents, percents.dropFirst()).allSatisfy { $0 <= $1 }, "percent is monotonic")
        #expect(percents.allSatisfy { $0 >= 0 && $0 < 100 && $0.rounded() == $0 })
    }

    @Test func pacingFollowsTheBufferedAmount() {
        var sender = OutgoingFileTransfers()
        var random = SeededRandom(seed: 5)
        let source = MemoryFileSource([UInt8](repeating: 1, count: 1_000_000))
        let id = Self.askedId(sender.offer(source, name: "big", size: 1_000_000, to: [Self.bob], random: &random), Self.bob)!
        // The channel already holds more than the low-water mark: nothing leaves on accept.
        _ = sender.bufferedAmount(Self.bob, 300 * 1024)
        #expect(Self.sends(sender.receive(.accept(sendId: id), from: Self.bob)).isEmpty)
        // Drained: chunks leave until what was sent reaches the mark, then stop.
        let burst = Self.sends(sender.bufferedAmount(Self.bob, 0))
        let sentBytes = burst.reduce(0) { $0 + $1.0.jsonBytes.count }
        // The last chunk is the one that crossed the mark: without it, the total was still below.
        #expect(sentBytes >= 256 * 1024 && sentBytes - burst.last!.0.jsonBytes.count < 256 * 1024)
        #expect(burst.allSatisfy { $0.0.jsonBytes.count <= 64 * 1024 })
        #expect(Self.sends(sender.bufferedAmount(Self.bob, 256 * 1024)).isEmpty)
        #expect(Self.sends(sender.bufferedAmount(Self.bob, 256 * 1024 - 1)).count == 1)
    }

    @Test func chunkSizeFollowsTheMaxMessageSize() {
        var sender = OutgoingFileTransfers()
        #expect(sender.chunkCharacters(for: Self.bob) == 64 * 1024 - 256)
        sender.maxMessageSize(Self.bob, 16 * 1024)
        #expect(sender.chunkCharacters(for: Self.bob) == 16 * 1024 - 256)
        sender.maxMessageSize(Self.bob, 0)
        #expect(sender.chunkCharacters(for: Self.bob) == 64 * 1024, "0 means no limit; ours applies")
        sender.maxMessageSize(Self.bob, 10)
        #expect(sender.chunkCharacters(for: Self.bob) == 1, "an absurd limit still makes progress")
        sender.maxMessageSize(Self.bob, Int.max)
        #expect(sender.chunkCharacters(for: Self.bob) == 64 * 1024)
    }

    @Test func refusalAndLeavingEndTransfers() {
        var sender = OutgoingFileTransfers()
        var random = SeededRandom(seed: 6)
        let effects = sender.offer(MemoryFileSource([UInt8](repeating: 0, count: 500_000)), name: "f", size: 500_000,
                                   to: [Self.alice, Self.bob], random: &random)
        let a = Self.askedId(effects, Self.alice)!
        let b = Self.askedId(effects, Self.bob)!
        #expect(sender.receive(.refuse(sendId: a), from: Self.alice)
                == [.ended(FileTransferID(peer: Self.alice, sendId: a), reason: "the peer refused the file")])
        #expect(sender.receive(.accept(sendId: a), from: Self.alice) == [], "a late accept is ignored")
        #expect(sender.receive(.accept(sendId: b), from: Self.alice) == [], "another peer's id does nothing")
        _ = sender.receive(.accept(sendId: b), from: Self.bob)
        #expect(sender.peerLeft(Self.bob) == [.ended(FileTransferID(peer: Self.bob, sendId: b), reason: "the peer left")])
        #expect(sender.count == 0)
    }

    @Test func aShrunkOrUnreadableFileEndsTheTransfer() {
        var sender = OutgoingFileTransfers()
        var random = SeededRandom(seed: 8)
        let id = Self.askedId(sender.offer(MemoryFileSource([1, 2]), name: "f", size: 10, to: [Self.bob], random: &random), Self.bob)!
        guard case .ended? = sender.receive(.accept(sendId: id), from: Self.bob).last else { Issue.record("not ended"); return }
        let source = MemoryFileSource([UInt8](repeating: 0, count: 200_000))
        source.failAt = 0
        let other = Self.askedId(sender.offer(source, name: "f", size: 200_000, to: [Self.bob], random: &random), Self.bob)!
        guard case .ended? = sender.receive(.accept(sendId: other), from: Self.bob).last else { Issue.record("not ended"); return }
        #expect(sender.count == 0)
    }

    @Test func sizesOutOfRangeAreNotOffered() {
        var sender = OutgoingFileTransfers()
        var random = SeededRandom(seed: 9)
        #expect(sender.offer(MemoryFileSource([]), name: "f", size: -1, to: [Self.bob], random: &random).isEmpty)
        #expect(sender.offer(MemoryFileSource([]), name: "f", size: (1 << 53) + 1, to: [Self.bob], random: &random).isEmpty)
    }
}
