import Testing
@testable import EngineTransport
@testable import Engine

@Suite struct OfferAnswerTests {
    let transport = LocalTransportParameters(
        iceUfrag: "cTui", icePwd: "0123456789abcdefghijkl",
        fingerprint: DtlsFingerprint(algorithm: "sha-256", bytes: Array(0..<32)),
        candidates: [IceCandidate(foundation: "1", priority: 2_130_706_431, address: .ip(IPAddress("127.0.0.1")!), port: 5000, kind: .host)],
        endOfCandidates: true)
    let audio = LocalTrack(kind: .audio, streamID: "conftui", trackID: "a0", ssrc: SSRC(1111), cname: "c")
    let video = LocalTrack(kind: .video, streamID: "conftui", trackID: "v0", ssrc: SSRC(2222), cname: "c")

    @Test func answerToAiortcUsesItsPayloadTypesAndRejectsData() throws {
        let offer = try SessionDescription(parsing: SdpFixtures.aiortcOffer)
        let answer = offer.makeAnswer(sessionID: "1", transport: transport, audio: audio, video: video)
        #expect(answer.media.count == 3)
        #expect(answer.media[0].formats == ["96"])
        #expect(answer.media[0].rtpMap(for: PayloadType(rawValue: 96)!)?.encoding == "opus")
        #expect(answer.media[1].formats == ["97"])
        #expect(answer.media[1].feedback(for: PayloadType(rawValue: 97)!) == ["nack", "nack pli", "goog-remb"])
        #expect(answer.media[2].isRejected)
        #expect(answer.bundleGroup?.mids == ["0", "1"])
        #expect(answer.media[0].setup == .active)
        #expect(answer.media[0].mid == "0" && answer.media[1].mid == "1" && answer.media[2].mid == "2")
        #expect(answer.media[1].msids == [MediaStreamID(stream: "conftui", track: "v0")])
        #expect(answer.media[1].extmaps == [Extmap(id: 1, uri: Extmap.midURI)])
        #expect(answer.media.allSatisfy { $0.isRejected || $0.rtcpMux })
        // The printed answer parses back to the same value.
        #expect(try SessionDescription(parsing: answer.sdpText) == answer)
    }

    @Test func answerToChromeKeepsItsPayloadTypesAndMidExtension() throws {
        let offer = try SessionDescription(parsing: SdpFixtures.chromeOffer)
        let answer = offer.makeAnswer(sessionID: "1", transport: transport, audio: nil, video: video)
        #expect(answer.media[0].formats == ["111"])
        #expect(answer.media[0].formatParameters(for: PayloadType(rawValue: 111)!) == "minptime=10;useinbandfec=1")
        #expect(answer.media[0].direction == .recvonly)   // no local audio track
        #expect(answer.media[0].msids.isEmpty && answer.media[0].ssrcs.isEmpty)
        #expect(answer.media[1].formats == ["96"])
        #expect(answer.media[1].direction == .sendrecv)
        #expect(answer.media[1].feedback(for: PayloadType(rawValue: 96)!) == ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(answer.media[1].extmaps == [Extmap(id: 3, uri: Extmap.transportWideCCURI), Extmap(id: 4, uri: Extmap.midURI)])
        #expect(answer.media[0].feedback(for: PayloadType(rawValue: 111)!) == ["transport-cc"])
        #expect(answer.media[1].ssrcs.contains(SsrcAttribute(ssrc: SSRC(2222), name: "cname", value: "c")))
    }

