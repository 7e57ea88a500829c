import Testing
@testable import EngineTransport

/// The test plays the peer by hand, packet by packet, so it controls every field: the handshake, a channel on
/// stream 0, then one hostile input per test. Each test shows the input is refused with its reason (a warning,
/// or a packet ignored with nothing done) and that the association goes on: a valid message sent next arrives.
final class HostileSctpPeer {
    let b: DataChannels
    var now = TransportTime(nanoseconds: 1_000_000_000)
    /// Our verification tag (what B's packets carry) and B's (what ours must carry).
    let tag: UInt32 = 0x0A11_CE01
    private(set) var tagAtB: UInt32 = 0
    private(set) var cookie: [UInt8] = []
    /// B's first TSN: its DCEP ACK of our channel carries it.
    private(set) var initialTSNAtB: UInt32 = 0
    var nextTSN: UInt32 = 1_000
    private var ssn: [UInt16: UInt16] = [:]
    /// Every event B reported and every packet it sent, parsed.
    private(set) var events: [DataChannels.Event] = []
    private(set) var sent: [SctpPacket] = []

    /// Connected, with our channel on stream 0 open at B (B is the DTLS server: our streams are even).
    init(outboundStreams: UInt16 = 1024, configure: (inout DataChannels.Configuration) -> Void = { _ in }) throws {
        var c = DataChannels.Configuration(isDtlsClient: false)
        c.sctp.seed = 77
        configure(&c)
        b = DataChannels(configuration: c)
        let initOut = packet([.initiate(SctpInit(initiateTag: tag, advertisedReceiverWindow: 1 << 20,
                                                 outboundStreams: outboundStreams, inboundStreams: 1024,
                                                 initialTSN: nextTSN, forwardTSN: true, extensions: [130, 192]))], tag: 0)
        guard case .initiateAck(let info, let c2)? = parsed(initOut).first?.chunks.first else { throw Failure.handshake }
        tagAtB = info.initiateTag
        cookie = c2
        _ = packet([.cookieEcho(cookie: cookie)])
        guard b.isConnected else { throw Failure.handshake }
        let open = data(stream: 0, ppid: DataChannelPPID.dcep, DcepMessage.open(channelType: 0, priority: 256, reliability: 0,
                                                                                label: "chat", protocol: "").encoded())
        guard open.events.contains(.opened(0, label: "chat", protocol: "")) else { throw Failure.channel }
        for p in parsed(open) { for case .data(let d) in p.chunks { initialTSNAtB = d.tsn } }
    }

    enum Failure: Error { case handshake, channel }

    /// B's packets in an output, parsed.
    func parsed(_ out: DataChannels.Output) -> [SctpPacket] { out.transmits.compactMap { try? SctpPacket.parse($0).get() } }

    @discardableResult
    func receive(_ bytes: [UInt8]) -> DataChannels.Output {
        let out = b.receive(packet: bytes, now: now)
        events += out.events
        sent += parsed(out)
        return out
    }

    /// Chunks in one packet with B's tag (or `tag`) and ports, checksum correct.
    @discardableResult
    func packet(_ chunks: [SctpChunk], tag: UInt32? = nil, source: UInt16 = 5000, destination: UInt16 = 5000) -> DataChannels.Output {
        receive(SctpPacket(sourcePort: source, destinationPort: destination, verificationTag: tag ?? tagAtB, chunks: chunks).serialized())
    }

    /// A packet of raw chunk bytes after a correct common header, its CRC32c computed.
    @discardableResult
    func raw(_ body: [UInt8]) -> DataChannels.Output { receive(Self.withChecksum(header(tag: tagAtB) + body)) }

    func header(tag: UInt32) -> [UInt8] {
        var h: [UInt8] = [0x13, 0x88, 0x13, 0x88]
        h.appendBE(tag)
        return h + [0, 0, 0, 0]
    }

    static func withChecksum(_ packet: [UInt8]) -> [UInt8] {
        var p = packet
        p[8] = 0; p[9] = 0; p[10] = 0; p[11] = 0
        let crc = Crc32c.checksum(p)
        p[8] = UInt8(crc & 0xFF); p[9] = UInt8(crc >> 8 & 0xFF); p[10] = UInt8(crc >> 16 & 0xFF); p[11] = UInt8(crc >> 24)
        return p
    }

    /// A DATA chunk: the next TSN and the stream's next SSN unless given (both move on only when neither was
    /// given); one whole message unless flags say.
    func dataChunk(stream: UInt16 = 0, ppid: UInt32 = DataChannelPPID.string, _ payload: [UInt8], tsn: UInt32? = nil,
                   ssn explicitSSN: UInt16? = nil, beginning: Bool = true, ending: Bool = true, unordered: Bool = false) -> SctpDataChunk {
        let t = tsn ?? nextTSN
        if tsn == nil { nextTSN &+= 1 }
        let s = explicitSSN ?? ssn[stream, default: 0]
        // A chunk with a TSN of its own is one the test expects refused: the stream's next SSN stays.
        if explicitSSN == nil && tsn == nil && ending && !unordered { ssn[stream] = s &+ 1 }
        return SctpDataChunk(tsn: t, stream: stream, ssn: s, ppid: ppid, unordered: unordered, beginning: beginning,
                             ending: ending, payload: payload[...])
    }

