import Testing
@testable import Signaling

/// conftui's mute convention over Janus (Sources/Signaling/Janus/README.md): our `configure` carries `send` and the
/// describing texts; a peer's re-announced descriptions become `.participantMedia`; hostile ones change nothing.
@Suite struct JanusMediaDescriptionTests {
    /// A publisher entry as janus_videoroom.c's `notify_about_publisher` writes it, with raw JSON for each
    /// stream's `description` (nil: none).
    static func publisher(_ id: UInt64, audio: String?, video: String?) -> String {
        func stream(_ type: String, _ mindex: Int, _ description: String?) -> String {
            let d = description.map { #","description":\#($0)"# } ?? ""
            return #"{"type":"\#(type)","mindex":\#(mindex),"mid":"\#(mindex)"\#(d),"codec":"\#(type == "audio" ? "opus" : "vp8")"}"#
        }
        return #"{"id":\#(id),"display":"bob","audio_codec":"opus","video_codec":"vp8","streams":[\#(stream("audio", 0, audio)),\#(stream("video", 1, video))]}"#
    }

    static func announced(_ id: UInt64 = 20, audio: String?, video: String?) -> String {
        Janus.event(data: Janus.publishersEvent([publisher(id, audio: audio, video: video)]))
    }

    @Test func ourConfigureCarriesSendAndDescriptions() throws {
        var h = JanusHarness()
        _ = h.joinRoom()
        _ = h.publish()
        h.input(.setSending(audio: false, video: true))
        let body = try #require(h.lastBody)
        #expect(body["request"] == .string("configure"))
        #expect(h.last["jsep"] == nil)   // SDP-less: Janus applies descriptions at once only then
        #expect(body["streams"] == .array([.object([("mid", .string("a0")), ("send", .bool(false))]),
                                           .object([("mid", .string("v1")), ("send", .bool(true))])]))
        #expect(body["descriptions"] == .array([.object([("mid", .string("a0")), ("description", .string("conftui audio muted"))]),
                                                .object([("mid", .string("v1")), ("description", .string("conftui video on"))])]))
        h.input(.setSending(audio: true, video: false))
        #expect(h.lastBody?["descriptions"] == .array([.object([("mid", .string("a0")), ("description", .string("conftui audio on"))]),
                                                       .object([("mid", .string("v1")), ("description", .string("conftui video off"))])]))
        // The texts are the documented ones.
        #expect([JanusMediaDescription.audioOn, JanusMediaDescription.audioMuted, JanusMediaDescription.videoOn,
                 JanusMediaDescription.videoOff] == ["conftui audio on", "conftui audio muted", "conftui video on", "conftui video off"])
    }

    @Test func aPeersMutedDescriptionIsMediaStateAndBack() {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Self.publisher(20, audio: nil, video: nil)])
        #expect(h.janus(Self.announced(audio: #""conftui audio muted""#, video: #""conftui video on""#))
                == [.participantMedia(feed: 20, audioSending: false, videoSending: true)])
        // The same state again says nothing.
        #expect(h.janus(Self.announced(audio: #""conftui audio muted""#, video: #""conftui video on""#)).isEmpty)
        #expect(h.janus(Self.announced(audio: #""conftui audio muted""#, video: #""conftui video off""#))
                == [.participantMedia(feed: 20, audioSending: false, videoSending: false)])
        #expect(h.janus(Self.announced(audio: #""conftui audio on""#, video: #""conftui video on""#))
                == [.participantMedia(feed: 20, audioSending: true, videoSending: true)])
        // Back to muted, then to no description at all (e.g. a renegotiated stream): that is sending.
        #expect(h.janus(Self.announced(audio: #""conftui audio muted""#, video: nil))
                == [.participantMedia(feed: 20, audioSending: false, videoSending: true)])
        #expect(h.janus(Self.announced(audio: nil, video: nil))
                == [.participantMedia(feed: 20, audioSending: true, videoSending: true)])
    }

    @Test func joinedListsCarryTheState() {
        var h = JanusHarness()
        let effects = h.joinRoom(others: [Self.publisher(20, audio: #""conftui audio muted""#, video: #""conftui video off""#),
                                          Self.publisher(21, audio: #""Mic""#, video: #""conftui video on""#)])
        #expect(effects.withoutLogs.filter { if case .participantMedia = $0 { true } else { false } }
                == [.participantMedia(feed: 20, audioSending: false, videoSending: false),
                    .participantMedia(feed: 21, audioSending: true, videoSending: true)])
    }

    @Test func unknownDescriptionsChangeNothing() {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Self.publisher(20, audio: nil, video: nil)])
        // Another application's labels, the other kind's text, near misses: compared exactly, never parsed.
        for (audio, video) in [(#""Microphone""#, #""Camera""#), (#""conftui video off""#, #""conftui audio muted""#),
                               (#""conftui audio muted ""#, #""Conftui video off""#), (#""CONFTUI AUDIO MUTED""#, #""""#)] {
            let effects = h.janus(Self.announced(audio: audio, video: video))
            #expect(effects.isEmpty, "\(audio) \(video)")
        }
    }

    @Test func hostileDescriptionsAreIgnoredWithALogLine() {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Self.publisher(20, audio: #""conftui audio muted""#, video: nil)])
        let huge = "\"" + String(repeating: "x", count: 100_000) + "\""
        let hostile = [huge, "42", "null", "true", #"{"a":1}"#, #"["conftui audio muted"]"#,
                       #""conftui audio muted\u0000""#, #""conftui audio muted\n""#, #""\u001b[31mconftui audio muted""#,
                       #""conftui audio \u0085muted""#]
        for description in hostile {
            // Back to muted first, so that an ignored description shows as "sending" (nil is no description).
            _ = h.janus(Self.announced(audio: #""conftui audio muted""#, video: nil))
            let effects = h.janus(Self.announced(audio: description, video: nil))
            #expect(effects.failure == nil)
            if description == "null" {
                #expect(effects.logs.isEmpty)
            } else {
                #expect(effects.logs.count == 1 && effects.logs[0].contains("ignored the description of publisher 20"),
                        "\(description.prefix(40)): \(effects.logs)")
            }
            // The stream is kept, its description is not: audio counts as sending again.
            #expect(effects.withoutLogs == [.participantMedia(feed: 20, audioSending: true, videoSending: true)], "\(description.prefix(40))")
        }
        // Exactly at the bound it is read; one byte over, ignored. Logs name no peer text.
        let bounded = "\"" + String(repeating: "y", count: JanusLimits().maxDescriptionBytes) + "\""
        #expect(h.janus(Self.announced(audio: bounded, video: nil)).logs.isEmpty)
        let over = h.janus(Self.announced(audio: #""x"# + String(repeating: "y", count: JanusLimits().maxDescriptionBytes) + "\"", video: nil))
        #expect(over.logs.count == 1 && !over.logs[0].contains("yyy"))
    }

    @Test func manyBadDescriptionsAreOneLineForAPublisher() {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Janus.publisher(20, "bob")])
        var streams: [String] = []
        for i in 0..<40 { streams.append(#"{"type":"audio","mindex":\#(i),"mid":"\#(i)","description":\#(i)}"#) }
        let entry = #"{"id":20,"display":"bob","streams":[\#(streams.joined(separator: ","))]}"#
        let effects = h.janus(Janus.event(data: Janus.publishersEvent([entry])))
        #expect(effects.logs.count == 2, "\(effects.logs)")
        #expect(effects.logs.last == "ignored 39 more descriptions of publisher 20")
    }

    @Test func aModeratedOrDisabledStreamStaysOffWhateverItsDescriptionSays() {
        var h = JanusHarness()
        _ = h.joinRoom(others: [Self.publisher(20, audio: #""conftui audio on""#, video: #""conftui video on""#)])
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"id":20,"mid":"0","moderation":"muted"}"#))
                == [.participantMedia(feed: 20, audioSending: false, videoSending: true)])
    }
}
