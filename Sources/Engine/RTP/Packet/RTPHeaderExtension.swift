import EngineTransport
/// One RFC 8285 header extension element: a local id (negotiated by `a=extmap`) and its bytes.
public struct RTPHeaderExtensionElement: Equatable, Sendable {
    public var id: UInt8
    public var data: [UInt8]
    public init(id: UInt8, data: [UInt8]) { self.id = id; self.data = data }

    /// RFC 8285 §4.2: the one-byte form carries ids 1...14 and 1...16 bytes of data.
    var fitsOneByteForm: Bool { (1...14).contains(id) && (1...16).contains(data.count) }
}

/// The header extension block of an RTP packet (RFC 3550 §5.3.1, RFC 8285 §4).
public enum RTPHeaderExtensions: Equatable, Sendable {
    /// RFC 8285 elements (the writer uses the one-byte form 0xBEDE when every element fits it,
    /// otherwise the two-byte form 0x100x).
    case elements([RTPHeaderExtensionElement])
    /// A profile that is not RFC 8285: kept verbatim so a packet round-trips.
    case other(profile: UInt16, data: [UInt8])

    static let oneByteProfile: UInt16 = 0xBEDE
    /// RFC 8285 §4.3: "0x100" followed by 4 application bits.
    static let twoByteProfileMask: UInt16 = 0xFFF0
    static let twoByteProfile: UInt16 = 0x1000

    public var elements: [RTPHeaderExtensionElement] {
        if case .elements(let e) = self { return e }
        return []
    }

    /// The data of the element with `id`, if present.
    public func element(id: UInt8) -> [UInt8]? { elements.first { $0.id == id }?.data }

    static func parse(profile: UInt16, body: [UInt8]) throws(EngineError) -> RTPHeaderExtensions {
        if profile == oneByteProfile { return .elements(try parseOneByte(body)) }
        if profile & twoByteProfileMask == twoByteProfile { return .elements(try parseTwoByte(body)) }
        return .other(profile: profile, data: body)
    }

    /// RFC 8285 §4.2: ID 4 bits, L 4 bits (length - 1); ID 0 is padding; ID 15 stops parsing.
    private static func parseOneByte(_ body: [UInt8]) throws(EngineError) -> [RTPHeaderExtensionElement] {
        var out: [RTPHeaderExtensionElement] = []
        var i = 0
        while i < body.count {
            let b = body[i]
            let id = b >> 4
            if id == 0 { i += 1; continue }          // padding byte
            if id == 15 { break }                     // "the local identifier value 15 is reserved ... stop"
            let len = Int(b & 0x0F) + 1
            guard i + 1 + len <= body.count else {
                throw .malformed(what: "RTP header extension", reason: "one-byte element \(id) overruns the block")
            }
            out.append(.init(id: id, data: Array(body[(i + 1)..<(i + 1 + len)])))
            i += 1 + len
        }
        return out
    }

    /// RFC 8285 §4.3: ID byte, length byte (0 allowed); ID 0 is padding.
    private static func parseTwoByte(_ body: [UInt8]) throws(EngineError) -> [RTPHeaderExtensionElement] {
        var out: [RTPHeaderExtensionElement] = []
        var i = 0
        while i < body.count {
            let id = body[i]
            if id == 0 { i += 1; continue }
            guard i + 1 < body.count else {
                throw .malformed(what: "RTP header extension", reason: "two-byte element \(id) has no length")
            }
            let len = Int(body[i + 1])
            guard i + 2 + len <= body.count else {
                throw .malformed(what: "RTP header extension", reason: "two-byte element \(id) overruns the block")
            }
            out.append(.init(id: id, data: Array(body[(i + 2)..<(i + 2 + len)])))
            i += 2 + len
        }
        return out
    }

    /// Profile and body padded to 32 bits.
    func encoded() -> (profile: UInt16, body: [UInt8]) {
        switch self {
        case .other(let profile, let data):
            return (profile, data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4))
        case .elements(let elements):
            var body: [UInt8] = []
            let profile: UInt16
            if elements.allSatisfy(\.fitsOneByteForm) {
                profile = Self.oneByteProfile
                for e in elements {
                    body.append(e.id << 4 | UInt8(e.data.count - 1))
                    body.append(contentsOf: e.data)
                }
            } else {
                profile = Self.twoByteProfile
                for e in elements {
                    body.append(e.id)
                    body.append(UInt8(truncatingIfNeeded: min(e.data.count, 255)))
                    body.append(contentsOf: e.data.prefix(255))
                }
            }
            body.append(contentsOf: [UInt8](repeating: 0, count: (4 - body.count % 4) % 4))
            return (profile, body)
        }
    }
}

/// The header extensions conftui knows by name (URIs from `a=extmap`), mapped to the local ids
/// the SDP negotiated. Other extensions are parsed as elements and ignored.
public struct RTPHeaderExtensionMap: Equatable, Sendable {
    /// RFC 8843 §15.1: the MID as ASCII, used to route BUNDLEd packets.
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// abs-send-time (webrtc.org): 24-bit 6.18 fixed-point seconds; tolerated, not used.
    public static let absSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"

    public var ids: [String: UInt8]

    public init(ids: [String: UInt8] = [:]) { self.ids = ids }

    public var midId: UInt8? { ids[Self.midURI] }

    /// The MID carried by `packet`, if the extension is negotiated and present.
    public func mid(of packet: RTPPacket) -> Mid? {
        guard let id = midId, let data = packet.headerExtensions?.element(id: id), !data.isEmpty else { return nil }
        return Mid(rawValue: String(decoding: data, as: UTF8.self))
    }
}