    @discardableResult
    func data(stream: UInt16 = 0, ppid: UInt32 = DataChannelPPID.string, _ payload: [UInt8]) -> DataChannels.Output {
        packet([.data(dataChunk(stream: stream, ppid: ppid, payload))])
    }

    /// A text on `stream` arrives at B as that text: the association and the channel go on.
    func delivers(_ text: String, stream: UInt16 = 0) -> Bool {
        data(stream: stream, Array(text.utf8)).events.contains(.message(stream, .text(Array(text.utf8))))
    }

    static func warnings(_ out: DataChannels.Output) -> [String] {
        out.events.compactMap { if case .warning(let w) = $0 { w } else { nil } }
    }

    var sacks: [SctpSack] { sent.flatMap { $0.chunks.compactMap { if case .sack(let s) = $0 { s } else { nil } } } }
    var reconfigResponses: [(UInt32, UInt32)] {
        sent.flatMap { $0.chunks.flatMap { c -> [(UInt32, UInt32)] in
            guard case .reconfig(let ps) = c else { return [] }
            return ps.compactMap { if case .response(let s, let r) = $0 { (s, r) } else { nil } }
        } }
    }
}

@Suite struct SctpHostileTests {
    private func warned(_ out: DataChannels.Output, _ fragment: String) -> Bool {
        HostileSctpPeer.warnings(out).contains { $0.contains(fragment) }
    }

    // MARK: - The common header

