import Foundation
import Testing
@testable import Signaling

/// What a hostile peer can send. Each case: the message is dropped with a logged reason and no other effect,
/// and the channel stays usable (the next valid message is shown).
@Suite struct RoomMessagingHostileTests {
    static let alice = MessagingLink.alice
    static let bob = MessagingLink.bob
    static let hello = #"{"type":"__msg","data":"still here"}"#

    /// Feeds `input` to bob's core: exactly one log line containing `reason` comes out, then a valid chat works.
    static func expectDropped(_ input: RoomMessaging.Input, reason: String, link: MessagingLink? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let link = try link ?? MessagingLink()
        link.open()
        let out = link.b.handle(input, now: link.now)
        #expect(out.effects.count == 1, "\(out.effects)", sourceLocation: sourceLocation)
        #expect(out.effects.first?.logText?.contains(reason) == true, "\(out.effects)", sourceLocation: sourceLocation)
        let next = link.b.handle(.received(alice, text: hello), now: link.now)
        #expect(next.effects == [.chat(from: alice, text: "still here", at: link.now)], sourceLocation: sourceLocation)
    }

    @Test func notJSON() throws {
        for text in ["hello {", "{\"type\":\"__msg\",\"data\":\"x\"", "{}}", "nul", "'single'", "{\"a\":1,}"] {
            try Self.expectDropped(.received(Self.alice, text: text), reason: "not JSON")
        }
    }

    @Test func binary() throws {
        try Self.expectDropped(.receivedBinary(Self.alice, count: 1200), reason: "binary message of 1200 bytes")
        try Self.expectDropped(.receivedBinary(Self.alice, count: -5), reason: "binary message of 0 bytes")
    }

    @Test func empty() throws {
        try Self.expectDropped(.received(Self.alice, text: ""), reason: "an empty message")
        try Self.expectDropped(.receivedBytes(Self.alice, []), reason: "an empty message")
    }

