import EngineTestSupport
import Testing
@testable import EngineRTP
@testable import EngineTransport

// Transport-wide congestion control feedback (docs/congestion-control.md): the RTCP message, the receiver that
// builds it, and the header extension that numbers the packets.

private let sender = SSRC(0x0102_0304), media = SSRC(0x0A0B_0C0D)

@Test func feedbackWithEveryKindOfStatusIsWrittenBitForBit() throws {
    // Statuses 1,0,2,2,0 need a two-bit vector: 11 01 00 10 10 00 (padding) = 0xD280. Deltas 1 (one byte), 300 and
    // -4 (two bytes). 16 + 2 + 5 = 23 bytes of body, so one byte of padding with the P bit.
    let fb = TransportFeedback(senderSSRC: sender, mediaSSRC: media, baseSequence: 100, referenceTime: 0x00_0102,
                               feedbackCount: 7, statuses: [.received(deltaTicks: 1), .notReceived, .received(deltaTicks: 300),
                                                            .received(deltaTicks: -4), .notReceived])
    let bytes = RTCPPacket.transportFeedback(fb).serialized()
    #expect(bytes == [0xAF, 205, 0, 6, 1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 0x0D, 0, 100, 0, 5, 0, 1, 2, 7,
                      0xD2, 0x80, 0x01, 0x01, 0x2C, 0xFF, 0xFC, 0x01])
    #expect(fb.wireSize == bytes.count)
    #expect(try RTCPPacket.parseCompound(bytes) == [.transportFeedback(fb)])
}

@Test func longRunsUseRunLengthChunksAndShortMixesUseOneBitVectors() throws {
    // 20 lost, then 3 small-delta arrivals and 2 lost, then a run of 20 small-delta arrivals that ends the report.
    var statuses = Array(repeating: TransportFeedback.PacketStatus.notReceived, count: 20)
    statuses += [.received(deltaTicks: 4), .received(deltaTicks: 0), .received(deltaTicks: 255), .notReceived, .notReceived]
    statuses += Array(repeating: .received(deltaTicks: 2), count: 20)
    let fb = TransportFeedback(senderSSRC: sender, mediaSSRC: media, baseSequence: 65530, referenceTime: 0xFF_FFFF,
                               feedbackCount: 255, statuses: statuses)
    let symbols = statuses.map(\.symbol)
    let chunks = TransportFeedback.chunks(for: symbols)
    // The one-bit vector takes 14 symbols: the 5 mixed ones and the first 9 of the received run; the run-length
    // chunk then carries the remaining 11, which end the report.
    #expect(chunks == [0x0014, 0x8000 | 0b11100_111111111, 0x2000 | 11])
    #expect(try RTCPPacket.parseCompound(RTCPPacket.transportFeedback(fb).serialized()) == [.transportFeedback(fb)])
}

@Test func malformedFeedbackIsRefused() {
    let header: [UInt8] = [1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 0x0D]
    func packet(_ body: [UInt8]) -> [UInt8] {
        let padded = body + Array(repeating: 0, count: (4 - body.count % 4) % 4)
        return [0x8F, 205, 0, UInt8(padded.count / 4)] + padded
    }
    let cases: [(String, [UInt8])] = [
        ("status count 0", header + [0, 1, 0, 0, 0, 0, 0, 0]),
        ("chunks end before the count", header + [0, 1, 0, 40, 0, 0, 0, 0, 0x20, 0x05]),
        ("run of reserved symbol 3", header + [0, 1, 0, 1, 0, 0, 0, 0, 0x60, 0x01]),
        ("run length 0", header + [0, 1, 0, 1, 0, 0, 0, 0, 0x20, 0x00]),
        ("vector with symbol 3", header + [0, 1, 0, 1, 0, 0, 0, 0, 0xF0, 0x00]),
        ("missing small delta", header + [0, 1, 0, 4, 0, 0, 0, 0, 0x20, 0x04, 1, 2]),
        ("missing large delta", header + [0, 1, 0, 2, 0, 0, 0, 0, 0xE8, 0x00, 0xFF, 0xFF]),
    ]
    for (name, body) in cases {
        #expect(throws: EngineError.self, "\(name)") { try RTCPPacket.parseCompound(packet(body)) }
    }
}

