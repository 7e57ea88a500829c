import EngineTransport
/// One RTCP message of a compound packet. Types conftui does not use (APP, XR, other feedback
/// formats) are skipped by the parser, as RFC 3550 §6.1 asks of receivers.
public enum RTCPPacket: Equatable, Sendable {
    case senderReport(SenderReport)
    case receiverReport(ReceiverReport)
    case sourceDescription(SourceDescription)
    case goodbye(Goodbye)
    case nack(GenericNack)
    case pictureLossIndication(PictureLossIndication)
    case fullIntraRequest(FullIntraRequest)
    case receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate)
    case transportFeedback(TransportFeedback)

    /// Parses a compound (or reduced-size, RFC 5506) RTCP packet. Every sub-packet's length is
    /// checked against the datagram. RFC 3550 §6.4.1 allows padding only on the last one, but libwebrtc pads each
    /// transport feedback message it batches into one datagram (docs/congestion-control.md), so padding is taken
    /// on any sub-packet whose own length holds it.
    public static func parseCompound(_ bytes: [UInt8]) throws(EngineError) -> [RTCPPacket] {
        func bad(_ s: String) -> EngineError { .malformed(what: "RTCP packet", reason: s) }
        guard bytes.count >= RTCPHeader.size else { throw bad("\(bytes.count) bytes") }
        var out: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            var r = ByteReader(bytes, from: offset)
            guard let header = RTCPHeader.parse(&r) else { throw bad("bad header at offset \(offset)") }
            let end = offset + header.packetSize
            guard end <= bytes.count else { throw bad("length \(header.packetSize) overruns the datagram at \(offset)") }
            var bodyEnd = end
            if header.padding {
                let pad = Int(bytes[end - 1])
                guard pad >= 1, pad <= header.packetSize - RTCPHeader.size else { throw bad("padding count \(pad)") }
                bodyEnd -= pad
            }
            var body = ByteReader(bytes, from: offset + RTCPHeader.size, to: bodyEnd)
            if let p = try parseOne(header: header, body: &body, raw: bytes, bodyOffset: offset + RTCPHeader.size) {
                out.append(p)
            }
            offset = end
        }
        return out
    }

    private static func parseOne(header: RTCPHeader, body r: inout ByteReader, raw: [UInt8],
                                 bodyOffset: Int) throws(EngineError) -> RTCPPacket? {
        switch (header.packetType, header.countOrFormat) {
        case (RTCPPacketType.senderReport, _): return .senderReport(try SenderReport.parse(header: header, body: &r))
        case (RTCPPacketType.receiverReport, _): return .receiverReport(try ReceiverReport.parse(header: header, body: &r))
        case (RTCPPacketType.sourceDescription, _):
            return .sourceDescription(try SourceDescription.parse(header: header, body: &r))
        case (RTCPPacketType.goodbye, _): return .goodbye(try Goodbye.parse(header: header, body: &r))
        case (RTCPPacketType.transportFeedback, GenericNack.format): return .nack(try GenericNack.parse(body: &r))
        case (RTCPPacketType.transportFeedback, TransportFeedback.format):
            return .transportFeedback(try TransportFeedback.parse(body: &r))
        case (RTCPPacketType.payloadFeedback, PictureLossIndication.format):
            return .pictureLossIndication(try PictureLossIndication.parse(body: &r))
        case (RTCPPacketType.payloadFeedback, FullIntraRequest.format):
            return .fullIntraRequest(try FullIntraRequest.parse(body: &r))
        case (RTCPPacketType.payloadFeedback, ReceiverEstimatedMaxBitrate.format)
            where ReceiverEstimatedMaxBitrate.matches(body: Array(raw[..<r.end]), at: bodyOffset):
            return .receiverEstimatedMaxBitrate(try ReceiverEstimatedMaxBitrate.parse(body: &r))
        default:
            return nil
        }
    }

    /// The wire form of this one message.
    public func serialized() -> [UInt8] { Self.compound([self]) }

    /// Concatenates messages into one compound packet (RFC 3550 §6.1). The caller decides the
    /// order; a full compound starts with SR/RR and includes SDES CNAME.
    public static func compound(_ packets: [RTCPPacket]) -> [UInt8] {
        var w = WireWriter(capacity: 128)
        for p in packets {
            switch p {
            case .senderReport(let x): x.write(&w)
            case .receiverReport(let x): x.write(&w)
            case .sourceDescription(let x): x.write(&w)
            case .goodbye(let x): x.write(&w)
            case .nack(let x): x.write(&w)
            case .pictureLossIndication(let x): x.write(&w)
            case .fullIntraRequest(let x): x.write(&w)
            case .receiverEstimatedMaxBitrate(let x): x.write(&w)
            case .transportFeedback(let x): x.write(&w)
            }
        }
        return w.bytes
    }
}
