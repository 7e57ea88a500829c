import Foundation
import Testing
@testable import Signaling

@Suite struct IncomingFileTransfersTests {
    static let alice = SocketID("alice")
    static let bob = SocketID("bob")
    static let t0 = MonotonicInstant(seconds: 1000)

    static func id(_ text: String, _ peer: SocketID = alice) -> FileTransferID {
        FileTransferID(peer: peer, sendId: FileSendID(text)!)
    }

    static func ask(_ core: inout IncomingFileTransfers, _ id: FileTransferID, name: String = "report.pdf", size: Int64,
                    at now: MonotonicInstant = t0) -> [IncomingFileTransfers.Effect] {
        core.receive(.ask(sendId: id.sendId, name: name, size: size), from: id.peer, now: now)
    }

    static func chunk(_ core: inout IncomingFileTransfers, _ id: FileTransferID, _ data: String, last: Bool = false,
                      at now: MonotonicInstant = t0) -> [IncomingFileTransfers.Effect] {
        core.receive(.chunk(sendId: id.sendId, data: data, last: last, percent: nil), from: id.peer, now: now)
    }

    static func url(_ bytes: [UInt8]) -> String { "data:application/pdf;base64," + Data(bytes).base64EncodedString() }

    @Test func offerAcceptChunksComplete() {
        let sink = MemoryFileSink()
        var core = IncomingFileTransfers(sink: sink)
        let a = Self.id("A1")
        #expect(Self.ask(&core, a, name: "../report.pdf", size: 5) == [.offered(a, name: "report.pdf", size: 5)])
        #expect(core.accept(a, now: Self.t0) == [.send(.file(.accept(sendId: a.sendId)), to: Self.alice)])
        #expect(core.accept(a, now: Self.t0) == [], "a second accept does nothing")
        let text = Self.url(Array("hello".utf8))
        // Split inside the header and inside a quad.
        let cuts = [text.index(text.startIndex, offsetBy: 9), text.index(text.endIndex, offsetBy: -3)]
        _ = Self.chunk(&core, a, String(text[..<cuts[0]]))
        _ = Self.chunk(&core, a, String(text[cuts[0]..<cuts[1]]))
        #expect(Self.chunk(&core, a, String(text[cuts[1]...]), last: true) == [.completed(a, path: "downloads/report.pdf")])
        #expect(sink.finished["report.pdf"] == Array("hello".utf8))
        #expect(core.count == 0)
    }

    @Test func neverOverwrites() {
        let sink = MemoryFileSink(taken: ["report.pdf", "report (1).pdf"])
        var core = IncomingFileTransfers(sink: sink)
        let a = Self.id("A1")
        _ = Self.ask(&core, a, size: 0)
        _ = core.accept(a, now: Self.t0)
        #expect(Self.chunk(&core, a, "data:", last: true) == [.completed(a, path: "downloads/report (2).pdf")])
    }

    @Test func noFreeNameAfterAHundredTriesRefuses() {
        let sink = MemoryFileSink(taken: Set((0..<SafeFileName.maxAttempts).map { SafeFileName.numbered("x", attempt: $0) }))
        var core = IncomingFileTransfers(sink: sink)
        let a = Self.id("A1")
        _ = Self.ask(&core, a, name: "x", size: 1)
        let effects = core.accept(a, now: Self.t0)
        #expect(effects.first == .send(.file(.refuse(sendId: a.sendId)), to: Self.alice))
        #expect(effects.count == 2 && core.count == 0)
    }

    @Test func refusalSendsRefuse() {
        var core = IncomingFileTransfers(sink: MemoryFileSink())
        let a = Self.id("A1")
        _ = Self.ask(&core, a, size: 1)
        #expect(core.refuse(a) == [.send(.file(.refuse(sendId: a.sendId)), to: Self.alice)])
        #expect(core.count == 0)
        #expect(Self.chunk(&core, a, "data:;base64,QQ==", last: true) == [], "chunks of a refused offer are dropped")
    }

    @Test func chunksBeforeAcceptAreDropped() {
        let sink = MemoryFileSink()
        var core = IncomingFileTransfers(sink: sink)
        let a = Self.id("A1")
        _ = Self.ask(&core, a, size: 1)
        #expect(Self.chunk(&core, a, "data:;base64,QQ==", last: true) == [])
        #expect(core.count == 1 && sink.finished.isEmpty)
    }

