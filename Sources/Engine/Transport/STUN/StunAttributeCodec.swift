/// Value encoding and decoding of single attributes. `transactionID` is needed for XOR-MAPPED-ADDRESS over IPv6.
enum StunAttributeCodec {
    static let magicCookie: UInt32 = 0x2112_A442

    static func malformed(_ reason: String) -> EngineError { .malformed(what: "STUN", reason: reason) }

    /// Decodes one attribute value. Returns nil for an unknown comprehension-optional attribute (skipped).
    static func decode(type: UInt16, value: ArraySlice<UInt8>, transactionID: TransactionID) throws -> StunAttribute? {
        let v = Array(value)
        switch type {
        case StunAttribute.Code.mappedAddress:
            return .mappedAddress(try address(v, xor: nil))
        case StunAttribute.Code.xorMappedAddress:
            return .xorMappedAddress(try address(v, xor: transactionID))
        case StunAttribute.Code.username:
            // RFC 5389 §15.3: "MUST contain a UTF-8 encoded sequence of less than 513 bytes".
            return .username(try text(v, max: maxUsernameBytes, name: "USERNAME"))
        case StunAttribute.Code.realm:
            return .realm(try text(v, max: maxTextBytes, name: "REALM"))
        case StunAttribute.Code.nonce:
            return .nonce(try text(v, max: maxTextBytes, name: "NONCE"))
        case StunAttribute.Code.software:
            return .software(try text(v, max: maxTextBytes, name: "SOFTWARE"))
        case StunAttribute.Code.messageIntegrity:
            guard v.count == 20 else { throw malformed("MESSAGE-INTEGRITY length \(v.count)") }
            return .messageIntegrity(v)
        case StunAttribute.Code.fingerprint:
            guard v.count == 4 else { throw malformed("FINGERPRINT length \(v.count)") }
            var r = ByteReader(v)
            return .fingerprint(r.u32()!)
        case StunAttribute.Code.errorCode:
            // RFC 5389 §15.6: 21 reserved bits, 3-bit class (3..6), 8-bit number (0..99), reason phrase.
            guard v.count >= 4 else { throw malformed("ERROR-CODE length \(v.count)") }
            let cls = Int(v[2] & 0x07), number = Int(v[3])
            guard (3...6).contains(cls), number < 100 else { throw malformed("ERROR-CODE \(cls)/\(number)") }
            let reason = try text(Array(v[4...]), max: maxTextBytes, name: "ERROR-CODE reason")
            return .errorCode(StunErrorCode(code: cls * 100 + number, reason: reason)!)
        case StunAttribute.Code.unknownAttributes:
            guard v.count % 2 == 0 else { throw malformed("UNKNOWN-ATTRIBUTES length \(v.count)") }
            var r = ByteReader(v)
            var list: [UInt16] = []
            while let t = r.u16() { list.append(t) }
            return .unknownAttributes(list)
        case StunAttribute.Code.priority:
            guard v.count == 4 else { throw malformed("PRIORITY length \(v.count)") }
            var r = ByteReader(v)
            return .priority(r.u32()!)
        case StunAttribute.Code.useCandidate:
            guard v.isEmpty else { throw malformed("USE-CANDIDATE length \(v.count)") }
            return .useCandidate
        case StunAttribute.Code.iceControlled, StunAttribute.Code.iceControlling:
            guard v.count == 8 else { throw malformed("ICE-CONTROL length \(v.count)") }
            var r = ByteReader(v)
            let tieBreaker = r.u64()!
            return type == StunAttribute.Code.iceControlled ? .iceControlled(tieBreaker) : .iceControlling(tieBreaker)
        case StunAttribute.Code.xorPeerAddress:
            return .xorPeerAddress(try address(v, xor: transactionID))
        case StunAttribute.Code.xorRelayedAddress:
            return .xorRelayedAddress(try address(v, xor: transactionID))
        case StunAttribute.Code.data:
            return .data(v)
        case StunAttribute.Code.channelNumber:
            // RFC 8656 §18.1: a 16-bit channel number followed by 16 RFFU bits. Whether the number is in the
            // channel range is the TURN client's question (it only believes numbers it bound itself).
            guard v.count == 4 else { throw malformed("CHANNEL-NUMBER length \(v.count)") }
            return .channelNumber(UInt16(v[0]) << 8 | UInt16(v[1]))
        case StunAttribute.Code.lifetime:
            guard v.count == 4 else { throw malformed("LIFETIME length \(v.count)") }
            var r = ByteReader(v)
            return .lifetime(r.u32()!)
        case StunAttribute.Code.requestedTransport:
            // RFC 8656 §18.7: the protocol number, then 24 RFFU bits.
            guard v.count == 4 else { throw malformed("REQUESTED-TRANSPORT length \(v.count)") }
            return .requestedTransport(v[0])
        default:
            // RFC 5389 §15: 0x0000-0x7FFF comprehension-required, 0x8000-0xFFFF comprehension-optional.
            return type < 0x8000 ? .unknown(type: type, value: v) : nil
        }
    }