    @Test func invalidUTF8() throws {
        let cases: [[UInt8]] = [
            [0xFF, 0xFE],
            Array(#"{"type":"__msg","data":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),  // overlong "/"
            Array(#"{"type":"__msg","data":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),  // a surrogate
            Array(#"{"type":"__msg","data":"abc"#.utf8) + [0xE4, 0xBD],  // cut inside a character
        ]
        for bytes in cases { try Self.expectDropped(.receivedBytes(Self.alice, bytes), reason: "not UTF-8") }
        // Valid bytes go through the same path as text.
        let link = try MessagingLink()
        link.open()
        let out = link.b.handle(.receivedBytes(Self.alice, Array(#"{"type":"__msg","data":"你好 👋"}"#.utf8)), now: link.now)
        #expect(out.effects == [.chat(from: Self.alice, text: "你好 👋", at: link.now)])
    }

    @Test func deeplyNested() throws {
        let arrays = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        try Self.expectDropped(.received(Self.alice, text: arrays), reason: "nesting deeper than 8")
        let data = String(repeating: #"{"a":"#, count: 20) + "1" + String(repeating: "}", count: 20)
        try Self.expectDropped(.received(Self.alice, text: #"{"type":"__msg","data":"# + data + "}"), reason: "nesting deeper than 8")
    }

    @Test func overTheMaxMessageSize() throws {
        let big = #"{"type":"__msg","data":""# + String(repeating: "x", count: 300 * 1024) + #""}"#
        try Self.expectDropped(.received(Self.alice, text: big), reason: "over the 262144-byte max message size")
        try Self.expectDropped(.receivedBytes(Self.alice, Array(big.utf8)), reason: "over the 262144-byte max message size")
        var configuration = RoomMessaging.Configuration()
        configuration.maxIncomingMessageSize = 1000
        let small = #"{"type":"__msg","data":""# + String(repeating: "y", count: 1000) + #""}"#
        try Self.expectDropped(.received(Self.alice, text: small), reason: "over the 1000-byte max message size",
                               link: try MessagingLink(bob: configuration))
    }

    @Test func badFileMessages() throws {
        let cases = [
            (#"{"type":"__file","signal":"chunk","sendId":"NOPE","last":false,"data":"AAAA"}"#, "a chunk of an unknown transfer NOPE"),
            (#"{"type":"__file","signal":"accept","sendId":"NOPE"}"#, "an accept of an unknown transfer NOPE"),
            (#"{"type":"__file","signal":"refuse","sendId":"NOPE"}"#, "a refuse of an unknown transfer NOPE"),
            (#"{"type":"__file","signal":"close","sendId":"NOPE"}"#, "a __file signal not acted on (close)"),
            (#"{"type":"__file","signal":"\u001b[2J","sendId":"X"}"#, "a __file signal not acted on (\u{5C}u{1B}[2J)"),
            (#"{"type":"__file","signal":"ask","sendId":"a/b","name":"x","size":1}"#, "whose sendId is missing"),
            (#"{"type":"__file","signal":"ask","sendId":"A","size":1}"#, "whose name is missing"),
            (#"{"type":"__file","signal":"chunk","sendId":"A","last":"yes","data":""}"#, "whose last is missing"),
            (#"{"type":"__file","signal":"chunk","sendId":"A","last":false,"data":"","percent":500}"#, "whose percent is missing"),
            (#"{"type":"__file"}"#, "whose signal is missing"),
        ]
        for (text, reason) in cases { try Self.expectDropped(.received(Self.alice, text: text), reason: reason) }
    }

    @Test func negativeAndHugeSizes() throws {
        for size in ["-1", "9007199254740993", "1.5", "\"12\"", "18446744073709551616", "null"] {
            let ask = #"{"name":"x","size":"# + size + #","sendId":"S1","type":"__file","signal":"ask"}"#
            try Self.expectDropped(.received(Self.alice, text: ask), reason: "whose size is missing or out of bounds")
        }
        // Past Double's range the parser itself refuses the number.
        let infinite = #"{"name":"x","size":1e400,"sendId":"S1","type":"__file","signal":"ask"}"#
        try Self.expectDropped(.received(Self.alice, text: infinite), reason: "not JSON (number out of range")
    }

    /// A size within JavaScript's range but over `--max-file-size`: refused (the peer is told), logged, and
    /// the user is told once.
    @Test func overTheFileSizeLimit() throws {
        let link = try MessagingLink()
        link.open()
        let ask = #"{"name":"huge.iso","size":9007199254740992,"sendId":"S1","type":"__file","signal":"ask"}"#
        let out = link.b.handle(.received(Self.alice, text: ask), now: link.now)
        #expect(out.effects.count == 3)
        #expect(out.effects[0] == .send(Self.alice, text: #"{"type":"__file","signal":"refuse","sendId":"S1"}"#))
        #expect(out.effects[1].logText?.contains("over the 1073741824-byte limit") == true)
        #expect(out.effects[2].noticeText?.contains("over the 1073741824-byte limit") == true)
        #expect(link.b.handle(.received(Self.alice, text: Self.hello), now: link.now).effects.count == 1)
    }

    /// More data than the offer announced: the transfer fails, the partial file is removed, the peer is told.
    @Test func moreDataThanAnnounced() throws {
        var configuration = RoomMessaging.Configuration()
        configuration.filePolicy = .acceptAll
        let link = try MessagingLink(bob: configuration)
        link.open()
        let id = FileTransferID(peer: Self.alice, sendId: FileSendID("LIE")!)
        link.bob(.received(Self.alice, text: #"{"name":"small.txt","size":4,"sendId":"LIE","type":"__file","signal":"ask"}"#))
        #expect(link.toAlice == [#"{"type":"__file","signal":"accept","sendId":"LIE"}"#])
        #expect(link.filesIn(link.bobDownloads) == ["small.txt"])
        // 4 bytes, then 3 more in the same chunk: 7 > 4.
        let chunk = #"{"type":"__file","signal":"chunk","sendId":"LIE","last":false,"data":"data:text/plain;base64,AAAAAAAAAA=="}"#
        let out = link.b.handle(.received(Self.alice, text: chunk), now: link.now)
        #expect(out.effects[0] == .send(Self.alice, text: #"{"type":"__file","signal":"refuse","sendId":"LIE"}"#))
        #expect(out.effects[1] == .fileFailed(id, .incoming, reason: "the peer sent more than the 4 bytes offered"))
        #expect(out.effects[2].logText?.contains("the peer sent more than the 4 bytes offered") == true)
        #expect(link.filesIn(link.bobDownloads).isEmpty)
        // Later chunks of it are unknown now.
        let again = link.b.handle(.received(Self.alice, text: chunk), now: link.now)
        #expect(again.effects.count == 1 && again.effects[0].logText?.contains("a chunk of an unknown transfer LIE") == true)
        #expect(link.b.handle(.received(Self.alice, text: Self.hello), now: link.now).effects.count == 1)
    }

    @Test func lessDataThanAnnounced() throws {
        var configuration = RoomMessaging.Configuration()
        configuration.filePolicy = .acceptAll
        let link = try MessagingLink(bob: configuration)
        link.open()
        link.bob(.received(Self.alice, text: #"{"name":"s.txt","size":100,"sendId":"SHORT","type":"__file","signal":"ask"}"#))
        let last = #"{"type":"__file","signal":"chunk","sendId":"SHORT","data":"data:text/plain;base64,AAAA","last":true}"#
        let out = link.b.handle(.received(Self.alice, text: last), now: link.now)
        let id = FileTransferID(peer: Self.alice, sendId: FileSendID("SHORT")!)
        #expect(out.effects.first == .fileFailed(id, .incoming, reason: "the peer ended the file at 3 of 100 bytes"))
        #expect(link.filesIn(link.bobDownloads).isEmpty)
    }

    @Test func malformedChunkData() throws {
        var configuration = RoomMessaging.Configuration()
        configuration.filePolicy = .acceptAll
        let link = try MessagingLink(bob: configuration)
        link.open()
        link.bob(.received(Self.alice, text: #"{"name":"m","size":3,"sendId":"BAD","type":"__file","signal":"ask"}"#))
        let chunk = #"{"type":"__file","signal":"chunk","sendId":"BAD","last":false,"data":"javascript:alert(1)"}"#
        let out = link.b.handle(.received(Self.alice, text: chunk), now: link.now)
        #expect(out.effects.contains { if case .fileFailed(_, .incoming, let reason) = $0 { reason.hasPrefix("the peer sent a malformed file") } else { false } })
        #expect(link.filesIn(link.bobDownloads).isEmpty)
    }

    @Test func chunkOfAnOfferNotAccepted() throws {
        let link = try MessagingLink()
        link.open()
        link.bob(.received(Self.alice, text: #"{"name":"w","size":3,"sendId":"WAIT","type":"__file","signal":"ask"}"#))
        try Self.expectDropped(.received(Self.alice, text: #"{"type":"__file","signal":"chunk","sendId":"WAIT","data":"data:;base64,AAAA","last":true}"#),
                               reason: "a chunk of WAIT, an offer not accepted", link: link)
    }

    @Test func repeatedOfferId() throws {
        let link = try MessagingLink()
        link.open()
        let ask = #"{"name":"w","size":3,"sendId":"DUP","type":"__file","signal":"ask"}"#
        link.bob(.received(Self.alice, text: ask))
        try Self.expectDropped(.received(Self.alice, text: ask), reason: "an offer repeating the id DUP", link: link)
    }

    /// Names with separators, dot-dot, NUL, control and bidi characters are saved under a safe base name
    /// inside the download directory, and nothing lands outside it.
    @Test func hostileNamesAreSavedInsideTheDownloadDirectory() throws {
        var configuration = RoomMessaging.Configuration()
        configuration.filePolicy = .acceptAll
        let link = try MessagingLink(bob: configuration)
        link.open()
        let cases: [(json: String, saved: String)] = [
            (#"../../etc/passwd"#, "passwd"),
            (#"..\\..\\windows\\system.ini"#, "system.ini"),
            (#".."#, "file"),
            (#"/"#, "file"),
            (#"a\u0000b.txt"#, "ab.txt"),
            (#"\u001b[31mred\u0007.txt"#, "[31mred.txt"),
            (#"\u202egpj.exe"#, "gpj.exe"),
            (#"line\nbreak.txt"#, "linebreak.txt"),
            (#".hidden"#, "hidden"),
        ]
        for (index, (name, saved)) in cases.enumerated() {
            let sendId = "N\(index)"
            link.bob(.received(Self.alice, text: #"{"name":""# + name + #"","size":3,"sendId":""# + sendId + #"","type":"__file","signal":"ask"}"#))
            link.bob(.received(Self.alice, text: #"{"type":"__file","signal":"chunk","sendId":""# + sendId + #"","data":"data:;base64,YWJj","last":true}"#))
            let id = FileTransferID(peer: Self.alice, sendId: FileSendID(sendId)!)
            #expect(link.bobEvents.contains(.offered(id, from: Self.alice, name: saved, size: 3)), "\(name)")
            #expect(link.bobEvents.last == .fileReceived(id, path: link.bobDownloads + "/" + saved, size: 3,
                                                          sha256: SHA256Stream.hex(Array("abc".utf8))), "\(name)")
            try FileManager.default.removeItem(atPath: link.bobDownloads + "/" + saved)
        }
        #expect(link.filesIn(link.root) == ["alice", "bob"])
    }

    /// Offers past the per-peer cap are each refused, not shown, with a log line each up to the log limit (20 a
    /// second, then one line saying the rest are not logged); the channel still works.
    @Test func offerFlood() throws {
        let link = try MessagingLink()
        link.open()
        var offered = 0
        var logs: [String] = []
        for i in 0..<50 {
            let out = link.b.handle(.received(Self.alice, text: #"{"name":"f","size":1,"sendId":"F\#(i)","type":"__file","signal":"ask"}"#), now: link.now)
            if out.effects.contains(where: { $0.offeredID != nil }) {
                offered += 1
                continue
            }
            #expect(out.effects.first == .send(Self.alice, text: #"{"type":"__file","signal":"refuse","sendId":"F\#(i)"}"#))
            #expect(out.effects.count <= 2, "\(out.effects)")
            logs += out.effects.compactMap(\.logText)
        }
        #expect(offered == 4)
        #expect(logs.count == 21)
        #expect(logs.prefix(20).allSatisfy { $0.contains("too many file offers at once") })
        #expect(logs.last == "more than 20 lines about alice this second: the rest are not logged")
        #expect(link.b.handle(.received(Self.alice, text: Self.hello), now: link.now).effects.count == 1)
    }

    /// A flood of chat: 5,000 a second are shown, the rest of that second is dropped with one log line, and the
    /// next second works again.
    @Test func messageFloodIsRateLimited() throws {
        let link = try MessagingLink()
        link.open()
        var effects: [RoomMessaging.Effect] = []
        for i in 0..<8000 {
            effects += link.b.handle(.received(Self.alice, text: #"{"type":"__msg","data":"spam \#(i)"}"#), now: link.now + Double(i) / 10000).effects
        }
        #expect(effects.filter { if case .chat = $0 { true } else { false } }.count == 5000)
        #expect(effects.compactMap(\.logText) == ["dropping messages from alice for the rest of this second: more than 5000 a second"])
        let later = link.b.handle(.received(Self.alice, text: Self.hello), now: link.now + 1)
        #expect(later.effects == [.chat(from: Self.alice, text: "still here", at: link.now + 1)])
    }

    /// A flood of junk costs at most 20 log lines a second (and one saying the rest are not logged), and the next
    /// second logs again.
    @Test func junkFloodLogsAreBounded() throws {
        let link = try MessagingLink()
        link.open()
        var logs: [String] = []
        for _ in 0..<7000 { logs += link.b.handle(.received(Self.alice, text: "junk"), now: link.now).effects.compactMap(\.logText) }
        #expect(logs.count == 21)
        #expect(logs.last == "more than 20 lines about alice this second: the rest are not logged")
        let next = link.b.handle(.received(Self.alice, text: "junk"), now: link.now + 1).effects.compactMap(\.logText)
        #expect(next.count == 1)
    }

    /// Escapes in chat are passed on unchanged (the screen cleans them); the report form escapes them.
    @Test func terminalEscapesInChat() throws {
        let link = try MessagingLink()
        link.open()
        let evil = "\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m\u{202E}txt.exe"
        link.alice(.say(evil))
        link.run()
        #expect(link.bobEvents == [.chat(from: Self.alice, text: evil, at: link.now)])
        #expect(RoomMessaging.escapedForReport(evil) == "\\u{1B}[2J\\u{1B}]0;owned\\u{7}\\u{9B}31m\\u{202E}txt.exe")
    }

    @Test func messagesFromAChannelNotOpen() throws {
        let link = try MessagingLink()
        let out = link.b.handle(.received(SocketID("stranger"), text: Self.hello), now: link.now)
        #expect(out.effects.count == 1 && out.effects[0].logText?.contains("its channel is not open") == true)
        let buffered = link.b.handle(.bufferedAmount(SocketID("stranger"), 5), now: link.now)
        #expect(buffered.effects.isEmpty)
    }

    /// An accept repeated by the peer does not restart or double a transfer.
    @Test func repeatedAccept() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.sendFile(path: link.file("r.bin", [1, 2, 3])))
        guard case .offerSent(let id, _, _)? = link.aliceEvents.last else { Issue.record("no offer"); return }
        let accept = #"{"type":"__file","signal":"accept","sendId":""# + id.sendId.rawValue + #""}"#
        let first = link.a.handle(.received(Self.bob, text: accept), now: link.now)
        #expect(first.effects.contains { if case .fileSent = $0 { true } else { false } })
        let second = link.a.handle(.received(Self.bob, text: accept), now: link.now)
        #expect(second.effects.count == 1 && second.effects[0].logText?.contains("unknown transfer") == true)
    }
}
