/// A STUN message (RFC 5389 §6): type, transaction id and attributes.
///
/// Decoding is strict about lengths and never traps on hostile input; encoding computes
/// MESSAGE-INTEGRITY and FINGERPRINT last, in that order (§15.4, §15.5).
public struct StunMessage: Equatable, Sendable {
    public var type: StunMessageType
    public var transactionID: TransactionID
    /// In wire order. Decoded messages include `.messageIntegrity`/`.fingerprint`; the encoder ignores those two.
    public var attributes: [StunAttribute]

    /// What MESSAGE-INTEGRITY covered in a decoded message: the bytes before the attribute with the header
    /// length already adjusted (§15.4), and the received MAC.
    private var integrityInput: [UInt8]?
    private var receivedMAC: [UInt8]?
    /// True when a decoded message carried a FINGERPRINT (already verified, else decoding fails).
    public private(set) var hasFingerprint = false

    public static let headerLength = 20

    public init(type: StunMessageType, transactionID: TransactionID, attributes: [StunAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    // MARK: Decoding

    /// RFC 7983 / RFC 5389 §6: the first two bits of every STUN message are zero and the cookie is fixed.
    /// A cheap check for demultiplexing before a full parse.
    public static func looksLikeStun(_ bytes: [UInt8]) -> Bool {
        bytes.count >= headerLength && bytes[0] & 0xC0 == 0
            && bytes[4] == 0x21 && bytes[5] == 0x12 && bytes[6] == 0xA4 && bytes[7] == 0x42
    }

    public init(decoding slice: ArraySlice<UInt8>) throws {
        try self.init(decoding: Array(slice))
    }

    /// Decodes exactly one message occupying the whole datagram.
    public init(decoding bytes: [UInt8]) throws {
        func bad(_ reason: String) -> EngineError { StunAttributeCodec.malformed(reason) }
        var r = ByteReader(bytes)
        guard bytes.count >= Self.headerLength else { throw bad("short header (\(bytes.count) bytes)") }
        let rawType = r.u16()!, length = Int(r.u16()!), cookie = r.u32()!
        guard rawType & 0xC000 == 0 else { throw bad("top bits set") }
        guard cookie == StunAttributeCodec.magicCookie else { throw bad("bad magic cookie") }
        // §6: "the message length MUST contain the size, in bytes, of the message not including the
        // 20-byte STUN header"; all attributes are padded, so it is a multiple of 4.
        guard length % 4 == 0 else { throw bad("length \(length) not a multiple of 4") }
        guard Self.headerLength + length == bytes.count else {
            throw bad("length field \(length) but \(bytes.count - Self.headerLength) bytes follow the header")
        }
        type = StunMessageType(wireValue: rawType)
        transactionID = TransactionID(bytes: r.take(12)!)!
        attributes = []

        var afterIntegrity = false
        while r.remaining > 0 {
            let start = r.offset
            guard let attrType = r.u16(), let attrLength = r.u16().map(Int.init) else { throw bad("truncated attribute header") }
            guard let value = r.take(attrLength) else { throw bad("attribute 0x\(String(attrType, radix: 16)) overruns message") }
            let padding = (4 - attrLength % 4) % 4
            // §15: padding bytes may hold any value and are ignored (RFC 5769 uses spaces).
            guard r.skip(padding) else { throw bad("attribute padding overruns message") }

            if hasFingerprint { throw bad("attribute after FINGERPRINT") }
            if attrType == StunAttribute.Code.fingerprint {
                // §15.5: CRC-32 of the message up to (not including) this attribute, XOR 0x5354554e; the header
                // length already counts the FINGERPRINT attribute because it must be last.
                guard attrLength == 4 else { throw bad("FINGERPRINT length \(attrLength)") }
                var fr = ByteReader(Array(value))
                let received = fr.u32()!
                let computed = CRC32.checksum(bytes[0..<start]) ^ 0x5354_554E
                guard received == computed else { throw bad("FINGERPRINT mismatch") }
                guard r.remaining == 0 else { throw bad("FINGERPRINT is not the last attribute") }
                hasFingerprint = true
                attributes.append(.fingerprint(received))
                continue
            }
            // §15.4: "agents MUST ignore all other attributes that follow MESSAGE-INTEGRITY, with the
            // exception of the FINGERPRINT attribute".
            if afterIntegrity { continue }
            guard let attribute = try StunAttributeCodec.decode(type: attrType, value: value, transactionID: transactionID)
            else { continue }
            if case .messageIntegrity(let mac) = attribute {
                // §15.4: the HMAC input is the message up to the attribute, with the header length field set
                // as if MESSAGE-INTEGRITY were the last attribute.
                var input = Array(bytes[0..<start])
                input.storeBE(UInt16(start - Self.headerLength + 24), at: 2)
                integrityInput = input
                receivedMAC = mac
                afterIntegrity = true
            }
            attributes.append(attribute)
        }
    }

    /// True when the message carried MESSAGE-INTEGRITY and it matches `key`.
    public func verifyIntegrity(key: [UInt8]) -> Bool {
        guard let integrityInput, let receivedMAC else { return false }
        return StunIntegrity.equal(StunIntegrity.hmacSHA1(key: key, data: integrityInput), receivedMAC)
    }

    public var hasIntegrity: Bool { receivedMAC != nil }

    // MARK: Encoding

    /// Encodes the message. With `integrityKey`, appends MESSAGE-INTEGRITY; with `fingerprint`, appends
    /// FINGERPRINT after it. `paddingByte` fills attribute padding (§15: any value; RFC 5769 uses 0x20).
    ///
    /// Refuses (throws `EngineError.invalidArgument`) what the wire cannot carry or the decoder would refuse: an
    /// attribute over its RFC 5389 §15 limit (USERNAME 512 bytes, REALM/NONCE/SOFTWARE/reason 763) or over the
    /// 16-bit attribute length, or a message over the 16-bit message length (§6). Attribute values can come from a
    /// remote party (the USERNAME of a check holds the peer's ufrag), so this never traps.
    public func encode(integrityKey: [UInt8]? = nil, fingerprint: Bool = false, paddingByte: UInt8 = 0) throws(EngineError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out.appendBE(type.wireValue)
        out.appendBE(UInt16(0))
        out.appendBE(StunAttributeCodec.magicCookie)
        out.append(contentsOf: transactionID.bytes)

        func append(type: UInt16, value: [UInt8]) {
            out.appendBE(type)
            out.appendBE(UInt16(value.count))   // fits: `attributeValue` checked it (MESSAGE-INTEGRITY, FINGERPRINT: 20, 4)
            out.append(contentsOf: value)
            let padding = (4 - value.count % 4) % 4
            out.append(contentsOf: repeatElement(paddingByte, count: padding))
        }
        for attribute in attributes {
            switch attribute {
            case .messageIntegrity, .fingerprint: continue
            default: append(type: attribute.typeCode, value: try StunAttributeCodec.attributeValue(attribute, transactionID: transactionID))
            }
        }
        // §6: "The message length MUST contain the size, in bytes, of the message not including the 20-byte STUN
        // header", in 16 bits; MESSAGE-INTEGRITY (24 bytes) and FINGERPRINT (8) still have to fit.
        let trailer = (integrityKey == nil ? 0 : 24) + (fingerprint ? 8 : 0)
        guard out.count - Self.headerLength + trailer <= Int(UInt16.max) else {
            throw .invalidArgument("STUN message of \(out.count - Self.headerLength + trailer) bytes after the header; "
                                   + "the length field (RFC 5389 §6) holds at most \(UInt16.max)")
        }
        if let integrityKey {
            out.storeBE(UInt16(out.count - Self.headerLength + 24), at: 2)
            append(type: StunAttribute.Code.messageIntegrity, value: StunIntegrity.hmacSHA1(key: integrityKey, data: out))
        }
        if fingerprint {
            out.storeBE(UInt16(out.count - Self.headerLength + 8), at: 2)
            var crc: [UInt8] = []
            crc.appendBE(CRC32.checksum(out) ^ 0x5354_554E)
            append(type: StunAttribute.Code.fingerprint, value: crc)
        }
        out.storeBE(UInt16(out.count - Self.headerLength), at: 2)
        return out
    }

    // MARK: Accessors

    public var username: String? { attributes.lazy.compactMap { if case .username(let u) = $0 { u } else { nil } }.first }
    public var priority: UInt32? { attributes.lazy.compactMap { if case .priority(let p) = $0 { p } else { nil } }.first }
    public var useCandidate: Bool { attributes.contains(.useCandidate) }
    public var iceControlling: UInt64? { attributes.lazy.compactMap { if case .iceControlling(let t) = $0 { t } else { nil } }.first }
    public var iceControlled: UInt64? { attributes.lazy.compactMap { if case .iceControlled(let t) = $0 { t } else { nil } }.first }
    public var xorMappedAddress: TransportAddress? {
        attributes.lazy.compactMap { if case .xorMappedAddress(let a) = $0 { a } else { nil } }.first
    }
    public var xorRelayedAddress: TransportAddress? {
        attributes.lazy.compactMap { if case .xorRelayedAddress(let a) = $0 { a } else { nil } }.first
    }
    public var xorPeerAddress: TransportAddress? {
        attributes.lazy.compactMap { if case .xorPeerAddress(let a) = $0 { a } else { nil } }.first
    }
    public var data: [UInt8]? { attributes.lazy.compactMap { if case .data(let d) = $0 { d } else { nil } }.first }
    public var lifetime: UInt32? { attributes.lazy.compactMap { if case .lifetime(let l) = $0 { l } else { nil } }.first }
    public var realm: String? { attributes.lazy.compactMap { if case .realm(let r) = $0 { r } else { nil } }.first }
    public var nonce: String? { attributes.lazy.compactMap { if case .nonce(let n) = $0 { n } else { nil } }.first }
    public var errorCode: StunErrorCode? { attributes.lazy.compactMap { if case .errorCode(let e) = $0 { e } else { nil } }.first }
    /// Comprehension-required attributes this parser does not know (RFC 5389 §7.3.1: a request with any gets 420).
    public var unknownComprehensionRequired: [UInt16] {
        attributes.compactMap { if case .unknown(let t, _) = $0 { t } else { nil } }
    }
}