    @Test func aBadChecksumDropsThePacket() throws {
        let p = try HostileSctpPeer()
        var bytes = SctpPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: p.tagAtB,
                               chunks: [.data(p.dataChunk(Array("lost".utf8), tsn: p.nextTSN))]).serialized()
        bytes[8] ^= 0xFF
        let out = p.receive(bytes)
        #expect(warned(out, "CRC32c mismatch"))
        #expect(!out.events.contains { if case .message = $0 { true } else { false } })
        #expect(p.delivers("next"))
    }

    @Test func aWrongVerificationTagDropsThePacket() throws {
        let p = try HostileSctpPeer()
        let out = p.packet([.data(p.dataChunk(Array("spoofed".utf8), tsn: p.nextTSN))], tag: p.tagAtB &+ 1)
        #expect(warned(out, "verification tag"))
        #expect(out.transmits.isEmpty)
        #expect(p.delivers("next"))
    }

    @Test(arguments: [(UInt16(5001), UInt16(5000)), (5000, 5001)])
    func wrongPortsDropThePacket(source: UInt16, destination: UInt16) throws {
        let p = try HostileSctpPeer()
        let out = p.packet([.data(p.dataChunk(Array("elsewhere".utf8), tsn: p.nextTSN))], source: source, destination: destination)
        #expect(warned(out, "ports"))
        #expect(p.delivers("next"))
    }

    @Test func packetsShorterThanTheHeaderAreDropped() throws {
        let p = try HostileSctpPeer()
        #expect(warned(p.receive([0x13, 0x88, 0x13]), "shorter than the common header"))
        #expect(p.delivers("next"))
    }

    // MARK: - Chunk framing

    @Test func aTruncatedChunkHeaderDropsThePacket() throws {
        let p = try HostileSctpPeer()
        // A whole HEARTBEAT, then two bytes of a next chunk header.
        let out = p.raw([4, 0, 0, 8, 0, 1, 0, 4] + [4, 0])
        #expect(warned(out, "truncated header"))
        #expect(out.transmits.isEmpty)   // Nothing of the packet is acted on, its valid HEARTBEAT neither.
        #expect(p.delivers("next"))
    }

    @Test(arguments: [UInt16(100), 65535, 3, 0])
    func aChunkLengthBeyondThePacketOrBelowItsHeaderDropsThePacket(length: UInt16) throws {
        let p = try HostileSctpPeer()
        let out = p.raw([4, 0, UInt8(length >> 8), UInt8(length & 0xFF), 0, 1, 0, 4])
        #expect(warned(out, "beyond the packet"))
        #expect(p.delivers("next"))
    }

    @Test func moreThanFourHundredChunksDropThePacket() throws {
        let p = try HostileSctpPeer()
        let out = p.raw(Array([[UInt8]](repeating: [11, 0, 0, 4], count: 401).joined()))   // 401 COOKIE ACKs
        #expect(warned(out, "more than 400 chunks"))
        // 400 are a legal, if silly, packet.
        #expect(HostileSctpPeer.warnings(p.raw(Array([[UInt8]](repeating: [11, 0, 0, 4], count: 400).joined()))).isEmpty)
        #expect(p.delivers("next"))
    }

    @Test func aDataChunkWithoutUserDataDropsThePacket() throws {
        let p = try HostileSctpPeer()
        var chunk: [UInt8] = [0, 3, 0, 16]
        chunk.appendBE(p.nextTSN); chunk += [0, 0, 0, 0, 0, 0, 0, 51]
        #expect(warned(p.raw(chunk), "DATA without user data"))
        #expect(p.delivers("next"))
    }

    // MARK: - Handshake chunks on an established association

    @Test(arguments: [(UInt32(0), UInt16(16)), (99, 0)])
    func anInitWithAZeroTagOrNoStreamsIsDropped(initiateTag: UInt32, streams: UInt16) throws {
        let p = try HostileSctpPeer()
        let out = p.packet([.initiate(SctpInit(initiateTag: initiateTag, advertisedReceiverWindow: 1000, outboundStreams: streams,
                                               inboundStreams: streams, initialTSN: 5, forwardTSN: true, extensions: []))], tag: 0)
        #expect(warned(out, "INIT with a zero tag or no streams dropped"))
        #expect(out.transmits.isEmpty)
        #expect(p.delivers("next"))
    }

    @Test func anInitOnAnEstablishedAssociationIsIgnored() throws {
        let p = try HostileSctpPeer()
        let out = p.packet([.initiate(SctpInit(initiateTag: 1234, advertisedReceiverWindow: 1000, outboundStreams: 16,
                                               inboundStreams: 16, initialTSN: 5, forwardTSN: true, extensions: []))], tag: 0)
        #expect(warned(out, "INIT on an established association ignored"))
        #expect(out.transmits.isEmpty)
        #expect(p.b.isConnected)
        #expect(p.delivers("next"))
    }

    @Test func aForgedCookieEchoIsDroppedAndARepeatedOneOnlyAcknowledged() throws {
        let p = try HostileSctpPeer()
        var forged = p.cookie
        forged[forged.count - 1] ^= 1
        #expect(warned(p.packet([.cookieEcho(cookie: forged)]), "COOKIE ECHO with a cookie we did not issue dropped"))
        #expect(warned(p.packet([.cookieEcho(cookie: [1, 2, 3])]), "did not issue"))
        // The genuine cookie again (our COOKIE ACK lost): acknowledged, nothing reset.
        let again = p.packet([.cookieEcho(cookie: p.cookie)])
        #expect(p.parsed(again).contains { $0.chunks.contains(.cookieAck) })
        #expect(!again.events.contains(.connected))
        #expect(p.delivers("next"))
    }

    // MARK: - SACK

    @Test func aSackForATSNNeverSentIsIgnored() throws {
        let p = try HostileSctpPeer()
        let out = p.packet([.sack(SctpSack(cumulativeTSN: p.initialTSNAtB &+ 100, advertisedReceiverWindow: 1 << 20,
                                           gaps: [], duplicates: []))])
        #expect(warned(out, "never sent ignored"))
        #expect(p.b.association.outstandingCount == 1)   // B's DCEP ACK is still unacknowledged.
        #expect(p.delivers("next"))
    }

    @Test func aSackClaimingMoreGapBlocksThanItCarriesIsDropped() throws {
        let p = try HostileSctpPeer()
        var chunk: [UInt8] = [3, 0, 0, 0]
        chunk.appendBE(p.initialTSNAtB &- 1); chunk.appendBE(UInt32(1 << 20))
        chunk.appendBE(UInt16(65535)); chunk.appendBE(UInt16(0))
        chunk += [0, 1, 0, 2]   // One of the 65,535.
        chunk.storeBE(UInt16(chunk.count), at: 2)
        #expect(warned(p.raw(chunk), "SACK counts beyond the chunk"))
        #expect(p.delivers("next"))
    }

    @Test func aSackWithSixteenThousandGapBlocksIsHandledAndBounded() throws {
        let p = try HostileSctpPeer()
        let gaps: [ClosedRange<UInt16>] = (0..<16_000).map { (i: Int) -> ClosedRange<UInt16> in
            let at = UInt16(2 + 2 * i)
            return at...at
        }
        let out = p.packet([.sack(SctpSack(cumulativeTSN: p.initialTSNAtB &- 1, advertisedReceiverWindow: 1 << 20,
                                           gaps: gaps, duplicates: []))])
        #expect(HostileSctpPeer.warnings(out).isEmpty)
        #expect(p.b.association.outstandingCount == 1)
        #expect(p.delivers("next"))
    }

    /// Gap blocks are merged and searched (a 16 KB SACK holds 4,000, each outstanding chunk is looked up): the
    /// same answer as scanning every block, for overlapping, unordered and adjacent ones.
    @Test func mergedGapBlocksAnswerAsAScanWould() {
        var rng = SplitMixRandom(seed: 0x6A9)
        for _ in 0..<500 {
            let gaps = (0..<Int.random(in: 0...12, using: &rng)).map { _ -> ClosedRange<UInt16> in
                let start = UInt16.random(in: 1...60, using: &rng)
                return start...min(65_535, start + UInt16.random(in: 0...8, using: &rng))
            } + (rng.chance(0.1) ? [65_530...65_535] : [])
            let merged = SctpAssociation.disjoint(gaps)
            #expect(zip(merged, merged.dropFirst()).allSatisfy { $0.upperBound &+ 1 < $1.lowerBound })
            for offset in [0, 1, 2, 30, 59, 60, 61, 70, 65_529, 65_530, 65_535] as [UInt16] {
                #expect(SctpAssociation.covers(merged, offset) == gaps.contains { $0.contains(offset) })
            }
        }
    }

    @Test(arguments: [(UInt16(5), UInt16(3)), (0, 2)])
    func aSackGapBlockStartingAfterItsEndOrAtZeroIsDropped(start: UInt16, end: UInt16) throws {
        let p = try HostileSctpPeer()
        var chunk: [UInt8] = [3, 0, 0, 20]
        chunk.appendBE(p.initialTSNAtB); chunk.appendBE(UInt32(1 << 20))
        chunk.appendBE(UInt16(1)); chunk.appendBE(UInt16(0))
        chunk.appendBE(start); chunk.appendBE(end)
        #expect(warned(p.raw(chunk), "SACK gap block"))
        #expect(p.b.association.outstandingCount == 1)
        #expect(p.delivers("next"))
    }

    // MARK: - DATA

    @Test func aDuplicateTSNFloodDeliversOnceAndReportsAtMostSixteen() throws {
        let p = try HostileSctpPeer()
        let chunk = p.dataChunk(Array("once".utf8))
        let first = p.packet([.data(chunk)])
        #expect(first.events.contains(.message(0, .text(Array("once".utf8)))))
        var delivered = 0
        for _ in 0..<50 {
            let out = p.packet(Array(repeating: .data(chunk), count: 300))
            delivered += out.events.filter { if case .message = $0 { true } else { false } }.count
        }
        #expect(delivered == 0)
        #expect(p.sacks.allSatisfy { $0.duplicates.count <= 16 })
        #expect(p.sacks.contains { $0.duplicates.count == 16 })
        #expect(p.b.association.receiveHeldBytes == 0)
        #expect(p.delivers("next"))
    }

    @Test func dataOnAStreamBeyondTheNegotiatedCountIsAcknowledgedAndDropped() throws {
        let p = try HostileSctpPeer(outboundStreams: 16)
        let tsn = p.nextTSN
        let out = p.data(stream: 20, Array("beyond".utf8))
        #expect(warned(out, "beyond the 16 negotiated"))
        #expect(!out.events.contains { if case .message = $0 { true } else { false } })
        // Acknowledged all the same, or a sender would retransmit it forever.
        #expect(p.sacks.last?.cumulativeTSN == tsn)
        #expect(p.delivers("next"))
    }

    @Test func dataFarAheadOfTheCumulativeTSNIsDroppedUnacknowledged() throws {
        let p = try HostileSctpPeer()
        let cumulative = p.nextTSN &- 1
        let out = p.packet([.data(p.dataChunk(Array("far".utf8), tsn: p.nextTSN &+ 16_384))])
        #expect(warned(out, "too far ahead"))
        // Just inside the window is taken (and reported in a gap block).
        let inside = p.packet([.data(p.dataChunk(stream: 0, Array("near".utf8), tsn: p.nextTSN &+ 16_383, unordered: true))])
        #expect(HostileSctpPeer.warnings(inside).isEmpty)
        #expect(p.sacks.last.map { $0.cumulativeTSN == cumulative && $0.gaps == [16_384...16_384] } == true)
        #expect(p.delivers("next"))
    }

    /// Complete messages waiting for an SSN that never comes are held, each counted with 64 bytes more, until the
    /// window and its eighth are full; past them DATA is dropped unacknowledged. Memory stays within 1.125 MiB.
    @Test func aDataFloodBeyondTheReceiveWindowStaysWithinIt() throws {
        let p = try HostileSctpPeer()
        // The window and the eighth past it that a sender overrunning our advertisement may use (`limit`).
        let window = p.b.configuration.sctp.receiveWindow * 9 / 8
        let tsnOfMissing = p.nextTSN
        p.nextTSN &+= 1
        var warnings = 0
        for i in 0..<1_300 {
            let out = p.packet([.data(p.dataChunk(stream: 0, [UInt8](repeating: 0x41, count: 1_000), ssn: UInt16(i + 2)))])
            if warned(out, "receive window full") { warnings += 1 }
            #expect(p.b.association.receiveHeldBytes <= window)
        }
        // Drops are said at the 1st, 10th, 100th...: a few lines, not one a chunk.
        let full = 1_300 - p.b.association.receiveHeldBytes / 1_064
        #expect(full > 100 && warnings == 3)
        #expect(p.b.association.receiveHeldBytes > window - 1_064)
        #expect(p.sacks.last?.advertisedReceiverWindow ?? 1 < 1_064)
        #expect(p.b.isConnected)
        // The chunk that fills the gap is taken from the reserve past the window, and what waited behind it goes.
        let missing = p.packet([.data(p.dataChunk(stream: 0, Array("1".utf8), tsn: tsnOfMissing, ssn: 1))])
        let delivered = missing.events.filter { if case .message = $0 { true } else { false } }.count
        #expect(delivered == 1_301 - full)
        #expect(p.b.association.receiveHeldBytes == 0)
        // The dropped ones, sent again, arrive; then the next.
        p.nextTSN = tsnOfMissing &+ 1 &+ UInt32(1_300 - full)
        for i in (1_300 - full)..<1_300 {
            let out = p.packet([.data(p.dataChunk(stream: 0, [UInt8](repeating: 0x41, count: 1_000), ssn: UInt16(i + 2)))])
            #expect(out.events.contains { if case .message = $0 { true } else { false } })
        }
        #expect(p.packet([.data(p.dataChunk(stream: 0, Array("next".utf8), ssn: 1_302))]).events
            .contains(.message(0, .text(Array("next".utf8)))))
    }

    /// The reserve is bounded too: a peer sending the chunk at the cumulative TSN + 1 each time, all held, stops
    /// at the window plus the reserve.
    @Test func gapFillingChunksStopAtTheReserve() throws {
        let p = try HostileSctpPeer()
        let sctp = p.b.configuration.sctp
        let reserve = min(sctp.maxIncomingMessage, sctp.receiveWindow) * 17 / 16
        var full = 0
        for i in 0..<1_400 {
            // SSN 1 never comes: each message waits, and each is the next TSN.
            let out = p.packet([.data(p.dataChunk(stream: 0, [UInt8](repeating: 0x43, count: 1_000), ssn: UInt16(i + 2)))])
            if warned(out, "receive window full") { full += 1 }
            #expect(p.b.association.receiveHeldBytes <= sctp.receiveWindow * 9 / 8 + reserve)
        }
        #expect(full > 0)
        #expect(p.b.isConnected)
    }

    /// A message that never ends, larger than maxIncomingMessage: its payload is let go as soon as it is known too
    /// large, only 64 bytes per chunk stay counted, and messages on other streams go on.
    @Test func aNeverEndingMessageAboveTheLimitHoldsNoPayload() throws {
        let p = try HostileSctpPeer()
        let limit = p.b.configuration.sctp.maxIncomingMessage
        var sentBytes = 0
        var chunks = 0
        var first = true
        while sentBytes <= limit + 10_000 {
            p.packet([.data(p.dataChunk(stream: 0, [UInt8](repeating: 0x42, count: 1_000), ssn: 1, beginning: first, ending: false))])
            first = false
            sentBytes += 1_000
            chunks += 1
        }
        #expect(p.b.association.receiveHeldBytes <= chunks * 64 + 1_000)
        // Another channel, on stream 2, carries on.
        let open = p.data(stream: 2, ppid: DataChannelPPID.dcep, DcepMessage.open(channelType: 0, priority: 256, reliability: 0,
                                                                                   label: "second", protocol: "").encoded())
        #expect(open.events.contains(.opened(2, label: "second", protocol: "")))
        #expect(p.delivers("next", stream: 2))
    }

    // MARK: - FORWARD TSN

    @Test func aForwardTSNFarAheadOrBackwardsIsIgnored() throws {
        let p = try HostileSctpPeer()
        let cumulative = p.nextTSN &- 1
        p.packet([.forwardTSN(SctpForwardTSN(newCumulativeTSN: cumulative &+ 1_000_000, streams: [(stream: 0, ssn: 500)]))])
        #expect(p.sacks.last?.cumulativeTSN == cumulative)
        p.packet([.forwardTSN(SctpForwardTSN(newCumulativeTSN: cumulative &- 1_000, streams: [(stream: 0, ssn: 500)]))])
        #expect(p.sacks.last?.cumulativeTSN == cumulative)
        // Streams beyond the count are skipped.
        p.packet([.forwardTSN(SctpForwardTSN(newCumulativeTSN: cumulative, streams: [(stream: 60_000, ssn: 1)]))])
        #expect(p.delivers("next"))
    }

    @Test func aForwardTSNWithinReachMovesOnAndSkipsTheStream() throws {
        let p = try HostileSctpPeer()
        let skipped = p.nextTSN
        p.nextTSN &+= 3
        let out = p.packet([.forwardTSN(SctpForwardTSN(newCumulativeTSN: skipped &+ 2, streams: [(stream: 0, ssn: 2)]))])
        #expect(HostileSctpPeer.warnings(out).isEmpty)
        #expect(p.sacks.last?.cumulativeTSN == skipped &+ 2)
        // SSNs 1 and 2 skipped: the next is 3.
        let next = p.packet([.data(p.dataChunk(stream: 0, Array("after".utf8), ssn: 3))])
        #expect(next.events.contains(.message(0, .text(Array("after".utf8)))))
    }

    // MARK: - RE-CONFIG

    @Test func aResetRequestNamingTwoThousandStreamsIsRefused() throws {
        let p = try HostileSctpPeer()
        let out = p.packet([.reconfig([.outgoingReset(requestSequence: 1_000, responseSequence: 0, lastTSN: p.nextTSN &- 1,
                                                      streams: (0..<2_000).map { UInt16($0) })])])
        #expect(!out.events.contains { if case .closed = $0 { true } else { false } })
        #expect(p.reconfigResponses.contains { $0 == (1_000, 5) })
        #expect(p.delivers("next"))
    }

    @Test func aResetRequestWithABadSequenceNumberIsRefused() throws {
        let p = try HostileSctpPeer()
        for seq: UInt32 in [1_001, 0, 999_999] {
            p.packet([.reconfig([.outgoingReset(requestSequence: seq, responseSequence: 0, lastTSN: p.nextTSN &- 1, streams: [0])])])
            #expect(p.reconfigResponses.last.map { $0 == (seq, 5) } == true)
        }
        #expect(p.b.openChannels == [0])
        #expect(p.delivers("next"))
    }

    @Test func aRepeatedResetRequestIsPerformedOnceAndAnsweredAgain() throws {
        let p = try HostileSctpPeer()
        let open = p.data(stream: 2, ppid: DataChannelPPID.dcep, DcepMessage.open(channelType: 0, priority: 256, reliability: 0,
                                                                                   label: "other", protocol: "").encoded())
        #expect(open.events.contains(.opened(2, label: "other", protocol: "")))
        let request = SctpChunk.reconfig([.outgoingReset(requestSequence: 1_000, responseSequence: 0, lastTSN: p.nextTSN &- 1, streams: [2])])
        var closed = 0
        for _ in 0..<5 {
            closed += p.packet([request]).events.filter { $0 == .closed(2) }.count
        }
        #expect(closed == 1)
        #expect(p.reconfigResponses.filter { $0 == (1_000, 1) }.count == 5)
        #expect(p.b.openChannels == [0])
        #expect(p.delivers("next"))
    }

    // MARK: - Unknown chunks (RFC 9260 §3.2: the top two bits of the type)

    @Test(arguments: [(UInt8(0x3F), false), (0x7F, false), (0xBF, true), (0xFF, true)])
    func unknownChunkTypesFollowTheirTopBits(type: UInt8, goesOn: Bool) throws {
        let p = try HostileSctpPeer()
        let text = Array("behind it".utf8)
        let chunk = p.dataChunk(text)
        let out = p.packet([.unknown(type: type, flags: 0, value: [1, 2, 3]), .data(chunk)])
        #expect(warned(out, "unknown chunk type \(type)"))
        // 00 and 01: the rest of the packet is not processed; 10 and 11: it is.
        #expect(out.events.contains(.message(0, .text(text))) == goesOn)
        if !goesOn { p.packet([.data(chunk)]) }   // The peer retransmits it.
        #expect(p.delivers("next"))
    }

    /// The second bit asks for a report: an ERROR with an "Unrecognized Chunk Type" cause (6) returning the chunk as
    /// it came (RFC 9260 §3.2, §3.3.10.6). One per packet, and none for a chunk whose report would not fit a packet.
    @Test(arguments: [(UInt8(0x3F), false), (0x7F, true), (0xBF, false), (0xFF, true)])
    func unknownChunksAreReportedWhenTheirTypeAsks(type: UInt8, reported: Bool) throws {
        let p = try HostileSctpPeer()
        func reports(_ out: DataChannels.Output) -> [[UInt8]] {
            zip(out.transmits, p.parsed(out)).compactMap { bytes, packet in
                packet.chunks.contains(.error(cause: "unrecognized chunk type")) ? bytes : nil
            }
        }
        let unknown = SctpChunk.unknown(type: type, flags: 0x5A, value: [1, 2, 3])
        let behind = p.dataChunk(Array("behind".utf8))
        let out = p.packet([unknown, unknown, .data(behind)])
        if type & 0x80 == 0 { p.packet([.data(behind)]) }   // not looked at: the peer retransmits it
        let sent = reports(out)
        #expect(sent.count == (reported ? 1 : 0))
        if let bytes = sent.first {
            // The cause (code 6, length 11) returning the chunk: its type, flags, length 7 and value.
            let cause: [UInt8] = [0, 6, 0, 11, type, 0x5A, 0, 7, 1, 2, 3]
            #expect((12...(bytes.count - cause.count)).contains { Array(bytes[$0..<($0 + cause.count)]) == cause })
        }
        // A chunk whose report would outgrow a packet is not returned.
        let large = SctpChunk.unknown(type: type, flags: 0, value: [UInt8](repeating: 7, count: p.b.configuration.sctp.maxPacketSize - 20))
        #expect(reports(p.packet([large])).isEmpty)
        #expect(p.delivers("next"))
    }

    // MARK: - HEARTBEAT

    /// HEARTBEATs are echoed as they came, but what goes back in one packet stays within `maxPacketSize` (a
    /// single echo as large as the chunk that came): a packet of many heartbeats, answered together with a SACK,
    /// could otherwise exceed the 16 KB the DTLS record under it can carry, and a failed DTLS write fails the
    /// whole connection.
    @Test func heartbeatsFillingARecordAreAnsweredInPacketsThatFit() throws {
        let p = try HostileSctpPeer()
        let maxPacket = p.b.configuration.sctp.maxPacketSize
        let heartbeats = (0..<8).map { i in SctpChunk.heartbeat(info: [0, 1, 0x07, 0xD0] + [UInt8](repeating: UInt8(i), count: 1_996)) }
        let data = SctpChunk.data(p.dataChunk(Array("with a sack".utf8)))
        let out = p.packet([data] + heartbeats)
        #expect(out.events.contains(.message(0, .text(Array("with a sack".utf8)))))
        let packets = p.parsed(out)
        #expect(packets.flatMap(\.chunks).filter { if case .heartbeatAck = $0 { true } else { false } }.count == 8)
        for (bytes, packet) in zip(out.transmits, packets) where packet.chunks.count > 1 {
            #expect(bytes.count <= maxPacket)
        }
        #expect(out.transmits.allSatisfy { $0.count <= 2_000 + 4 + 12 + 4 })
        #expect(p.delivers("next"))
    }

    // MARK: - ABORT

    @Test func anAbortWithTheWrongTagIsIgnored() throws {
        let p = try HostileSctpPeer()
        #expect(warned(p.packet([.abort(reflected: false, cause: "go away")], tag: p.tagAtB ^ 0xFFFF), "verification tag"))
        // With the T bit it must carry our own tag.
        #expect(warned(p.packet([.abort(reflected: true, cause: "go away")], tag: p.tagAtB), "verification tag"))
        #expect(p.b.isConnected)
        #expect(p.delivers("next"))
        // The right tag ends it.
        let out = p.packet([.abort(reflected: false, cause: "bye")])
        #expect(out.events.contains { if case .ended = $0 { true } else { false } })
    }

    // MARK: - DCEP

    /// Janus takes the lowest free stream whatever its DTLS role (RFC 8832 §6 would give it the other parity): such an
    /// OPEN is accepted on a free stream, and our own channels go round it.
    @Test func anOpenOnAFreeStreamOfOurParityIsAcceptedAndOursGoElsewhere() throws {
        let p = try HostileSctpPeer()
        let out = p.data(stream: 1, ppid: DataChannelPPID.dcep, DcepMessage.open(channelType: 0, priority: 0, reliability: 0,
                                                                                  label: "4242", protocol: "").encoded())
        #expect(out.events.contains(.opened(1, label: "4242", protocol: "")))
        #expect(p.b.openChannels == [0, 1])
        let (mine, _) = try p.b.open(label: "mine", now: p.now)
        #expect(mine == 3, "our next stream of our parity that is free")
        // On a stream in use it is still a duplicate.
        let again = p.data(stream: 3, ppid: DataChannelPPID.dcep, DcepMessage.open(channelType: 0, priority: 0, reliability: 0,
                                                                                    label: "clash", protocol: "").encoded())
        #expect(warned(again, "for open stream 3 ignored"))
        #expect(p.delivers("next"))
    }

    @Test func aDuplicateOpenIsIgnoredAndTheChannelKept() throws {
        let p = try HostileSctpPeer()
        let out = p.data(stream: 0, ppid: DataChannelPPID.dcep, DcepMessage.open(channelType: 0, priority: 0, reliability: 0,
                                                                                  label: "again", protocol: "").encoded())
        #expect(warned(out, "for open stream 0 ignored"))
        #expect(p.b.label(of: 0) == "chat")
        #expect(p.delivers("next"))
    }

    @Test(arguments: [[UInt8]([0x03]), [0x03, 0, 0, 1, 0, 0, 0, 0, 0, 9, 0, 0, 0x61], [0x07, 1, 2], [0x03, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]])
    func malformedDcepIsDropped(payload: [UInt8]) throws {
        let p = try HostileSctpPeer()
        #expect(warned(p.data(stream: 4, ppid: DataChannelPPID.dcep, payload), "malformed DCEP message"))
        #expect(p.b.openChannels == [0])
        #expect(p.delivers("next"))
    }

    @Test func aRawDcepAckChangesNothing() throws {
        let p = try HostileSctpPeer()
        let out = p.data(stream: 6, ppid: DataChannelPPID.dcep, [0x02])
        #expect(out.events.allSatisfy { if case .buffered = $0 { true } else { false } })
        #expect(p.b.openChannels == [0])
        #expect(p.delivers("next"))
    }

    @Test(arguments: [UInt32(52), 54, 99, 0, UInt32.max])
    func dataWithAnUnsupportedPPIDIsDropped(ppid: UInt32) throws {
        let p = try HostileSctpPeer()
        let out = p.data(stream: 0, ppid: ppid, Array("partial".utf8))
        #expect(warned(out, "PPID \(ppid)"))
        #expect(!out.events.contains { if case .message = $0 { true } else { false } })
        #expect(p.delivers("next"))
    }

    @Test func textOnAStreamWithoutAChannelIsDropped() throws {
        let p = try HostileSctpPeer()
        #expect(warned(p.data(stream: 8, Array("nobody".utf8)), "without an open channel"))
        #expect(p.delivers("next"))
    }

    @Test func opensBeyondMaxChannelsAreRefusedAndTheirStreamsReset() throws {
        let p = try HostileSctpPeer { $0.maxChannels = 4 }
        var refused = 0
        for i in 1...10 {
            let out = p.data(stream: UInt16(2 * i), ppid: DataChannelPPID.dcep,
                             DcepMessage.open(channelType: 0, priority: 0, reliability: 0, label: "c\(i)", protocol: "").encoded())
            if warned(out, "4 channels already") { refused += 1 }
        }
        #expect(refused == 7)
        #expect(p.b.openChannels == [0, 2, 4, 6])
        // B resets the refused streams (one request in flight at a time).
        let resetStreams: [UInt16] = p.sent.flatMap { packet in
            packet.chunks.flatMap { chunk -> [UInt16] in
                guard case .reconfig(let params) = chunk else { return [] }
                return params.flatMap { param -> [UInt16] in
                    if case .outgoingReset(_, _, _, let streams) = param { streams } else { [] }
                }
            }
        }
        #expect(resetStreams.contains(8))
        #expect(p.delivers("next"))
    }
}

