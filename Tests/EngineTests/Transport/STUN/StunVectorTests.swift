import Testing
@testable import EngineTransport

/// RFC 5769 vectors: decode, verify MESSAGE-INTEGRITY / FINGERPRINT, and re-encode byte for byte.
@Suite struct StunVectorTests {
    let tid = TransactionID(bytes: RFC5769.TransactionIDBytes.standard)!

    @Test func sampleRequestDecodesAndVerifies() throws {
        let m = try StunMessage(decoding: RFC5769.request)
        #expect(m.type == .bindingRequest)
        #expect(m.transactionID == tid)
        #expect(m.username == "evtj:h6vY")
        #expect(m.priority == 0x6E00_01FF)
        #expect(m.iceControlled == 0x932F_F9B1_5126_3B36)
        #expect(m.attributes.first == .software("STUN test client"))
        #expect(m.hasFingerprint)
        #expect(m.verifyIntegrity(key: StunIntegrity.shortTermKey(password: RFC5769.shortTermPassword)))
        #expect(!m.verifyIntegrity(key: StunIntegrity.shortTermKey(password: "VOkJxbRl1RmTxUk/WvJxBT")))
    }

    @Test func sampleRequestReencodesExactly() throws {
        let m = StunMessage(type: .bindingRequest, transactionID: tid, attributes: [
            .software("STUN test client"), .priority(0x6E00_01FF), .iceControlled(0x932F_F9B1_5126_3B36), .username("evtj:h6vY"),
        ])
        let bytes = try m.encode(integrityKey: StunIntegrity.shortTermKey(password: RFC5769.shortTermPassword),
                             fingerprint: true, paddingByte: 0x20)
        #expect(bytes == RFC5769.request)
    }

    @Test func ipv4ResponseDecodesAndReencodes() throws {
        let m = try StunMessage(decoding: RFC5769.ipv4Response)
        #expect(m.type == .bindingSuccess)
        #expect(m.xorMappedAddress == TransportAddress("192.0.2.1:32853"))
        #expect(m.verifyIntegrity(key: StunIntegrity.shortTermKey(password: RFC5769.shortTermPassword)))
        let again = try StunMessage(type: .bindingSuccess, transactionID: tid, attributes: [
            .software("test vector"), .xorMappedAddress(TransportAddress("192.0.2.1:32853")!),
        ]).encode(integrityKey: StunIntegrity.shortTermKey(password: RFC5769.shortTermPassword), fingerprint: true, paddingByte: 0x20)
        #expect(again == RFC5769.ipv4Response)
    }

    @Test func ipv6ResponseDecodesAndReencodes() throws {
        let m = try StunMessage(decoding: RFC5769.ipv6Response)
        let expected = TransportAddress("[2001:db8:1234:5678:11:2233:4455:6677]:32853")!
        #expect(m.xorMappedAddress == expected)
        #expect(m.verifyIntegrity(key: StunIntegrity.shortTermKey(password: RFC5769.shortTermPassword)))
        let again = try StunMessage(type: .bindingSuccess, transactionID: tid, attributes: [
            .software("test vector"), .xorMappedAddress(expected),
        ]).encode(integrityKey: StunIntegrity.shortTermKey(password: RFC5769.shortTermPassword), fingerprint: true, paddingByte: 0x20)
        #expect(again == RFC5769.ipv6Response)
    }

    @Test func longTermRequestVerifiesWithMD5Key() throws {
        let m = try StunMessage(decoding: RFC5769.longTermRequest)
        #expect(m.username == RFC5769.longTermUsername)
        #expect(m.attributes.contains(.nonce(RFC5769.nonce)))
        #expect(m.attributes.contains(.realm(RFC5769.realm)))
        #expect(!m.hasFingerprint)
        let key = StunIntegrity.longTermKey(username: RFC5769.longTermUsername, realm: RFC5769.realm, password: RFC5769.longTermPassword)
        #expect(m.verifyIntegrity(key: key))
        #expect(!m.verifyIntegrity(key: StunIntegrity.shortTermKey(password: RFC5769.longTermPassword)))
        let again = try StunMessage(type: .bindingRequest, transactionID: TransactionID(bytes: RFC5769.TransactionIDBytes.longTerm)!,
                                attributes: [.username(RFC5769.longTermUsername), .nonce(RFC5769.nonce), .realm(RFC5769.realm)])
            .encode(integrityKey: key)
        #expect(again == RFC5769.longTermRequest)
    }

    @Test func crcCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func messageTypeBitsInterleave() {
        #expect(StunMessageType.bindingRequest.wireValue == 0x0001)
        #expect(StunMessageType.bindingSuccess.wireValue == 0x0101)
        #expect(StunMessageType.bindingError.wireValue == 0x0111)
        #expect(StunMessageType.bindingIndication.wireValue == 0x0011)
        for raw in UInt16(0)...0x3FFF {
            #expect(StunMessageType(wireValue: raw).wireValue == raw)
        }
    }
}