    /// The most bytes a text attribute may hold, the same for the encoder as for the decoder (RFC 5389 §15, see
    /// `RemoteInputLimits`).
    static let maxUsernameBytes = RemoteInputLimits.stunUsernameBytes
    static let maxTextBytes = RemoteInputLimits.stunTextBytes

    /// One attribute's value, refused when it is longer than its RFC 5389 §15 limit or than the 16-bit length
    /// field of the attribute header (§15: "The value in the length field MUST contain the length of the Value part
    /// of the attribute, prior to padding, measured in bytes").
    static func attributeValue(_ attribute: StunAttribute, transactionID: TransactionID) throws(EngineError) -> [UInt8] {
        let value = encodeValue(attribute, transactionID: transactionID)
        let limit: Int = switch attribute {
        case .username: maxUsernameBytes
        case .realm, .nonce, .software: maxTextBytes
        case .errorCode: 4 + maxTextBytes
        default: Int(UInt16.max)
        }
        guard value.count <= limit else {
            throw .invalidArgument("STUN attribute 0x\(String(attribute.typeCode, radix: 16)) of \(value.count) bytes; "
                                   + "RFC 5389 §15 allows at most \(limit)")
        }
        return value
    }

    static func encodeValue(_ attribute: StunAttribute, transactionID: TransactionID) -> [UInt8] {
        var out: [UInt8] = []
        switch attribute {
        case .mappedAddress(let a): out = encodeAddress(a, xor: nil)
        case .xorMappedAddress(let a): out = encodeAddress(a, xor: transactionID)
        case .username(let s), .realm(let s), .nonce(let s), .software(let s): out = Array(s.utf8)
        case .messageIntegrity(let mac): out = mac
        case .errorCode(let e):
            out = [0, 0, UInt8(e.code / 100), UInt8(e.code % 100)] + Array(e.reason.utf8)
        case .unknownAttributes(let list): for t in list { out.appendBE(t) }
        case .priority(let p): out.appendBE(p)
        case .useCandidate: break
        case .iceControlled(let t), .iceControlling(let t): out.appendBE(t)
        case .fingerprint(let f): out.appendBE(f)
        case .channelNumber(let n): out.appendBE(n); out.appendBE(UInt16(0))
        case .lifetime(let seconds): out.appendBE(seconds)
        case .xorPeerAddress(let a), .xorRelayedAddress(let a): out = encodeAddress(a, xor: transactionID)
        case .data(let bytes): out = bytes
        case .requestedTransport(let proto): out = [proto, 0, 0, 0]
        case .unknown(_, let value): out = value
        }
        return out
    }

    private static func text(_ v: [UInt8], max: Int, name: String) throws -> String {
        guard v.count <= max else { throw malformed("\(name) too long (\(v.count))") }
        guard let s = String(validating: v, as: UTF8.self) else { throw malformed("\(name) is not UTF-8") }
        return s
    }

    /// RFC 5389 §15.1/§15.2: family 0x01 (IPv4, 4 bytes) or 0x02 (IPv6, 16 bytes); X-Port is the port XOR the
    /// cookie's top 16 bits; X-Address is XORed with the cookie (IPv4) or cookie ‖ transaction id (IPv6).
    private static func address(_ v: [UInt8], xor tid: TransactionID?) throws -> TransportAddress {
        guard v.count >= 4 else { throw malformed("address length \(v.count)") }
        let family = v[1]
        let expected = family == 0x01 ? 8 : family == 0x02 ? 20 : -1
        guard expected > 0 else { throw malformed("address family \(family)") }
        guard v.count == expected else { throw malformed("address length \(v.count) for family \(family)") }
        var port = UInt16(v[2]) << 8 | UInt16(v[3])
        var raw = Array(v[4...])
        if let tid {
            port ^= UInt16(magicCookie >> 16)
            let mask = xorMask(tid)
            for i in raw.indices { raw[i] ^= mask[i] }
        }
        return TransportAddress(ip: IPAddress(bytes: raw)!, port: port)
    }

    private static func encodeAddress(_ a: TransportAddress, xor tid: TransactionID?) -> [UInt8] {
        var raw = a.ip.bytes
        var port = a.port
        if let tid {
            port ^= UInt16(magicCookie >> 16)
            let mask = xorMask(tid)
            for i in raw.indices { raw[i] ^= mask[i] }
        }
        var out: [UInt8] = [0, a.ip.isIPv4 ? 0x01 : 0x02]
        out.appendBE(port)
        return out + raw
    }

    private static func xorMask(_ tid: TransactionID) -> [UInt8] {
        var mask: [UInt8] = []
        mask.appendBE(magicCookie)
        return mask + tid.bytes
    }
}