@Suite struct SctpSeededFuzzTests {
    /// Seeded inputs into an established association (2,000 in the ordinary suite, `CONFTUI_FUZZ_ITERATIONS` with
    /// `make fuzz`): one to four packets of chunks made from valid ones (DATA, SACK, FORWARD TSN, RE-CONFIG,
    /// HEARTBEAT, INIT, COOKIE ECHO, SHUTDOWN, ABORT, unknown types) with random fields and a few random bytes
    /// changed, the tag and the checksum made right. Never a trap; the receive buffer within its window and
    /// reserve; every packet written within a DTLS record.
    @Test func seededFuzzOfChunksIntoAnEstablishedAssociation() throws {
        var rng = SplitMixRandom(seed: 0x5C79)
        for _ in 0..<fuzzIterations(default: 2_000) {
            let p = try HostileSctpPeer()
            let sctp = p.b.configuration.sctp
            let reserve = min(sctp.maxIncomingMessage, sctp.receiveWindow) * 17 / 16
            let base = p.nextTSN
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                var chunks: [SctpChunk] = []
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    chunks.append(Self.chunk(&rng, base: base, peerTSN: p.initialTSNAtB, cookie: p.cookie))
                }
                var bytes = SctpPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: p.tagAtB, chunks: chunks).serialized()
                for _ in 0..<Int.random(in: 0...3, using: &rng) where bytes.count > 12 {
                    bytes[Int.random(in: 12..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                if rng.chance(0.2) { bytes = Array(bytes.prefix(Int.random(in: 12...bytes.count, using: &rng))) }
                let out = p.receive(HostileSctpPeer.withChecksum(bytes))
                #expect(out.transmits.allSatisfy { $0.count <= 16_384 })
                #expect(p.b.association.receiveHeldBytes <= sctp.receiveWindow * 9 / 8 + reserve)
                #expect(p.b.openChannels.count <= p.b.configuration.maxChannels)
                if rng.chance(0.3) {
                    p.now = p.now + .milliseconds(Int64.random(in: 0...3_000, using: &rng))
                    _ = p.b.handleTimeout(now: p.now)
                }
            }
        }
    }

