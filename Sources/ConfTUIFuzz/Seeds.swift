import Glibc
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport
@testable import Signaling

/// `conftui-fuzz --seed DIR`: seed inputs for every target, made by the project's own encoders (so they follow
/// the wire formats exactly and each target starts past its first checks), written to DIR/TARGET/NAME.
/// Tests/Fuzz/corpus holds its output plus the browser SDPs of the SDP fixtures (see README.md).
enum Seeds {
    static func write(to directory: String) -> Bool {
        var ok = true
        for (target, seeds) in all() {
            let folder = "\(directory)/\(target)"
            mkdir(directory, 0o755)
            mkdir(folder, 0o755)
            for (name, bytes) in seeds {
                guard let f = fopen("\(folder)/\(name)", "wb") else { ok = false; continue }
                _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
                fclose(f)
            }
        }
        return ok
    }

    /// A chunk as `FuzzInput.chunk()` reads it: two length bytes, big-endian, then the bytes.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8 & 0xFF), UInt8(bytes.count & 0xFF)] + bytes }

    static func all() -> [(String, [(String, [UInt8])])] {
        [("signaling", signaling()), ("stun", stun()), ("ice", ice()), ("media", media()), ("dtls", dtls()),
         ("websocket", websocket()), ("json", json()), ("y4m", y4m()), ("turn", turn()),
         ("sctp", sctp()), ("dcep", dcep()), ("peer-messages", peerMessages()), ("janus", janus()), ("rooms", rooms())]
    }