@Test func aHugeRunIsBoundedByTheStatusCount() throws {
    // A run chunk of 8191 in a message that counts 3 statuses adds 3, not 8191.
    let body: [UInt8] = [1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 0x0D, 0, 1, 0, 3, 0, 0, 0, 0, 0x3F, 0xFF, 1, 2, 3, 0]
    let parsed = try RTCPPacket.parseCompound([0x8F, 205, 0, 6] + body + [0, 0])
    guard case .transportFeedback(let fb)? = parsed.first else { Issue.record("not parsed"); return }
    #expect(fb.statuses == [.received(deltaTicks: 1), .received(deltaTicks: 2), .received(deltaTicks: 3)])
}

@Test func paddedFeedbackBatchedBeforeAnotherMessageIsAccepted() throws {
    // libwebrtc batches several padded transport feedback messages into one datagram.
    let fb = TransportFeedback(senderSSRC: sender, mediaSSRC: media, baseSequence: 1, referenceTime: 0, feedbackCount: 0,
                               statuses: [.received(deltaTicks: 1)])
    let one = RTCPPacket.transportFeedback(fb).serialized()
    #expect(one[0] & 0x20 != 0)
    #expect(try RTCPPacket.parseCompound(one + one) == [.transportFeedback(fb), .transportFeedback(fb)])
}

// MARK: the builder

private func ms(_ v: Double) -> TransportTime { TransportTime(nanoseconds: Int64(v * 1_000_000)) }

/// Arrival times back from reports, as a sender reconstructs them (reference time plus accumulated deltas).
private func arrivals(in reports: [TransportFeedback]) -> [UInt16: Int64] {
    var out: [UInt16: Int64] = [:]
    for r in reports {
        var t = Int64(r.referenceTime) * TransportFeedback.referenceTimeUnit.nanoseconds
        for (i, s) in r.statuses.enumerated() {
            guard case .received(let d) = s else { continue }
            t += Int64(d) * TransportFeedback.tick.nanoseconds
            out[r.baseSequence &+ UInt16(i)] = t
        }
    }
    return out
}

@Test func everyArrivalIsReportedOnceTo250Microseconds() throws {
    var b = TransportFeedbackBuilder(senderSSRC: sender)
    var expected: [UInt16: Int64] = [:]
    var rng = SplitMixRandom(seed: 7)
    var t = 1000.0
    var reports: [TransportFeedback] = []
    for seq in UInt16(65000)...UInt16(65535) where seq % 7 != 3 {
        t += Double(rng.next() % 3000) / 1000   // 0 to 3 ms apart
        b.record(sequence: seq, mediaSSRC: media, arrival: ms(t))
        expected[seq] = ms(t).nanoseconds
        if seq % 100 == 0 { reports += b.poll() }
    }
    for seq in UInt16(0)...UInt16(200) { t += 0.5; b.record(sequence: seq, mediaSSRC: media, arrival: ms(t)); expected[seq] = ms(t).nanoseconds }
    reports += b.poll()
    #expect(b.poll().isEmpty)
    let got = arrivals(in: reports)
    #expect(Set(got.keys) == Set(expected.keys))
    for (seq, at) in expected { #expect(abs(got[seq]! - at) <= 125_000, "seq \(seq)") }
    // Numbers that never arrived are reported as such, inside the reports.
    let lost = reports.flatMap { r in r.statuses.enumerated().compactMap { $0.element == .notReceived ? r.baseSequence &+ UInt16($0.offset) : nil } }
    #expect(!lost.isEmpty && lost.allSatisfy { $0 % 7 == 3 })
    #expect(reports.allSatisfy { $0.statuses.count <= TransportFeedbackBuilder.maxStatusesPerMessage && $0.wireSize <= 1200 })
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $1.feedbackCount == $0.feedbackCount &+ 1 })
}

