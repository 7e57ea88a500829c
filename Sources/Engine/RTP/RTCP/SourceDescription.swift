import EngineTransport
/// RTCP SDES (RFC 3550 §6.5), PT 202: chunks of (SSRC, items). conftui sends CNAME only and
/// keeps every item it receives.
public struct SourceDescription: Equatable, Sendable {
    public struct Item: Equatable, Sendable {
        public var type: UInt8
        public var value: [UInt8]
        public init(type: UInt8, value: [UInt8]) { self.type = type; self.value = value }
        /// §6.5.1 CNAME.
        public static let cnameType: UInt8 = 1
    }

    public struct Chunk: Equatable, Sendable {
        public var ssrc: SSRC
        public var items: [Item]
        public init(ssrc: SSRC, items: [Item]) { self.ssrc = ssrc; self.items = items }
        public var cname: String? {
            items.first { $0.type == Item.cnameType }.map { String(decoding: $0.value, as: UTF8.self) }
        }
    }

    public var chunks: [Chunk]

    public init(chunks: [Chunk]) { self.chunks = chunks }

    public init(ssrc: SSRC, cname: String) {
        chunks = [Chunk(ssrc: ssrc, items: [Item(type: Item.cnameType, value: Array(cname.utf8.prefix(255)))])]
    }

    static func parse(header: RTCPHeader, body r: inout ByteReader) throws(EngineError) -> SourceDescription {
        func bad(_ s: String) -> EngineError { .malformed(what: "RTCP SDES", reason: s) }
        var chunks: [Chunk] = []
        for _ in 0..<header.countOrFormat {
            let chunkStart = r.offset
            guard let ssrc = r.u32() else { throw bad("truncated chunk") }
            var items: [Item] = []
            while true {
                guard let type = r.u8() else { throw bad("chunk without END item") }
                if type == 0 {
                    // §6.5: the list ends with a null octet, then null padding to the next 32-bit boundary.
                    let used = r.offset - chunkStart
                    guard r.skip((4 - used % 4) % 4) else { throw bad("truncated chunk padding") }
                    break
                }
                guard let len = r.u8(), let value = r.take(Int(len)).map(Array.init) else { throw bad("truncated item") }
                items.append(Item(type: type, value: value))
            }
            chunks.append(Chunk(ssrc: SSRC(ssrc), items: items))
        }
        return SourceDescription(chunks: chunks)
    }

    func write(_ w: inout WireWriter) {
        var body = WireWriter()
        for chunk in chunks.prefix(31) {
            let start = body.count
            body.u32(chunk.ssrc.rawValue)
            for item in chunk.items {
                body.u8(item.type)
                let v = item.value.prefix(255)
                body.u8(UInt8(v.count))
                body.append(Array(v))
            }
            body.u8(0)
            body.zeros((4 - (body.count - start) % 4) % 4)
        }
        RTCPHeader.write(&w, countOrFormat: UInt8(min(chunks.count, 31)), packetType: RTCPPacketType.sourceDescription,
                         bodySize: body.count)
        w.append(body.bytes)
    }
}