    /// (Control 0x04: the conftui format, a grace of 2 s.) Two joins, a silent drop, a resume presenting the dropped one's token, an offer to it, a clean close, time.
    static func rooms() -> [(String, [UInt8])] {
        let join = Array(#"{"eventName":"__join","data":{"room":"r","resumable":true}}"#.utf8)
        let offer = Array(#"{"eventName":"__offer","data":{"socketId":"s0","sdp":{"type":"offer","sdp":"v=0"}}}"#.utf8)
        let resume: [UInt8] = [0x04] + [0x00] + chunk(join) + [0x10] + chunk(join) + [0x09] + [0x26, 0x00] + [0x10] + chunk(offer)
        return [("resume", resume), ("close-and-expire", [0x02, 0x00] + chunk(join) + [0x09, 0x0F, 0x0F, 0x18, 0x0F])]
    }

    static let peer = SocketID("0d0c0b0a-0000-4000-8000-000000000001")

    /// A real offer and answer from `PeerConnection`, as a server relays them, and a trickled candidate.
    static func signaling() -> [(String, [UInt8])] {
        let a = TransportAddress("127.0.0.1:40001")!
        guard let offerer = try? PeerConnection(configuration: .random(localHosts: [a])),
              let answerer = try? PeerConnection(configuration: .random(localHosts: [TransportAddress("127.0.0.1:40002")!])) else { return [] }
        func description(_ out: PeerConnection.Output) -> SessionDescription? {
            for case .localDescription(let d, _) in out.events { return d }
            return nil
        }
        guard let offer = description(offerer.handle(.command(.createOffer), now: .zero)),
              let answer = description(answerer.handle(.command(.applyRemoteOffer(offer)), now: .zero)) else { return [] }
        func line(_ m: SkyRTCServerMessage) -> [UInt8] { m.jsonBytes() + [0x0A] }
        let sdp = { (type: String, d: SessionDescription) in
            JSONValue.object([("type", .string(type)), ("sdp", .string(d.sdpText))])
        }
        let candidate = SkyRTCCandidate(id: "0", label: 0, candidate: "candidate:1 1 udp 2122260223 127.0.0.1 40001 typ host",
                                        socketId: peer)
        // Renegotiation on the same ICE session: a second video section added, then stopped (port 0).
        _ = offerer.handle(.command(.applyRemoteAnswer(answer)), now: .zero)
        _ = offerer.handle(.command(.addTransceiver(.video, .sendrecv)), now: .zero)
        guard let added = description(offerer.handle(.command(.createOffer), now: .zero)),
              let addedAnswer = description(answerer.handle(.command(.applyRemoteOffer(added)), now: .zero)) else { return [] }
        _ = offerer.handle(.command(.applyRemoteAnswer(addedAnswer)), now: .zero)
        _ = offerer.handle(.command(.stopTransceiver(mid: "2")), now: .zero)
        guard let stopped = description(offerer.handle(.command(.createOffer), now: .zero)) else { return [] }
        let offerLine = { (d: SessionDescription) in line(.offer(SkyRTCDescription(sdp: sdp("offer", d), socketId: peer))) }
        return [
            ("offer", offerLine(offer) + line(.iceCandidate(candidate))),
            ("answer", line(.answer(SkyRTCDescription(sdp: sdp("answer", answer), socketId: peer)))),
            ("renegotiation", offerLine(offer) + line(.iceCandidate(candidate)) + offerLine(added) + offerLine(stopped)),
        ]
    }

    /// A check as the ICE agent signs it, then credentials of a few lengths.
    static func stun() -> [(String, [UInt8])] {
        let m = StunMessage(type: .bindingRequest, transactionID: TransactionID(bytes: Array(1...12))!,
                            attributes: [.username("fuzz:peer"), .priority(1_845_501_695), .iceControlling(7), .useCandidate])
        guard let datagram = try? m.encode(integrityKey: StunIntegrity.shortTermKey(password: "fuzzfuzzfuzzfuzzfuzzfuzz"),
                                           fingerprint: true) else { return [] }
        return [("check", [0x14] + chunk(datagram) + [0, 4, 0, 22] + Array("peerpassword".utf8)),
                ("long-credentials", [0xE0] + chunk(datagram) + [0x01, 0x00, 0x40, 0x00] + Array("xy".utf8))]
    }

    /// A host candidate, a signed check, a response to the agent's check, and time passing.
    static func ice() -> [(String, [UInt8])] {
        let candidate = Array("candidate:1 1 udp 2122260223 127.0.0.1 40001 typ host".utf8)
        let check: [UInt8] = [0x02] + Array(1...12) + [2, 0, 0x80, 0x00, 0x12, 1, 0x7A, 0x04]
        return [("candidate-check-response", [0x00, 0x00] + chunk(candidate) + check + [0x05, 0x03, 0, 0, 1, 0x04, 0x05]),
                ("candidate-timeouts", [0x01, 0x00] + chunk(candidate) + [0x05, 0x05, 0x05, 0x04, 0x40])]
    }

    /// RTP (VP8 keyframe start, Opus) and RTCP (SR, RR, NACK, PLI) as the project's writers make them.
    static func media() -> [(String, [UInt8])] {
        let vp8Descriptor: [UInt8] = [0x90, 0x80, 0x01]   // X, S; I; picture id 1
        let keyframeStart: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x02, 0x00, 0x02, 0x00] + [UInt8](repeating: 0, count: 16)
        let video = RTPPacket(marker: true, payloadType: SupportedCodecs.vp8.defaultPT, sequenceNumber: SequenceNumber(1),
                              timestamp: 3000, ssrc: SSRC(0x2222), csrcs: [], headerExtensions: nil,
                              payload: vp8Descriptor + keyframeStart, paddingLength: 0).serialized()
        let audio = RTPPacket(marker: false, payloadType: SupportedCodecs.opus.defaultPT, sequenceNumber: SequenceNumber(1),
                              timestamp: 960, ssrc: SSRC(0x1111), csrcs: [], headerExtensions: nil,
                              payload: [0xFC, 0xFF, 0xFE], paddingLength: 0).serialized()
        let rtcp = RTCPPacket.compound([
            .senderReport(SenderReport(ssrc: SSRC(0x2222), ntpTimestamp: NTPTimestamp(rawValue: 1 << 32), rtpTimestamp: 3000,
                                       packetCount: 1, octetCount: 100, reportBlocks: [])),
            .receiverReport(ReceiverReport(ssrc: SSRC(0x1111))),
            .nack(GenericNack(senderSSRC: SSRC(0x1111), mediaSSRC: SSRC(0x4444), lost: [SequenceNumber(2), SequenceNumber(4)])),
            .pictureLossIndication(PictureLossIndication(senderSSRC: SSRC(0x1111), mediaSSRC: SSRC(0x4444))),
        ])
        return [("video-audio-rtcp", [0x10] + chunk(video) + [0x10] + chunk(audio) + [0x11] + chunk(rtcp))]
    }

    /// A real ClientHello at a fresh server, and a closed connected pair.
    static func dtls() -> [(String, [UInt8])] {
        guard let client = try? DtlsEndpoint(role: .client, certificate: DtlsTarget.clientCertificate,
                                             remoteFingerprint: DtlsTarget.serverCertificate.fingerprint),
              let hello = client.start(now: .zero).transmits.first else { return [] }
        return [("client-hello", [0x00, 0x40] + chunk(hello)), ("connected-close", [0x02, 0x20, 0x05, 0x21])]
    }

    /// A client's masked text frame with a join, a ping and a close; the server's unmasked frames to a client.
    static func websocket() -> [(String, [UInt8])] {
        let join = Array(SkyRTCClientMessage.join(SkyRTCJoin(room: "room", name: "fuzz")).jsonText.utf8)
        let mask: (UInt8, UInt8, UInt8, UInt8) = (1, 2, 3, 4)
        let toServer = WebSocketFrameWriter.frame(.text, payload: join, maskKey: mask)
            + WebSocketFrameWriter.frame(.ping, payload: [1], maskKey: mask)
            + WebSocketFrameWriter.frame(.text, payload: Array(join.prefix(5)), fin: false, maskKey: mask)
            + WebSocketFrameWriter.frame(.continuation, payload: Array(join.dropFirst(5)), maskKey: mask)
        let peers = SkyRTCServerMessage.peers(SkyRTCPeers(connections: [peer], you: SocketID("me"))).jsonBytes()
        let toClient = WebSocketFrameWriter.frame(.text, payload: peers) + WebSocketFrameWriter.frame(.pong, payload: [])
        return [("server-side", [0x00, 0x00] + toServer), ("server-side-pieces", [0x00, 0x07] + toServer),
                ("client-side", [0x01, 0x00] + toClient)]
    }

    /// Every message a client sends, as it writes them.
    static func json() -> [(String, [UInt8])] {
        let sdp = JSONValue.object([("type", .string("offer")), ("sdp", .string("v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"))])
        let messages: [(String, SkyRTCClientMessage)] = [
            ("join", .join(SkyRTCJoin(room: "room", name: "fuzz"))),
            ("offer", .offer(SkyRTCDescription(sdp: sdp, socketId: peer))),
            ("candidate", .iceCandidate(SkyRTCCandidate(id: "0", label: 0, candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host",
                                                        socketId: peer))),
        ]
        let id = FileSendID("KX7F2-9ZQ")!
        let peerMessages: [(String, SkyRTCPeerMessage)] = [
            ("peer-chat", .chat("hello")),
            ("peer-ask", .file(.ask(sendId: id, name: "report.pdf", size: 5))),
            ("peer-accept", .file(.accept(sendId: id))),
            ("peer-chunk", .file(.chunk(sendId: id, data: "data:application/pdf;base64,aGVs", last: false, percent: 50))),
            ("peer-chunk-last", .file(.chunk(sendId: id, data: "bG8=", last: true, percent: nil))),
        ]
        return messages.map { ($0.0, Array($0.1.jsonText.utf8)) } + peerMessages.map { ($0.0, $0.1.jsonBytes) }
    }

    /// What Janus 1.1.2 sent in the interop tests (Tests/Janus/README.md) and the Swift tests' shapes, as the janus
    /// target's lines after its scripted join (transactions c1...c7 are spent there): a newcomer, a mute and its
    /// re-announcement, a subscription update, departures, moderation, errors, and our leave.
    static func janus() -> [(String, [UInt8])] {
        let s = JanusTarget.session, p = JanusTarget.publisherHandle, sub = JanusTarget.subscriberHandle
        func event(_ sender: UInt64, _ transaction: String?, _ data: String, _ jsep: (String, String)? = nil) -> String {
            JanusTarget.event(sender, transaction: transaction, data: data, jsep: jsep)
        }
        func described(_ id: Int, audio: String, video: String) -> String {
            #"{"id":\#(id),"display":"p\#(id)","audio_codec":"opus","video_codec":"vp8","streams":[{"type":"audio","mindex":0,"mid":"0","description":"\#(audio)","codec":"opus"},{"type":"video","mindex":1,"mid":"1","description":"\#(video)","codec":"vp8"}]}"#
        }
        let seeds: [(String, [String])] = [
            ("newcomer", [
                event(p, nil, #"{"videoroom":"event","id":30,"display":"carol"}"#),
                event(p, nil, #"{"videoroom":"event","room":1234,"publishers":[\#(JanusTarget.publisher(30))]}"#),
                event(sub, "c8", #"{"videoroom":"updated","room":1234,"streams":[{"type":"audio","active":true,"mindex":4,"mid":"4","ready":false,"send":true,"feed_id":30,"feed_mid":"0","feed_display":"carol"}]}"#, ("offer", "v=0\\r\\n")),
                "a",
                event(sub, "c9", #"{"videoroom":"event","room":1234,"started":"ok"}"#),
            ]),
            ("mute", [
                "m",
                #"{"janus":"ack","session_id":\#(s),"transaction":"c8"}"#,
                event(p, "c8", #"{"videoroom":"event","room":1234,"configured":"ok"}"#),
                event(p, nil, #"{"videoroom":"event","room":1234,"publishers":[\#(described(20, audio: "conftui audio muted", video: "conftui video on"))]}"#),
                "m", "v",
                event(p, nil, #"{"videoroom":"event","room":1234,"publishers":[\#(described(20, audio: "conftui audio on", video: "conftui video off"))]}"#),
                event(p, nil, #"{"videoroom":"event","room":1234,"publishers":[\#(described(21, audio: "\\u001b[2J", video: "conftui video off\\n"))]}"#),
            ]),
            ("leaving", [
                event(p, nil, #"{"videoroom":"talking","room":1234,"id":20,"mindex":0,"mid":"0","audio-level-dBov-avg":-40.5}"#),
                event(p, nil, #"{"videoroom":"event","room":1234,"leaving":20}"#),
                event(sub, nil, #"{"videoroom":"updated","room":1234,"streams":[{"type":"audio","active":false,"mindex":0,"mid":"0","ready":false,"send":true}]}"#, ("offer", "v=0\\r\\n")),
                event(p, nil, #"{"videoroom":"event","room":1234,"unpublished":21}"#),
                event(p, nil, #"{"videoroom":"event","room":1234,"kicked":21}"#),
            ]),
            ("moderation", [
                event(p, nil, #"{"videoroom":"event","room":1234,"id":20,"mid":"1","moderation":"muted"}"#),
                event(p, nil, #"{"videoroom":"event","room":1234,"id":20,"mid":"1","moderation":"unmuted"}"#),
                event(sub, nil, #"{"videoroom":"updating","room":1234}"#),
            ]),
            ("connection", [
                #"{"janus":"webrtcup","session_id":\#(s),"sender":\#(p)}"#,
                #"{"janus":"media","session_id":\#(s),"sender":\#(sub),"type":"video","receiving":false}"#,
                #"{"janus":"slowlink","session_id":\#(s),"sender":\#(sub),"uplink":false,"lost":3}"#,
                #"{"janus":"hangup","session_id":\#(s),"sender":\#(sub),"reason":"ICE failed"}"#,
                #"{"janus":"detached","session_id":\#(s),"sender":\#(sub)}"#,
                #"{"janus":"success","transaction":"c8","data":{"id":7003}}"#,
            ]),
            ("errors", [
                "o",
                event(p, "c8", #"{"videoroom":"event","error_code":437,"error":"Invalid SDP"}"#),
                #"{"janus":"error","session_id":\#(s),"transaction":"c9","error":{"code":458,"reason":"No such session"}}"#,
                #"{"janus":"timeout","session_id":\#(s)}"#,
            ]),
            ("leave", [
                "l",
                event(p, "c8", #"{"videoroom":"event","room":1234,"leaving":"ok"}"#),
                #"{"janus":"success","session_id":\#(s),"transaction":"c9"}"#,
                "d",
            ]),
            ("destroyed", [event(p, nil, #"{"videoroom":"destroyed","room":1234}"#)]),
        ]
        return seeds.map { ($0.0, Array($0.1.joined(separator: "\n").utf8)) }
    }

    /// The smallest Y4M the reader takes: a 2x2 4:2:0 header and one frame.
    /// The TURN target's operations after its scripted allocation: a Data indication, ChannelData, a send that asks
    /// for a permission, a refresh's worth of time, over UDP and over the stream framer.
    static func turn() -> [(String, [UInt8])] {
        var rng = SplitMixRandom(seed: 9)
        let peer = TransportAddress("192.0.2.0:6000")!
        guard let data = try? StunMessage(type: StunMessageType(method: .data, stunClass: .indication), transactionID: .random(using: &rng),
                                          attributes: [.xorPeerAddress(peer), .data([1, 2, 3])]).encode(),
              let channel = try? TurnChannelData(channel: 0x4000, payload: [4, 5, 6]).encode(padded: true) else { return [] }
        let udp: [UInt8] = [0] + [3] + chunk([9, 9]) + [0] + chunk(data) + [1] + chunk(channel) + [255] + chunk([])
        let stream: [UInt8] = [1] + [3] + chunk([9, 9]) + [2] + chunk(data + channel) + [5] + chunk([]) + [4] + chunk([])
        return [("udp-ops", udp), ("stream-ops", stream)]
    }

    static func y4m() -> [(String, [UInt8])] {
        [("2x2", Array("YUV4MPEG2 W2 H2 F30:1 Ip A1:1 C420jpeg\nFRAME\n".utf8) + [UInt8](repeating: 0x80, count: 6))]
    }

    /// A real session in A's name, as `SctpTarget` replays it (packets kept as sent, B's answers dropped): text, a
    /// message B sends and A's SACK for it, a fragmented binary message, the channel's close (RE-CONFIG), then
    /// hand-made chunks: HEARTBEAT, FORWARD TSN, unknown types with each action, ERROR, a second INIT, SHUTDOWN.
    static func sctp() -> [(String, [UInt8])] {
        let pair = SctpPair(aIsClient: true) { $0.maxChannels = 8 }
        guard pair.connect(), let (channel, out) = try? pair.a.open(label: "chat", now: pair.now) else { return [] }
        pair.fromA(out)
        pair.pump()
        var ops: [UInt8] = [0x01]
        var highestTSN: UInt32 = 0
        pair.onPacketFromA = { packet in
            ops += [0x30] + chunk(packet)
            if case .success(let parsed) = SctpPacket.parse(packet) {
                for case .data(let d) in parsed.chunks { highestTSN = d.tsn }
            }
        }
        if let out = try? pair.a.send(.text(Array("hello".utf8)), on: channel, now: pair.now) { pair.fromA(out) }
        pair.pump()
        ops += [0x20, 0x06]   // B sends 96 bytes; A's SACK for them is recorded next.
        if let out = try? pair.b.send(.text([UInt8](repeating: 0x61, count: 96)), on: channel, now: pair.now) { pair.fromB(out) }
        pair.pump()
        if let out = try? pair.a.send(.binary([UInt8](repeating: 0xB0, count: 3_000)), on: channel, now: pair.now) { pair.fromA(out) }
        pair.pump()
        let session = ops
        pair.fromA(pair.a.close(channel, now: pair.now))
        pair.pump()
        pair.onPacketFromA = nil
        func packet(_ chunks: [SctpChunk], tag: UInt32? = nil) -> [UInt8] {
            SctpPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: tag ?? pair.tagAtB, chunks: chunks).serialized()
        }
        let handMade: [[UInt8]] = [
            packet([.heartbeat(info: [0, 1, 0, 8, 1, 2, 3, 4])]),
            packet([.forwardTSN(SctpForwardTSN(newCumulativeTSN: highestTSN &+ 3, streams: [(stream: channel, ssn: 5)]))]),
            packet([.unknown(type: 0x40, flags: 0, value: [1, 2, 3, 4]), .heartbeat(info: [0, 1, 0, 4])]),
            packet([.unknown(type: 0xC1, flags: 0, value: []), .unknown(type: 0x81, flags: 0, value: [9]), .heartbeat(info: [0, 1, 0, 4])]),
            packet([.error(cause: "fuzz")]),
            packet([.initiate(SctpInit(initiateTag: 77, advertisedReceiverWindow: 1 << 20, outboundStreams: 16, inboundStreams: 16,
                                       initialTSN: 1, forwardTSN: true, extensions: [130, 192]))], tag: 0),
            packet([.shutdown(cumulativeTSN: 0)]),
        ]
        let handOps: [UInt8] = handMade.flatMap { (p: [UInt8]) -> [UInt8] in [0x30] + chunk(p) }
        let keptOps: [UInt8] = handMade.flatMap { (p: [UInt8]) -> [UInt8] in [0x37] + chunk(p) }
        let withHandMade: [UInt8] = session + handOps + [0x15]
        return [("session", ops), ("session-then-hand-made", withHandMade), ("hand-made-kept-bytes", [0x00] + keptOps + [0x1F])]
    }

    /// DCEP at B: an OPEN on A's parity, then text, binary, the partial and empty PPIDs, an unknown PPID, a raw
    /// ACK, a malformed DCEP message, an OPEN on B's parity and on a far stream, a close.
    static func dcep() -> [(String, [UInt8])] {
        let open: [UInt8] = [0x40, 2] + chunk(Array("label \u{0} ü".utf8))
        let messages: [UInt8] = [0x01, 2] + chunk(Array("hi".utf8)) + [0x03, 2] + chunk([1, 2, 3]) + [0x02, 2] + chunk([4])
            + [0x04, 2] + chunk([5]) + [0x05, 2] + chunk([]) + [0x06, 2] + chunk([]) + [0x07, 0, 0, 0, 99, 2] + chunk([6])
        let control: [UInt8] = [0x00, 2] + chunk([0x02]) + [0x00, 4] + chunk([0x03, 0x00]) + [0x40, 3] + chunk(Array("odd".utf8))
            + [0x50, 0x03, 0xE8] + chunk(Array("far".utf8)) + [0x60, 2] + chunk([]) + [0x81, 2] + chunk(Array("after".utf8))
        return [("open-and-messages", [0x01] + open + messages), ("control", [0x01] + open + control),
                ("server-side", [0x00, 0x40, 1] + chunk(Array("x".utf8)) + [0x01, 1] + chunk(Array("y".utf8)))]
    }

    /// Chat, a whole small file offered and sent, a name that tries to leave the directory, a binary message.
    static func peerMessages() -> [(String, [UInt8])] {
        let id = FileSendID("KX7F2-9ZQ")!
        let other = FileSendID("AB3CD-EF5")!
        let file: [SkyRTCPeerMessage] = [
            .chat("hello"),
            .file(.ask(sendId: id, name: "report.pdf", size: 5)),
            .file(.chunk(sendId: id, data: "data:application/pdf;base64,aGVs", last: false, percent: 50)),
            .file(.chunk(sendId: id, data: "bG8=", last: true, percent: nil)),
        ]
        let hostile: [SkyRTCPeerMessage] = [
            .file(.ask(sendId: other, name: "../../etc/passwd", size: 3)),
            .file(.chunk(sendId: other, data: "data:text/plain;base64,eHl6", last: true, percent: 100)),
            .file(.ask(sendId: id, name: "big", size: 1 << 40)),
        ]
        return [("chat-and-file", file.flatMap { [0x00] + chunk($0.jsonBytes) }),
                ("hostile-names", hostile.flatMap { [0x00] + chunk($0.jsonBytes) } + [0x01] + chunk([1, 2, 3])
                    + [0x02] + chunk(Array("{\"type\":\"__file\"".utf8))),
                ("layer-wishes", [JanusLayerWish.low, .full].flatMap { [0x00] + chunk($0.message) }
                    + [0x00] + chunk(Array(#"{"type":"__layers","take":"medium"}"#.utf8)))]
    }
}
