import Foundation
import Testing
@testable import Signaling

/// Random and mutated messages, and odd driver values, never trap; afterwards the channel still carries chat.
@Suite struct RoomMessagingRandomInputTests {
    static let alice = MessagingLink.alice

    static let seeds = [
        #"{"type":"__msg","data":"hi"}"#,
        #"{"name":"a.txt","size":5,"sendId":"R1","type":"__file","signal":"ask"}"#,
        #"{"type":"__file","signal":"chunk","sendId":"R1","last":false,"data":"data:text/plain;base64,aGVs","percent":60}"#,
        #"{"type":"__file","signal":"chunk","sendId":"R1","data":"bG8=","last":true}"#,
        #"{"type":"__file","signal":"accept","sendId":"R1"}"#,
        #"{"type":"__file","signal":"refuse","sendId":"R1"}"#,
    ].map { Array($0.utf8) }

    @Test(arguments: 0..<4)
    func mutatedMessagesNeverTrap(seed: Int) throws {
        var configuration = RoomMessaging.Configuration()
        configuration.filePolicy = .acceptAll
        let link = try MessagingLink(bob: configuration)
        link.open()
        var random = SeededRandom(seed: UInt64(seed) * 7919 + 1)
        for step in 0..<3000 {
            var bytes = Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &random)]
            // Flip, insert or drop a few bytes; sometimes send pure noise.
            if Int.random(in: 0..<10, using: &random) == 0 {
                bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                for _ in 0..<Int.random(in: 0..<4, using: &random) where !bytes.isEmpty {
                    let at = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
                    default: bytes.remove(at: at)
                    }
                }
            }
            link.bob(.receivedBytes(Self.alice, bytes))
            switch Int.random(in: 0..<20, using: &random) {
            case 0: link.bob(.bufferedAmount(Self.alice, Int(truncatingIfNeeded: random.next())))
            case 1: link.bob(.maxMessageSize(Self.alice, Int(truncatingIfNeeded: random.next())))
            case 2: link.bob(.timer)
            case 3: link.bob(.receivedBinary(Self.alice, count: Int(truncatingIfNeeded: random.next())))
            default: break
            }
            if step % 100 == 0 { link.now = link.now + 1 }
            if step % 500 == 0 { link.now = link.now + 61 }
        }
        link.now = link.now + 1
        let out = link.b.handle(.received(Self.alice, text: #"{"type":"__msg","data":"ok"}"#), now: link.now)
        #expect(out.effects == [.chat(from: Self.alice, text: "ok", at: link.now)])
        // Whatever arrived whole is complete; nothing partial is left behind once the peer is gone.
        link.bob(.channelClosed(Self.alice))
        for name in link.filesIn(link.bobDownloads) {
            let mode = try FileManager.default.attributesOfItem(atPath: link.bobDownloads + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o644, "\(name) left partial")
        }
    }
}