    @Test func tooManyOffersAreRefused() {
        var core = IncomingFileTransfers(sink: MemoryFileSink())
        for i in 0..<4 { #expect(Self.ask(&core, Self.id("A\(i)"), size: 1).count == 1) }
        let fifth = Self.id("A4")
        let refused = Self.ask(&core, fifth, size: 1)
        #expect(refused.first == .send(.file(.refuse(sendId: fifth.sendId)), to: Self.alice))
        guard case .failed(fifth, _)? = refused.last else { Issue.record("no notice"); return }
        // 16 in all: three more peers with four each fill it; the next is refused whatever its peer.
        for p in 0..<3 { for i in 0..<4 { _ = Self.ask(&core, Self.id("B\(i)", SocketID("p\(p)")), size: 1) } }
        #expect(core.count == 16)
        #expect(Self.ask(&core, Self.id("C0", Self.bob), size: 1).first == .send(.file(.refuse(sendId: FileSendID("C0")!)), to: Self.bob))
        #expect(core.count == 16)
    }

    @Test func repeatedIdIsIgnored() {
        var core = IncomingFileTransfers(sink: MemoryFileSink())
        let a = Self.id("A1")
        _ = Self.ask(&core, a, size: 1)
        #expect(Self.ask(&core, a, name: "other", size: 100) == [])
    }

    @Test func oversizeOfferIsRefused() {
        var limits = FileTransferLimits()
        limits.maxFileSize = 10
        var core = IncomingFileTransfers(sink: MemoryFileSink(), limits: limits)
        let a = Self.id("A1")
        #expect(Self.ask(&core, a, size: 11).first == .send(.file(.refuse(sendId: a.sendId)), to: Self.alice))
        #expect(Self.ask(&core, Self.id("A2"), size: 10).count == 1)
    }

    static func accepted(_ sink: MemoryFileSink, size: Int64, limits: FileTransferLimits = FileTransferLimits())
        -> (IncomingFileTransfers, FileTransferID) {
        var core = IncomingFileTransfers(sink: sink, limits: limits)
        let a = id("A1")
        _ = ask(&core, a, size: size)
        _ = core.accept(a, now: t0)
        return (core, a)
    }

    static func expectFailure(_ effects: [IncomingFileTransfers.Effect], _ a: FileTransferID, tellsPeer: Bool) {
        guard case .failed(a, _)? = effects.last else { Issue.record("not failed: \(effects)"); return }
        #expect(effects.contains(.send(.file(.refuse(sendId: a.sendId)), to: a.peer)) == tellsPeer)
    }

    @Test func moreBytesThanOfferedFail() {
        let sink = MemoryFileSink()
        var (core, a) = Self.accepted(sink, size: 4)
        _ = Self.chunk(&core, a, Self.url([1, 2, 3]))
        Self.expectFailure(Self.chunk(&core, a, "AQID"), a, tellsPeer: true)
        #expect(sink.removed == ["report.pdf"] && sink.open.isEmpty && core.count == 0)
    }

    @Test func shortLastChunkFails() {
        let sink = MemoryFileSink()
        var (core, a) = Self.accepted(sink, size: 4)
        Self.expectFailure(Self.chunk(&core, a, Self.url([1, 2, 3]), last: true), a, tellsPeer: false)
        #expect(sink.removed == ["report.pdf"] && sink.finished.isEmpty)
    }

    @Test func malformedDataFails() {
        let sink = MemoryFileSink()
        var (core, a) = Self.accepted(sink, size: 4)
        Self.expectFailure(Self.chunk(&core, a, "data:x;base64,AQ!D"), a, tellsPeer: true)
        var (other, b) = Self.accepted(MemoryFileSink(), size: 4)
        Self.expectFailure(Self.chunk(&other, b, "javascript:alert(1)"), b, tellsPeer: true)
    }

    @Test func peerLeavingRemovesThePartialFile() {
        let sink = MemoryFileSink()
        var (core, a) = Self.accepted(sink, size: 100)
        let pending = Self.id("A2")
        _ = Self.ask(&core, pending, size: 1)
        let bobs = Self.id("B1", Self.bob)
        _ = Self.ask(&core, bobs, size: 1)
        _ = Self.chunk(&core, a, Self.url([1, 2, 3]))
        let effects = core.peerLeft(Self.alice)
        #expect(effects.count == 2)
        #expect(effects.allSatisfy { if case .failed = $0 { true } else { false } })
        #expect(sink.removed == ["report.pdf"] && core.count == 1)
    }

    @Test func stalledTransferFails() {
        let sink = MemoryFileSink()
        var (core, a) = Self.accepted(sink, size: 100)
        _ = Self.chunk(&core, a, "data:", at: Self.t0 + 30)
        #expect(core.tick(now: Self.t0 + 89) == [])
        Self.expectFailure(core.tick(now: Self.t0 + 90), a, tellsPeer: true)
        #expect(sink.removed == ["report.pdf"])
    }

    @Test func progressAtMostEveryPercentOr250ms() {
        let size: Int64 = 3000
        var (core, a) = Self.accepted(MemoryFileSink(), size: size)
        let text = Array(Self.url([UInt8](repeating: 7, count: Int(size))).utf8)
        var progress: [Int64] = []
        // One instant throughout, so only whole percents trigger a report.
        let now = Self.t0
        var offset = 0
        while offset < text.count {
            let end = min(offset + 8, text.count)
            for case .progress(_, let received, _) in Self.chunk(&core, a, String(decoding: text[offset..<end], as: UTF8.self),
                                                                 last: end == text.count, at: now) { progress.append(received) }
            offset = end
        }
        #expect(!progress.isEmpty && progress.count <= 100)
        let percents = progress.map { $0 * 100 / size }
        #expect(zip(percents, percents.dropFirst()).allSatisfy { $1 > $0 }, "each a whole percent past the last")
        // Slow enough, every chunk reports even without a whole percent.
        var (slow, b) = Self.accepted(MemoryFileSink(), size: 1_000_000)
        _ = Self.chunk(&slow, b, "data:;base64,", at: Self.t0 + 1)
        #expect(Self.chunk(&slow, b, "AAAA", at: Self.t0 + 1.1) == [])
        #expect(Self.chunk(&slow, b, "AAAA", at: Self.t0 + 1.3) == [.progress(b, received: 6, size: 1_000_000)])
    }

    @Test func sinkFailureFails() {
        let sink = MemoryFileSink()
        sink.failCreate = true
        var core = IncomingFileTransfers(sink: sink)
        let a = Self.id("A1")
        _ = Self.ask(&core, a, size: 1)
        let effects = core.accept(a, now: Self.t0)
        #expect(effects.first == .send(.file(.refuse(sendId: a.sendId)), to: Self.alice) && core.count == 0)
    }

    /// What the original browser client sends, parsed from its JSON: an ask with a hostile name, then the data
    /// URL in 1,000-character chunks with fractional `percent`, the last without.
    @Test func receivesTheOriginalClientsTransfer() throws {
        let sink = MemoryFileSink()
        var core = IncomingFileTransfers(sink: sink)
        var random = SeededRandom(seed: 21)
        let bytes = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let ask = #"{"name":"../../etc/passwd","size":10000,"sendId":"1BX4K7-QZ","type":"__file","signal":"ask"}"#
        guard case .file(let signal) = try SkyRTCPeerMessage.parse(Array(ask.utf8)) else { Issue.record("not a file"); return }
        let offered = core.receive(signal, from: Self.alice, now: Self.t0)
        let a = Self.id("1BX4K7-QZ")
        #expect(offered == [.offered(a, name: "passwd", size: 10_000)])
        _ = core.accept(a, now: Self.t0)
        var text = Substring("data:application/octet-stream;base64," + Data(bytes).base64EncodedString())
        let packets = text.count / 1000
        var sent = 0
        var effects: [IncomingFileTransfers.Effect] = []
        while !text.isEmpty {
            sent += 1
            let json: String
            if text.count > 1000 {
                let percent = Double(sent) / Double(packets) * 100
                json = #"{"type":"__file","signal":"chunk","sendId":"1BX4K7-QZ","last":false,"data":""# + text.prefix(1000) + #"","percent":"# + "\(percent)}"
                text = text.dropFirst(1000)
            } else {
                json = #"{"type":"__file","signal":"chunk","sendId":"1BX4K7-QZ","data":""# + text + #"","last":true}"#
                text = ""
            }
            guard case .file(let chunk) = try SkyRTCPeerMessage.parse(Array(json.utf8)) else { Issue.record("not a file"); return }
            effects = core.receive(chunk, from: Self.alice, now: Self.t0)
        }
        #expect(effects == [.completed(a, path: "downloads/passwd")])
        #expect(sink.finished["passwd"] == bytes)
    }
}