    private static func chunk(_ rng: inout SplitMixRandom, base: UInt32, peerTSN: UInt32, cookie: [UInt8]) -> SctpChunk {
        let tsn = base &+ UInt32.random(in: 0...40, using: &rng) &- 5
        let stream = UInt16.random(in: 0...6, using: &rng)
        switch Int.random(in: 0..<11, using: &rng) {
        case 0, 1, 2:
            let ppid: UInt32 = [50, 51, 52, 53, 54, 56, 57, 99].randomElement(using: &rng)!
            let payload = rng.chance(0.3) ? DcepMessage.open(channelType: 0, priority: 0, reliability: 0, label: "x", protocol: "").encoded()
                : rng.bytes(Int.random(in: 1...1_200, using: &rng))
            return .data(SctpDataChunk(tsn: tsn, stream: stream, ssn: UInt16.random(in: 0...5, using: &rng), ppid: ppid,
                                       unordered: rng.chance(0.2), beginning: rng.chance(0.7), ending: rng.chance(0.7),
                                       immediate: rng.chance(0.1), payload: payload[...]))
        case 3:
            let gaps = (0..<Int.random(in: 0...5, using: &rng)).map { _ -> ClosedRange<UInt16> in
                let start = UInt16.random(in: 1...20, using: &rng)
                return start...(start + UInt16.random(in: 0...5, using: &rng))
            }
            return .sack(SctpSack(cumulativeTSN: peerTSN &+ UInt32.random(in: 0...4, using: &rng) &- 2,
                                  advertisedReceiverWindow: UInt32.random(in: 0...(1 << 21), using: &rng), gaps: gaps,
                                  duplicates: [peerTSN]))
        case 4:
            return .forwardTSN(SctpForwardTSN(newCumulativeTSN: tsn, streams: [(stream: stream, ssn: UInt16.random(in: 0...5, using: &rng))]))
        case 5:
            return .reconfig([.outgoingReset(requestSequence: base &+ UInt32.random(in: 0...3, using: &rng) &- 1000 &+ 999,
                                             responseSequence: 0, lastTSN: tsn, streams: [stream])])
        case 6: return .heartbeat(info: rng.bytes(Int.random(in: 0...64, using: &rng)))
        case 7:
            return .initiate(SctpInit(initiateTag: UInt32.random(in: 0...3, using: &rng), advertisedReceiverWindow: 1000,
                                      outboundStreams: UInt16.random(in: 0...3, using: &rng), inboundStreams: 2, initialTSN: tsn,
                                      forwardTSN: true, extensions: []))
        case 8: return rng.chance(0.5) ? .cookieEcho(cookie: cookie) : .shutdown(cumulativeTSN: tsn)
        case 9: return rng.chance(0.1) ? .abort(reflected: rng.chance(0.5), cause: "fuzz") : .error(cause: "fuzz")
        default:
            return .unknown(type: [0x3F, 0x7F, 0xBF, 0xFF, 0x0F].randomElement(using: &rng)!, flags: 0, value: rng.bytes(Int.random(in: 0...8, using: &rng)))
        }
    }
}