@Test func aGapLongerThanSixteenBitsOfTicksStartsANewMessage() throws {
    var b = TransportFeedbackBuilder(senderSSRC: sender)
    b.record(sequence: 10, mediaSSRC: media, arrival: ms(5))
    b.record(sequence: 11, mediaSSRC: media, arrival: ms(5 + 9000))   // 36000 ticks: more than Int16 holds
    let reports = b.poll()
    #expect(reports.count == 2)
    let got = arrivals(in: reports)
    #expect(got[10] == ms(5).nanoseconds && got[11] == ms(9005).nanoseconds)
}

@Test func reorderedArrivalsGetNegativeDeltasAndLateOnesAreDropped() throws {
    var b = TransportFeedbackBuilder(senderSSRC: sender)
    b.record(sequence: 1, mediaSSRC: media, arrival: ms(100))
    b.record(sequence: 3, mediaSSRC: media, arrival: ms(101))
    b.record(sequence: 2, mediaSSRC: media, arrival: ms(102))
    let first = b.poll()
    #expect(arrivals(in: first) == [1: ms(100).nanoseconds, 2: ms(102).nanoseconds, 3: ms(101).nanoseconds])
    b.record(sequence: 0, mediaSSRC: media, arrival: ms(103))   // older than the last report: not reported again
    #expect(b.poll().isEmpty)
}

@Test func aHostileJumpKeepsTheWindowBounded() throws {
    var b = TransportFeedbackBuilder(senderSSRC: sender)
    var seq: UInt16 = 0
    for i in 0..<2000 {
        seq &+= 30000   // a jump forward the unwrapper accepts, every packet
        b.record(sequence: seq, mediaSSRC: media, arrival: ms(Double(i)))
    }
    let reports = b.poll()
    let statuses = reports.reduce(0) { $0 + $1.statuses.count }
    #expect(statuses <= Int(TransportFeedbackBuilder.maxWindow))
}

// MARK: the header extension

@Test func theSequenceNumberIsStampedInPlaceInBothExtensionForms() throws {
    for (other, id) in [(RTPHeaderExtensionElement(id: 1, data: Array("0".utf8)), UInt8(3)),
                        (RTPHeaderExtensionElement(id: 1, data: Array(repeating: 7, count: 20)), UInt8(3))] {
        let packet = RTPPacket(payloadType: PayloadType(rawValue: 96)!, sequenceNumber: SequenceNumber(9), timestamp: 1,
                               ssrc: media, csrcs: [SSRC(5)],
                               headerExtensions: .elements([other, TransportWideSequenceNumber.placeholder(id: id)]),
                               payload: [1, 2, 3])
        var bytes = packet.serialized()
        #expect(TransportWideSequenceNumber.stamp(0xBEEF, id: id, in: &bytes))
        let parsed = try RTPPacket.parse(bytes)
        #expect(TransportWideSequenceNumber.read(from: parsed, id: id) == 0xBEEF)
        #expect(parsed.payload == [1, 2, 3] && parsed.headerExtensions?.element(id: 1) == other.data)
        var unchanged = bytes
        #expect(!TransportWideSequenceNumber.stamp(1, id: 4, in: &unchanged))
        #expect(unchanged == bytes)
    }
}

@Test func stampingNeverTrapsOnAnyPrefixOrRandomBytes() {
    let packet = RTPPacket(payloadType: PayloadType(rawValue: 96)!, sequenceNumber: SequenceNumber(9), timestamp: 1, ssrc: media,
                           headerExtensions: .elements([TransportWideSequenceNumber.placeholder(id: 3)]), payload: [1])
    let bytes = packet.serialized()
    for n in 0..<bytes.count {
        var prefix = Array(bytes.prefix(n))
        _ = TransportWideSequenceNumber.stamp(1, id: 3, in: &prefix)
    }
    var rng = SplitMixRandom(seed: 11)
    for _ in 0..<20_000 {
        var random = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        if !random.isEmpty { random[0] = 0x90 | (random[0] & 0x0F) }
        _ = TransportWideSequenceNumber.stamp(1, id: UInt8(rng.next() % 15), in: &random)
    }
}
