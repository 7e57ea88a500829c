import Testing
@testable import EngineTransport

/// Hostile input: truncation at every offset, corrupted fields, and a seeded random fuzz.
@Suite struct StunRobustnessTests {
    static let vectors = [RFC5769.request, RFC5769.ipv4Response, RFC5769.ipv6Response, RFC5769.longTermRequest]

    @Test func truncationAtEveryOffsetIsRejected() {
        for vector in Self.vectors {
            for cut in 0..<vector.count {
                #expect(throws: EngineError.self) { try StunMessage(decoding: Array(vector[0..<cut])) }
            }
        }
    }

    @Test func everySingleBitFlipIsRejectedOrDetected() throws {
        // FINGERPRINT covers every byte before it; a flip there is a mismatch, a flip elsewhere breaks
        // the structure or the CRC value itself. None may decode to a message with a valid fingerprint.
        let vector = RFC5769.request
        for i in 0..<vector.count {
            for bit in 0..<8 {
                var v = vector
                v[i] ^= 1 << bit
                let m = try? StunMessage(decoding: v)
                if (100...101).contains(i) {
                    // The flip turned FINGERPRINT's type into another attribute after MESSAGE-INTEGRITY, which
                    // §15.4 says to ignore: the message must then decode as having no fingerprint.
                    #expect(m == nil || m?.hasFingerprint == false)
                } else {
                    #expect(m == nil, "flip at byte \(i) bit \(bit) went unnoticed")
                }
            }
        }
    }

    @Test func fingerprintMustBeLast() {
        var m = RFC5769.request
        // Append a USE-CANDIDATE after FINGERPRINT and fix the length field.
        m += [0x00, 0x25, 0x00, 0x00]
        m.storeBE(UInt16(m.count - 20), at: 2)
        #expect(throws: EngineError.self) { try StunMessage(decoding: m) }
    }

    @Test func lengthFieldMustMatchDatagram() {
        var m = RFC5769.ipv4Response
        m += [0, 0, 0, 0]
        #expect(throws: EngineError.self) { try StunMessage(decoding: m) }
        var odd = RFC5769.ipv4Response
        odd[3] = 0x3D
        #expect(throws: EngineError.self) { try StunMessage(decoding: odd) }
    }

    @Test func unknownAttributesSkippedOrReported() throws {
        let tid = TransactionID(bytes: RFC5769.TransactionIDBytes.standard)!
        let m = StunMessage(type: .bindingRequest, transactionID: tid, attributes: [
            .unknown(type: 0xC001, value: [1, 2, 3]), .unknown(type: 0x0042, value: [9]), .username("a:b"),
        ])
        let decoded = try StunMessage(decoding: m.encode(fingerprint: true))
        // RFC 5389 §7.3: comprehension-optional unknowns are ignored; comprehension-required ones are reported.
        #expect(decoded.unknownComprehensionRequired == [0x0042])
        #expect(decoded.username == "a:b")
        #expect(!decoded.attributes.contains(.unknown(type: 0xC001, value: [1, 2, 3])))
    }

    @Test func attributesAfterIntegrityAreIgnored() throws {
        let tid = TransactionID(bytes: RFC5769.TransactionIDBytes.standard)!
        var bytes = try StunMessage(type: .bindingRequest, transactionID: tid, attributes: [.username("u:v")])
            .encode(integrityKey: [1, 2, 3])
        bytes += [0x00, 0x25, 0x00, 0x00]   // USE-CANDIDATE smuggled after MESSAGE-INTEGRITY
        bytes.storeBE(UInt16(bytes.count - 20), at: 2)
        let m = try StunMessage(decoding: bytes)
        #expect(!m.useCandidate)
        #expect(m.verifyIntegrity(key: [1, 2, 3]))
    }

    @Test func everyAttributeRoundTrips() throws {
        var rng = SplitMixRandom(seed: 7)
        let attributes: [StunAttribute] = [
            .mappedAddress(TransportAddress("10.1.2.3:4000")!), .xorMappedAddress(TransportAddress("[fe80::1]:9")!),
            .xorMappedAddress(TransportAddress("203.0.113.9:65535")!), .username("ufragA:ufragB"),
            .errorCode(.roleConflict), .errorCode(StunErrorCode(code: 699, reason: "")!), .unknownAttributes([0x0042, 0x0043]),
            .realm("r"), .nonce("nonce-value"), .software("conftui"), .priority(2_130_706_431), .useCandidate,
            .iceControlled(.max), .iceControlling(1),
        ]
        for _ in 0..<50 {
            let picked = attributes.filter { _ in rng.chance(0.5) }
            let m = StunMessage(type: .bindingRequest, transactionID: .random(using: &rng), attributes: picked)
            let key = rng.bytes(Int.random(in: 0...40, using: &rng))
            let decoded = try StunMessage(decoding: m.encode(integrityKey: key, fingerprint: true))
            #expect(decoded.attributes.filter { if case .messageIntegrity = $0 { false } else if case .fingerprint = $0 { false } else { true } } == picked)
            #expect(decoded.verifyIntegrity(key: key))
            #expect(decoded.hasFingerprint)
        }
    }

    /// 100,000 seeded inputs: half pure noise behind a valid header (so the attribute walker is reached),
    /// half mutations of the RFC 5769 vectors. Decoding must never trap; whatever decodes must re-encode and
    /// decode to the same attributes.
    @Test func seededFuzzNeverCrashes() throws {
        var rng = SplitMixRandom(seed: 0x5354_554E)
        var decodedCount = 0
        let inputs = 100_000
        for i in 0..<inputs {
            var input: [UInt8]
            if i % 2 == 0 {
                let bodyLength = Int.random(in: 0...15, using: &rng) * 4
                input = [0x00, 0x01, 0, UInt8(bodyLength), 0x21, 0x12, 0xA4, 0x42] + rng.bytes(12)
                var body: [UInt8] = []
                while body.count < bodyLength {
                    // Plausible attribute headers with random types among known ones and random lengths.
                    let known: [UInt16] = [0x0001, 0x0006, 0x0008, 0x0009, 0x000A, 0x0014, 0x0020, 0x0024, 0x0025, 0x8022, 0x8028, 0x8029, 0x802A, 0x7777, 0xC0DE]
                    body += [0, 0]
                    body.storeBE(known.randomElement(using: &rng)!, at: body.count - 2)
                    body += [0, UInt8.random(in: 0...24, using: &rng)]
                    body += rng.bytes(Int.random(in: 0...24, using: &rng))
                }
                input += body.prefix(bodyLength)
                if rng.chance(0.1) { input = Array(input.prefix(Int.random(in: 0...input.count, using: &rng))) }
            } else {
                input = Self.vectors[i % Self.vectors.count]
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    input[Int.random(in: 0..<input.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            guard let m = try? StunMessage(decoding: input) else { continue }
            decodedCount += 1
            let again = try StunMessage(decoding: m.encode())
            #expect(again.type == m.type && again.transactionID == m.transactionID)
            let strip: (StunAttribute) -> Bool = { if case .messageIntegrity = $0 { false } else if case .fingerprint = $0 { false } else { true } }
            #expect(again.attributes.filter(strip) == m.attributes.filter(strip))
        }
        // The generator must actually reach the success path, else the round-trip half proves nothing.
        #expect(decodedCount > 1000)
        print("STUN fuzz: \(inputs) inputs, \(decodedCount) decoded and round-tripped")
    }
}
