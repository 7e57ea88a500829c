/// DCEP messages (RFC 8832 §5) and the payload protocol identifiers of data channels (RFC 8831 §8).
enum DataChannelPPID {
    static let dcep: UInt32 = 50
    static let string: UInt32 = 51
    static let binaryPartial: UInt32 = 52
    static let binary: UInt32 = 53
    static let stringPartial: UInt32 = 54
    static let emptyString: UInt32 = 56
    static let emptyBinary: UInt32 = 57
}

enum DcepMessage: Equatable {
    /// DATA_CHANNEL_OPEN: channel type (0x00 reliable ordered; the 0x80 bit is unordered, the low bits partial
    /// reliability), priority, reliability parameter, label and protocol.
    case open(channelType: UInt8, priority: UInt16, reliability: UInt32, label: String, protocol: String)
    case ack

    static let openType: UInt8 = 0x03
    static let ackType: UInt8 = 0x02

    static func parse(_ bytes: [UInt8]) -> DcepMessage? {
        var r = ByteReader(bytes)
        switch r.u8() {
        case ackType: return .ack
        case openType:
            guard let type = r.u8(), let priority = r.u16(), let reliability = r.u32(), let labelLength = r.u16(),
                  let protocolLength = r.u16(), let label = r.take(Int(labelLength)), let proto = r.take(Int(protocolLength)) else {
                return nil
            }
            return .open(channelType: type, priority: priority, reliability: reliability,
                         label: String(decoding: label, as: UTF8.self), protocol: String(decoding: proto, as: UTF8.self))
        default: return nil
        }
    }

    func encoded() -> [UInt8] {
        switch self {
        case .ack: return [Self.ackType]
        case .open(let type, let priority, let reliability, let label, let proto):
            let l = Array(label.utf8.prefix(Int(UInt16.max))), p = Array(proto.utf8.prefix(Int(UInt16.max)))
            var out: [UInt8] = [Self.openType, type]
            out.appendBE(priority); out.appendBE(reliability)
            out.appendBE(UInt16(l.count)); out.appendBE(UInt16(p.count))
            return out + l + p
        }
    }
}