    /// RFC 8853/8851 as browsers offer it and Janus takes it: rids highest first, the RtpStreamId extension, no
    /// `a=ssrc`; an answer's `a=simulcast:recv` accepts the rids it lists (alternatives and paused ones aside).
    @Test func aSimulcastOfferListsItsRidsAndAnAnswerAcceptsThem() throws {
        var sections = [OfferedSection(mid: "0", kind: .audio, direction: .sendonly, track: audio),
                        OfferedSection(mid: "1", kind: .video, direction: .sendonly, track: video)]
        sections[1].simulcastRids = SupportedCodecs.simulcastRids
        let offer = SessionDescription.makeOffer(sessionID: "1", transport: transport, sections: sections)
        let text = offer.sdpText
        for line in ["a=rid:h send", "a=rid:l send", "a=simulcast:send h;l", "a=extmap:4 \(Extmap.ridURI)"] {
            #expect(text.contains(line + "\r\n"), "\(line)")
        }
        #expect(offer.media[1].ssrcs.isEmpty && !offer.media[0].ssrcs.isEmpty)
        #expect(offer.media[1].msids == [MediaStreamID(stream: "conftui", track: "v0")])
        #expect(try SessionDescription(parsing: text) == offer)

        var answer = MediaDescription(kind: "video", formats: ["96"])
        answer.extmaps = [Extmap(id: 4, uri: Extmap.ridURI)]
        answer.attributes = [SdpAttribute(name: "rid", value: "h recv"), SdpAttribute(name: "rid", value: "l recv"),
                             SdpAttribute(name: "simulcast", value: "recv h;l")]
        #expect(PeerConnection.simulcast(offered: offer.media[1], answered: answer) == 4)
        answer.attributes[2].value = "recv h,x;~l"
        #expect(answer.acceptedSimulcast(of: ["h", "l"]) == ["h"])
        #expect(PeerConnection.simulcast(offered: offer.media[1], answered: answer) == nil)
        answer.attributes[2].value = "send h;l"   // not an answer to ours
        #expect(PeerConnection.simulcast(offered: offer.media[1], answered: answer) == nil)
        answer.attributes[2].value = "recv h;l"
        answer.extmaps = []   // the extension refused: no way to name the encodings
        #expect(PeerConnection.simulcast(offered: offer.media[1], answered: answer) == nil)
    }

    @Test func sectionsWithoutRtcpMuxOrCodecAreRejected() throws {
        var offer = try SessionDescription(parsing: SdpFixtures.chromeOffer)
        offer.media[0].rtcpMux = false
        offer.media[1].rtpMaps.removeAll { $0.encoding == "VP8" }
        let answer = offer.makeAnswer(sessionID: "1", transport: transport, audio: audio, video: video)
        #expect(answer.media.allSatisfy { $0.isRejected })
        #expect(answer.bundleGroup == nil)
    }

    @Test func directionAndSetupNegotiation() {
        #expect(MediaDirection.sendonly.answer(wanting: .sendrecv) == .recvonly)
        #expect(MediaDirection.recvonly.answer(wanting: .sendrecv) == .sendonly)
        #expect(MediaDirection.inactive.answer(wanting: .sendrecv) == .inactive)
        #expect(MediaDirection.sendrecv.answer(wanting: .recvonly) == .recvonly)
        #expect(MediaDirection.recvonly.answer(wanting: .recvonly) == .inactive)
        #expect(DtlsSetup.actpass.answer == .active)
        #expect(DtlsSetup.active.answer == .passive)
        #expect(DtlsSetup.passive.answer == .active)
    }

    @Test func ourOfferAnsweredByOurselves() throws {
        let offer = SessionDescription.makeOffer(sessionID: "42", transport: transport, audio: audio, video: video)
        let parsed = try SessionDescription(parsing: offer.sdpText)
        #expect(parsed == offer)
        #expect(parsed.media.map(\.setup) == [.actpass, .actpass])
        #expect(parsed.bundleGroup?.mids == ["0", "1"])
        let answer = parsed.makeAnswer(sessionID: "43", transport: transport, audio: nil, video: nil)
        #expect(answer.media.map(\.formats) == [["111"], ["96"]])
        #expect(answer.media.map(\.direction) == [.recvonly, .recvonly])
        #expect(answer.media[0].candidates == transport.candidates)
    }
}