@Suite struct SctpReceiveWindowLivenessTests {
    /// Small messages count 64 bytes each against our window but 16 against the sender's view of it, so a window
    /// filled behind one lost chunk must still take that chunk when it is retransmitted.
    @Test(arguments: [100, 1_000])
    func aLostChunkBehindAFullWindowOfSmallMessagesStillArrives(size: Int) throws {
        let h = SctpPairHarness(seed: 41) { $0.sctp.receiveWindow = 32 * 1024 }
        #expect(h.connect())
        let (id, out) = try h.a.open(label: "x", now: h.now)
        h.apply(out, fromA: true)
        h.run(for: .seconds(1))
        var dropped = false
        h.tamper = { fromA, packet in
            guard fromA, !dropped, case .success(let p) = SctpPacket.parse(packet) else { return [packet] }
            for case .data(let d) in p.chunks where d.payload.first == 0xEE {
                dropped = true
                return []
            }
            return [packet]
        }
        let count = 2_000
        for i in 0..<count {
            var m = [UInt8](repeating: UInt8(i % 200), count: size)
            if i == 300 { m[0] = 0xEE }
            h.apply(try h.a.send(.binary(m), on: id, now: h.now), fromA: true)
        }
        #expect(h.run(for: .seconds(120)) { h.messages("B").count == count })
        #expect(dropped)
        #expect(h.messages("B").count == count)
        #expect(!h.events["A"]!.contains { if case .ended = $0 { true } else { false } })
    }
}
