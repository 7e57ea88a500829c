import Foundation
import Testing
@testable import Signaling

@Suite struct RoomMessagingTests {
    typealias Effect = RoomMessaging.Effect
    static let alice = MessagingLink.alice
    static let bob = MessagingLink.bob

    @Test func sha256MatchesKnownVectors() {
        #expect(SHA256Stream.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Stream.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let stream = SHA256Stream()
        for piece in ["a", "", "bc"] { stream.update(Array(piece.utf8)) }
        #expect(stream.finish() == SHA256Stream.hex(Array("abc".utf8)) && stream.count == 3)
    }

    @Test func chatBothWaysKeepsEveryCharacter() throws {
        let link = try MessagingLink()
        link.open()
        let texts = ["héllo 👨‍👩‍👧‍👦 🇯🇵 👍🏽", "你好，世界。日本語のテキスト", "한국어 ✓ \"quotes\" \\ back\\slash", "\u{1B}[2J escape kept"]
        for text in texts {
            link.alice(.say(text))
            #expect(link.aliceEvents.last == .chatSent(text, to: [Self.bob]))
            link.run()
            #expect(link.bobEvents.last == .chat(from: Self.alice, text: text, at: link.now))
            link.bob(.say(text + " back"))
            link.run()
            #expect(link.aliceEvents.last == .chat(from: Self.bob, text: text + " back", at: link.now))
        }
        #expect(!link.aliceEvents.contains { $0.logText != nil } && !link.bobEvents.contains { $0.logText != nil })
    }

    @Test func sendsWhatTheOriginalWrites() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.say("hi"))
        #expect(link.toBob == [#"{"type":"__msg","data":"hi"}"#])
    }

    @Test func unknownTypesAndOtherDataShowAsChat() throws {
        let link = try MessagingLink()
        link.open()
        for (wire, shown) in [(#"{"type":"whatever","data":"x"}"#, "x"), (#"{"data":{"a":1}}"#, #"{"a":1}"#),
                              (#"{"type":"__msg"}"#, #"{"type":"__msg"}"#), (#"[1,2]"#, "[1,2]")] {
            let out = link.b.handle(.received(Self.alice, text: wire), now: link.now)
            #expect(out.effects == [.chat(from: Self.alice, text: shown, at: link.now)])
        }
    }

    @Test func nobodyToSendToYet() throws {
        let link = try MessagingLink()
        let said = link.a.handle(.say("anyone?"), now: link.now)
        #expect(said.effects == [.notice("nobody to send to yet")])
        let path = link.file("x.bin", [1, 2, 3])
        #expect(link.a.handle(.sendFile(path: path), now: link.now).effects == [.notice("nobody to send to yet")])
        // A channel opening later gets neither.
        link.open()
        #expect(link.toBob.isEmpty)
    }

    @Test func chatOverThePeersMaxMessageSizeIsNotSent() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.maxMessageSize(Self.bob, 100))
        link.alice(.say(String(repeating: "x", count: 200)))
        #expect(link.toBob.isEmpty)
        #expect(link.aliceEvents.last?.noticeText?.contains("over its 100-byte max message size") == true)
    }

    /// 5 MB through chunking and pacing: the file on bob's disk, bob's digest and alice's digest all match the
    /// original bytes, the queue towards bob never held much more than the low-water mark, and both sides
    /// reported progress.
    @Test func fiveMegabytesArriveIntact() throws {
        let link = try MessagingLink()
        link.open()
        let bytes = randomBytes(5_000_000, seed: 42)
        let expected = SHA256Stream.hex(bytes)
        let path = link.file("video clip.bin", bytes)
        link.alice(.sendFile(path: path))
        guard case .offerSent(let sentID, "video clip.bin", 5_000_000)? = link.aliceEvents.last else {
            Issue.record("no offer: \(link.aliceEvents)"); return
        }
        link.run()
        guard let id = link.bobEvents.compactMap(\.offeredID).first else { Issue.record("not offered"); return }
        #expect(id.sendId == sentID.sendId && id.peer == Self.alice)
        #expect(link.bobEvents.last == .offered(id, from: Self.alice, name: "video clip.bin", size: 5_000_000))
        link.bob(.accept(id))
        #expect(link.bobDeadline == link.now + 1)
        link.run()

        let received = link.bobEvents.compactMap { e -> (String, Int64, String)? in
            if case .fileReceived(id, let path, let size, let sha) = e { (path, size, sha) } else { nil }
        }
        #expect(received.count == 1)
        guard let (savedPath, size, sha) = received.first else { return }
        #expect(savedPath == link.bobDownloads + "/video clip.bin" && size == 5_000_000 && sha == expected)
        #expect(FileManager.default.contents(atPath: savedPath) == Data(bytes))
        #expect(link.aliceEvents.last == .fileSent(sentID, name: "video clip.bin", size: 5_000_000, sha256: expected))
        // Pacing: chunks leave only below the 256 KiB low-water mark, so at most one 64 KiB chunk more is queued.
        #expect(link.maxQueuedToBob <= 256 * 1024 + 64 * 1024 + 256)
        #expect(link.maxQueuedToBob > 200 * 1024)
        let chunks = link.bobEvents.filter { if case .progress(_, .incoming, _, _) = $0 { true } else { false } }
        let sent = link.aliceEvents.filter { if case .progress(_, .outgoing, _, _) = $0 { true } else { false } }
        #expect(chunks.count >= 50 && sent.count >= 50)
        #expect(!link.bobEvents.contains { $0.logText != nil })
        // Nothing left to check for stalls.
        #expect(link.bobDeadline == nil)
    }

    @Test func emptyFileArrives() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.sendFile(path: link.file("empty", [])))
        link.run()
        guard let id = link.bobEvents.compactMap(\.offeredID).first else { Issue.record("not offered"); return }
        link.bob(.accept(id))
        link.run()
        #expect(link.bobEvents.last == .fileReceived(id, path: link.bobDownloads + "/empty", size: 0, sha256: SHA256Stream.hex([])))
    }

    @Test func refusedByTheUser() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.sendFile(path: link.file("a.txt", Array("hello".utf8))))
        guard case .offerSent(let sentID, _, _)? = link.aliceEvents.last else { Issue.record("no offer"); return }
        link.run()
        guard let id = link.bobEvents.compactMap(\.offeredID).first else { Issue.record("not offered"); return }
        link.bob(.refuse(id))
        #expect(link.bobEvents.last == .fileRefused(id, .incoming))
        link.run()
        #expect(link.aliceEvents.last == .fileRefused(sentID, .outgoing))
        #expect(link.filesIn(link.bobDownloads).isEmpty)
        // The offer is gone on both sides.
        #expect(link.b.handle(.accept(id), now: link.now).effects == [.notice("no file offer \(id) waiting")])
    }

    @Test func acceptAllTakesFilesUnasked() throws {
        var bob = RoomMessaging.Configuration()
        bob.filePolicy = .acceptAll
        let link = try MessagingLink(bob: bob)
        link.open()
        let bytes = randomBytes(300_000, seed: 7)
        link.alice(.sendFile(path: link.file("photo.jpg", bytes)))
        link.run()
        guard let id = link.bobEvents.compactMap(\.offeredID).first else { Issue.record("not offered"); return }
        #expect(link.bobEvents.last == .fileReceived(id, path: link.bobDownloads + "/photo.jpg", size: 300_000,
                                                      sha256: SHA256Stream.hex(bytes)))
        #expect(FileManager.default.contents(atPath: link.bobDownloads + "/photo.jpg") == Data(bytes))
    }

    @Test func refuseAllDeclinesEveryOffer() throws {
        var bob = RoomMessaging.Configuration()
        bob.filePolicy = .refuseAll
        let link = try MessagingLink(bob: bob)
        link.open()
        link.alice(.sendFile(path: link.file("a.txt", Array("hello".utf8))))
        guard case .offerSent(let sentID, _, _)? = link.aliceEvents.last else { Issue.record("no offer"); return }
        link.run()
        guard let id = link.bobEvents.compactMap(\.offeredID).first else { Issue.record("not offered"); return }
        #expect(link.bobEvents.suffix(2) == [.fileRefused(id, .incoming), .notice("refused a.txt from alice: not accepting files")])
        #expect(link.aliceEvents.last == .fileRefused(sentID, .outgoing))
        #expect(link.filesIn(link.bobDownloads).isEmpty)
    }

    /// The download folder is made by the first accepted file, never before (`join` must not leave empty folders).
    @Test func theDownloadFolderIsMadeByTheFirstAcceptedFileOnly() throws {
        var configuration = RoomMessaging.Configuration()
        configuration.filePolicy = .refuseAll
        configuration.downloadDirectory = NSTemporaryDirectory() + "conftui-never-\(UInt64.random(in: 0...UInt64.max))"
        _ = RoomMessaging(configuration: configuration)
        #expect(!FileManager.default.fileExists(atPath: configuration.downloadDirectory))
        configuration.filePolicy = .ask
        _ = RoomMessaging(configuration: configuration)
        #expect(!FileManager.default.fileExists(atPath: configuration.downloadDirectory))
        let sink = DeferredDiskFileSink(directory: configuration.downloadDirectory)
        let handle = try sink.create(name: "a.txt")
        #expect(FileManager.default.fileExists(atPath: configuration.downloadDirectory))
        try sink.append([1, 2], to: handle)
        _ = try sink.finish(handle)
        try? FileManager.default.removeItem(atPath: configuration.downloadDirectory)
    }

    /// The peer's channel closes after a few chunks: bob's partial file is removed and both sides report failure.
    @Test func channelClosingMidTransferRemovesThePartialFile() throws {
        var bob = RoomMessaging.Configuration()
        bob.filePolicy = .acceptAll
        let link = try MessagingLink(bob: bob)
        link.open()
        link.alice(.sendFile(path: link.file("big.bin", randomBytes(2_000_000, seed: 3))))
        guard case .offerSent(let sentID, _, _)? = link.aliceEvents.last else { Issue.record("no offer"); return }
        link.run(limit: 8)
        guard let id = link.bobEvents.compactMap(\.offeredID).first else { Issue.record("not offered"); return }
        #expect(link.bobEvents.contains { if case .progress(id, .incoming, _, _) = $0 { true } else { false } })
        #expect(link.filesIn(link.bobDownloads) == ["big.bin"])
        link.bob(.channelClosed(Self.alice))
        link.alice(.channelClosed(Self.bob))
        #expect(link.bobEvents.contains(.fileFailed(id, .incoming, reason: "the peer left during the transfer")))
        #expect(link.aliceEvents.last == .fileFailed(sentID, .outgoing, reason: "the peer left"))
        #expect(link.filesIn(link.bobDownloads).isEmpty)
        #expect(link.a.openChannels.isEmpty && link.b.openChannels.isEmpty)
    }

    @Test func aStalledTransferFailsOnTheTimer() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.sendFile(path: link.file("a.bin", randomBytes(100, seed: 1))))
        link.run()
        guard let id = link.bobEvents.compactMap(\.offeredID).first else { Issue.record("not offered"); return }
        link.toBob.removeAll()
        link.bob(.accept(id))
        link.toAlice.removeAll()  // the accept is lost: alice never sends
        #expect(link.bobDeadline == link.now + 1)
        link.now = link.now + 61
        link.bob(.timer)
        #expect(link.bobEvents.contains(.fileFailed(id, .incoming, reason: "no data for 60 s")))
        #expect(link.bobDeadline == nil)
        #expect(link.filesIn(link.bobDownloads).isEmpty)
    }

    /// The bot's `--say` and `--send-file`: what was sent before a channel opened reaches it when it does, and
    /// a peer joining later gets it too.
    @Test func repeatToNewChannels() throws {
        var alice = RoomMessaging.Configuration()
        alice.repeatToNewChannels = true
        var bob = RoomMessaging.Configuration()
        bob.filePolicy = .acceptAll
        let link = try MessagingLink(alice: alice, bob: bob)
        let bytes = randomBytes(70_000, seed: 9)
        link.alice(.say("hello room"))
        link.alice(.sendFile(path: link.file("notes.txt", bytes)))
        #expect(link.aliceEvents == [.notice("nobody to send to yet: each peer gets it when its channel opens"),
                                     .notice("nobody to send to yet: each peer gets it when its channel opens")])
        link.open()
        link.run()
        #expect(link.bobEvents.contains(.chat(from: Self.alice, text: "hello room", at: link.now)))
        #expect(link.bobEvents.contains { if case .fileReceived(_, _, 70_000, SHA256Stream.hex(bytes)) = $0 { true } else { false } })

        let carol = SocketID("carol")
        let out = link.a.handle(.channelOpened(carol), now: link.now)
        #expect(out.effects.first == .send(carol, text: #"{"type":"__msg","data":"hello room"}"#))
        #expect(out.effects.contains(.chatSent("hello room", to: [carol])))
        #expect(out.effects.contains { if case .offerSent(let id, "notes.txt", 70_000) = $0 { id.peer == carol } else { false } })
        // Said after carol came: goes to both open channels at once.
        let both = link.a.handle(.say("later"), now: link.now)
        #expect(both.effects.last == .chatSent("later", to: [Self.bob, carol]))
    }

    @Test func withoutRepeatALaterChannelGetsNothing() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.say("first"))
        let out = link.a.handle(.channelOpened(SocketID("carol")), now: link.now)
        #expect(out.effects.isEmpty)
    }

    @Test func offersGoToEveryOpenChannelEachUnderItsOwnId() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.channelOpened(SocketID("carol")))
        link.alice(.sendFile(path: link.file("x", [1])))
        let offers = link.aliceEvents.compactMap { e -> FileTransferID? in if case .offerSent(let id, _, _) = e { id } else { nil } }
        #expect(offers.map(\.peer) == [Self.bob, SocketID("carol")] && offers[0].sendId != offers[1].sendId)
    }

    @Test func aFileThatCannotBeOpenedIsANotice() throws {
        let link = try MessagingLink()
        link.open()
        link.alice(.sendFile(path: link.root + "/missing\u{1B}"))
        #expect(link.aliceEvents.last?.noticeText?.hasPrefix("cannot send \(link.root)/missing\\u{1B}: open") == true)
        #expect(link.toBob.isEmpty)
    }

    @Test func channelTableIsBounded() throws {
        var configuration = RoomMessaging.Configuration()
        configuration.maxChannels = 2
        var core = RoomMessaging(configuration: configuration, sink: MemoryFileSink())
        let t = MonotonicInstant(seconds: 1)
        _ = core.handle(.channelOpened(SocketID("p1")), now: t)
        _ = core.handle(.channelOpened(SocketID("p2")), now: t)
        let third = core.handle(.channelOpened(SocketID("p3")), now: t)
        #expect(third.effects.first?.noticeText == "not tracking the channel to p3: already 2 channels open")
        #expect(core.openChannels == [SocketID("p1"), SocketID("p2")])
        let fromThird = core.handle(.received(SocketID("p3"), text: #"{"type":"__msg","data":"x"}"#), now: t)
        #expect(fromThird.effects.count == 1 && fromThird.effects[0].logText != nil)
        _ = core.handle(.channelClosed(SocketID("p1")), now: t)
        #expect(core.handle(.channelOpened(SocketID("p3")), now: t).effects.isEmpty)
        #expect(core.openChannels == [SocketID("p2"), SocketID("p3")])
    }

    @Test func escapedForReportEscapesControlsAndKeepsPrintableUnicode() {
        #expect(RoomMessaging.escapedForReport("\u{1B}[2J\u{1B}]0;pwned\u{07}ok") == "\\u{1B}[2J\\u{1B}]0;pwned\\u{7}ok")
        #expect(RoomMessaging.escapedForReport("a\nb\rc\td\u{0}\u{7F}\u{9B}") == "a\\u{A}b\\u{D}c\\u{9}d\\u{0}\\u{7F}\\u{9B}")
        #expect(RoomMessaging.escapedForReport("\u{202E}gpj.exe\u{2028}") == "\\u{202E}gpj.exe\\u{2028}")
        let printable = "héllo 👨‍👩‍👧‍👦 🇯🇵 👍🏽 ❤️ 你好 한국어 \\u{41} \"q\""
        #expect(RoomMessaging.escapedForReport(printable) == printable)
        #expect(RoomMessaging.escapedForReport(printable).unicodeScalars.elementsEqual(printable.unicodeScalars))
    }
}
