/// An SCTP packet (RFC 9260 §3): the common header and its chunks, parsed and written. Every length and count
/// is checked against the bytes that are there: these packets come from a peer.
struct SctpPacket: Equatable, Sendable {
    var sourcePort: UInt16
    var destinationPort: UInt16
    var verificationTag: UInt32
    var chunks: [SctpChunk]

    static let headerSize = 12
    /// A packet cannot usefully hold more chunks than this (a 1,200-byte packet of 4-byte chunks is 297); more is
    /// a hostile packet, refused before the array grows.
    static let maxChunks = 400

    enum ParseError: Error, Equatable, CustomStringConvertible {
        case tooShort, badChecksum, badChunk(String), tooManyChunks
        var description: String {
            switch self {
            case .tooShort: "shorter than the common header"
            case .badChecksum: "CRC32c mismatch"
            case .badChunk(let why): "bad chunk: \(why)"
            case .tooManyChunks: "more than \(SctpPacket.maxChunks) chunks"
            }
        }
    }

    static func parse(_ bytes: [UInt8]) -> Result<SctpPacket, ParseError> {
        guard bytes.count >= headerSize else { return .failure(.tooShort) }
        // RFC 9260 §6.8: the checksum covers the packet with its own field zeroed; it is stored little-endian in
        // practice (as every stack computes it over the raw field).
        let stored = UInt32(bytes[8]) | UInt32(bytes[9]) << 8 | UInt32(bytes[10]) << 16 | UInt32(bytes[11]) << 24
        var zeroed = bytes
        zeroed[8] = 0; zeroed[9] = 0; zeroed[10] = 0; zeroed[11] = 0
        guard Crc32c.checksum(zeroed) == stored else { return .failure(.badChecksum) }
        var r = ByteReader(bytes)
        guard let src = r.u16(), let dst = r.u16(), let tag = r.u32(), r.skip(4) else { return .failure(.tooShort) }
        var chunks: [SctpChunk] = []
        while r.remaining > 0 {
            guard chunks.count < maxChunks else { return .failure(.tooManyChunks) }
            guard let type = r.u8(), let flags = r.u8(), let length = r.u16() else {
                return .failure(.badChunk("truncated header"))
            }
            let valueLength = Int(length) - 4
            guard valueLength >= 0, let value = r.take(valueLength) else {
                return .failure(.badChunk("length \(length) beyond the packet"))
            }
            // Padding to four bytes; the last chunk's padding may be missing (RFC 9260 §3.2 says the sender adds it,
            // but a lenient reader loses nothing).
            _ = r.skip(min((4 - valueLength % 4) % 4, r.remaining))
            switch decodeChunk(type: type, flags: flags, value: Array(value)) {
            case .success(let chunk): chunks.append(chunk)
            case .failure(let why): return .failure(why)
            }
        }
        return .success(SctpPacket(sourcePort: src, destinationPort: dst, verificationTag: tag, chunks: chunks))
    }

    private static func decodeChunk(type: UInt8, flags: UInt8, value: [UInt8]) -> Result<SctpChunk, ParseError> {
        var r = ByteReader(value)
        typealias T = SctpChunk.TypeCode
        switch type {
        case T.data:
            guard let tsn = r.u32(), let stream = r.u16(), let ssn = r.u16(), let ppid = r.u32() else {
                return .failure(.badChunk("DATA shorter than 16 bytes"))
            }
            // RFC 9260 §3.3.1: a DATA chunk with no user data is a protocol violation.
            guard r.remaining > 0 else { return .failure(.badChunk("DATA without user data")) }
            return .success(.data(SctpDataChunk(tsn: tsn, stream: stream, ssn: ssn, ppid: ppid, unordered: flags & 0x04 != 0,
                                                beginning: flags & 0x02 != 0, ending: flags & 0x01 != 0,
                                                immediate: flags & 0x08 != 0, payload: value[12...])))
        case T.initiate, T.initiateAck:
            guard let tag = r.u32(), let rwnd = r.u32(), let os = r.u16(), let mis = r.u16(), let tsn = r.u32() else {
                return .failure(.badChunk("INIT shorter than 20 bytes"))
            }
            var info = SctpInit(initiateTag: tag, advertisedReceiverWindow: rwnd, outboundStreams: os, inboundStreams: mis,
                                initialTSN: tsn, forwardTSN: false, extensions: [])
            var cookie: [UInt8]?
            var count = 0
            while r.remaining >= 4 {
                count += 1
                guard count <= 64 else { return .failure(.badChunk("more than 64 INIT parameters")) }
                guard let ptype = r.u16(), let plen = r.u16(), plen >= 4, let pvalue = r.take(Int(plen) - 4) else {
                    return .failure(.badChunk("INIT parameter beyond the chunk"))
                }
                _ = r.skip(min((4 - Int(plen) % 4) % 4, r.remaining))
                switch ptype {
                case 0xC000: info.forwardTSN = true
                case 0x8008: info.extensions = Array(pvalue)
                case 7: cookie = Array(pvalue)
                default: break   // IPv4/IPv6 addresses, ECN, random/auth: not used over DTLS.
                }
            }
            if type == T.initiate { return .success(.initiate(info)) }
            guard let cookie else { return .failure(.badChunk("INIT ACK without a state cookie")) }
            return .success(.initiateAck(info, cookie: cookie))
        case T.sack:
            guard let cum = r.u32(), let rwnd = r.u32(), let gapCount = r.u16(), let dupCount = r.u16() else {
                return .failure(.badChunk("SACK shorter than 12 bytes"))
            }
            guard r.remaining >= 4 * (Int(gapCount) + Int(dupCount)) else { return .failure(.badChunk("SACK counts beyond the chunk")) }
            var gaps: [ClosedRange<UInt16>] = []
            for _ in 0..<gapCount {
                let start = r.u16()!, end = r.u16()!
                guard start >= 1, start <= end else { return .failure(.badChunk("SACK gap block \(start)-\(end)")) }
                gaps.append(start...end)
            }
            var duplicates: [UInt32] = []
            for _ in 0..<dupCount { duplicates.append(r.u32()!) }
            return .success(.sack(SctpSack(cumulativeTSN: cum, advertisedReceiverWindow: rwnd, gaps: gaps, duplicates: duplicates)))
        case T.heartbeat: return .success(.heartbeat(info: value))
        case T.heartbeatAck: return .success(.heartbeatAck(info: value))
        case T.abort: return .success(.abort(reflected: flags & 1 != 0, cause: causeText(value)))
        case T.shutdown:
            guard let cum = r.u32() else { return .failure(.badChunk("SHUTDOWN without a TSN")) }
            return .success(.shutdown(cumulativeTSN: cum))
        case T.shutdownAck: return .success(.shutdownAck)
        case T.error: return .success(.error(cause: causeText(value)))
        case T.cookieEcho: return .success(.cookieEcho(cookie: value))
        case T.cookieAck: return .success(.cookieAck)
        case T.shutdownComplete: return .success(.shutdownComplete(reflected: flags & 1 != 0))
        case T.forwardTSN:
            guard let cum = r.u32() else { return .failure(.badChunk("FORWARD TSN without a TSN")) }
            var streams: [(UInt16, UInt16)] = []
            while let s = r.u16(), let n = r.u16() { streams.append((s, n)) }
            return .success(.forwardTSN(SctpForwardTSN(newCumulativeTSN: cum, streams: streams)))
        case T.reconfig:
            var params: [SctpReconfigParameter] = []
            while r.remaining >= 4 {
                guard params.count < 2 else { return .failure(.badChunk("more than two RE-CONFIG parameters")) }
                guard let ptype = r.u16(), let plen = r.u16(), plen >= 4, let pvalue = r.take(Int(plen) - 4) else {
                    return .failure(.badChunk("RE-CONFIG parameter beyond the chunk"))
                }
                _ = r.skip(min((4 - Int(plen) % 4) % 4, r.remaining))
                var p = ByteReader(Array(pvalue))
                switch ptype {
                case 13:
                    guard let req = p.u32(), let resp = p.u32(), let last = p.u32() else {
                        return .failure(.badChunk("outgoing reset request shorter than 12 bytes"))
                    }
                    var streams: [UInt16] = []
                    while let s = p.u16() { streams.append(s) }
                    params.append(.outgoingReset(requestSequence: req, responseSequence: resp, lastTSN: last, streams: streams))
                case 16:
                    guard let seq = p.u32(), let result = p.u32() else { return .failure(.badChunk("reconfig response shorter than 8 bytes")) }
                    params.append(.response(sequence: seq, result: result))
                default:
                    params.append(.other(type: ptype))
                }
            }
            return .success(.reconfig(params))
        default:
            return .success(.unknown(type: type, flags: flags, value: value))
        }
    }

    /// The first error cause of an ABORT or ERROR (RFC 9260 §3.3.10) as text, for a log line.
    private static func causeText(_ value: [UInt8]) -> String {
        var r = ByteReader(value)
        guard let code = r.u16(), let length = r.u16() else { return "no cause" }
        let names: [UInt16: String] = [1: "invalid stream identifier", 2: "missing mandatory parameter",
                                       3: "stale cookie", 4: "out of resource", 6: "unrecognized chunk type",
                                       7: "invalid mandatory parameter", 8: "unrecognized parameters",
                                       9: "no user data", 10: "cookie received while shutting down",
                                       12: "user-initiated abort", 13: "protocol violation"]
        var text = names[code] ?? "cause \(code)"
        if code == 12 || code == 13, length > 4, let detail = r.take(min(Int(length) - 4, r.remaining, 100)) {
            text += ": " + String(decoding: detail, as: UTF8.self).filter { !$0.isASCII || $0.asciiValue! >= 0x20 }
        }
        return text
    }

    /// The packet on the wire, checksum included.
    func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1200)
        out.appendBE(sourcePort)
        out.appendBE(destinationPort)
        out.appendBE(verificationTag)
        out.appendBE(UInt32(0))
        for chunk in chunks { Self.encode(chunk, into: &out) }
        let crc = Crc32c.checksum(out)
        out[8] = UInt8(truncatingIfNeeded: crc); out[9] = UInt8(truncatingIfNeeded: crc >> 8)
        out[10] = UInt8(truncatingIfNeeded: crc >> 16); out[11] = UInt8(truncatingIfNeeded: crc >> 24)
        return out
    }

    /// Bytes `chunk` takes in a packet, padding included.
    static func encodedSize(of chunk: SctpChunk) -> Int {
        // The SACK goes with nearly every packet: its size is plain arithmetic (RFC 9260 §3.3.4), not an encoding.
        if case .sack(let s) = chunk { return 16 + 4 * s.gaps.count + 4 * s.duplicates.count }
        var out: [UInt8] = []
        encode(chunk, into: &out)
        return out.count
    }

    static func encode(_ chunk: SctpChunk, into out: inout [UInt8]) {
        typealias T = SctpChunk.TypeCode
        let start = out.count
        func header(_ type: UInt8, _ flags: UInt8) { out.append(type); out.append(flags); out.appendBE(UInt16(0)) }
        func param(_ type: UInt16, _ value: [UInt8]) {
            out.appendBE(type); out.appendBE(UInt16(4 + value.count)); out += value
            out += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        switch chunk {
        case .data(let d):
            header(T.data, (d.immediate ? 8 : 0) | (d.unordered ? 4 : 0) | (d.beginning ? 2 : 0) | (d.ending ? 1 : 0))
            out.appendBE(d.tsn); out.appendBE(d.stream); out.appendBE(d.ssn); out.appendBE(d.ppid)
            out += d.payload
        case .initiate(let i), .initiateAck(let i, _):
            if case .initiateAck(_, let cookie) = chunk { header(T.initiateAck, 0); encodeInit(i, &out); param(7, cookie) } else {
                header(T.initiate, 0); encodeInit(i, &out)
            }
            if i.forwardTSN { param(0xC000, []) }
            if !i.extensions.isEmpty { param(0x8008, i.extensions) }
        case .sack(let s):
            header(T.sack, 0)
            out.appendBE(s.cumulativeTSN); out.appendBE(s.advertisedReceiverWindow)
            out.appendBE(UInt16(s.gaps.count)); out.appendBE(UInt16(s.duplicates.count))
            for g in s.gaps { out.appendBE(g.lowerBound); out.appendBE(g.upperBound) }
            for d in s.duplicates { out.appendBE(d) }
        case .heartbeat(let info): header(T.heartbeat, 0); out += info
        case .heartbeatAck(let info): header(T.heartbeatAck, 0); out += info
        case .abort(let reflected, let cause):
            header(T.abort, reflected ? 1 : 0)
            // User-initiated abort (RFC 9260 §3.3.10.12) carrying the reason.
            let reason = Array(cause.utf8.prefix(200))
            param(12, reason)
        case .shutdown(let cum): header(T.shutdown, 0); out.appendBE(cum)
        case .shutdownAck: header(T.shutdownAck, 0)
        case .error(let cause):
            header(T.error, 0)
            param(13, Array(cause.utf8.prefix(200)))
        case .unrecognizedChunkReport(let type, let flags, let value):
            header(T.error, 0)
            var returned: [UInt8] = [type, flags]
            returned.appendBE(UInt16(truncatingIfNeeded: 4 + value.count))
            param(6, returned + value)
        case .cookieEcho(let cookie): header(T.cookieEcho, 0); out += cookie
        case .cookieAck: header(T.cookieAck, 0)
        case .shutdownComplete(let reflected): header(T.shutdownComplete, reflected ? 1 : 0)
        case .forwardTSN(let f):
            header(T.forwardTSN, 0)
            out.appendBE(f.newCumulativeTSN)
            for s in f.streams { out.appendBE(s.stream); out.appendBE(s.ssn) }
        case .reconfig(let params):
            header(T.reconfig, 0)
            for p in params {
                switch p {
                case .outgoingReset(let req, let resp, let last, let streams):
                    var v: [UInt8] = []
                    v.appendBE(req); v.appendBE(resp); v.appendBE(last)
                    for s in streams { v.appendBE(s) }
                    param(13, v)
                case .response(let seq, let result):
                    var v: [UInt8] = []
                    v.appendBE(seq); v.appendBE(result)
                    param(16, v)
                case .other: break
                }
            }
        case .unknown(let type, let flags, let value): header(type, flags); out += value
        }
        // The chunk length excludes the final padding (RFC 9260 §3.2).
        let length = out.count - start
        out.storeBE(UInt16(truncatingIfNeeded: length), at: start + 2)
        out += [UInt8](repeating: 0, count: (4 - length % 4) % 4)
    }

    private static func encodeInit(_ i: SctpInit, _ out: inout [UInt8]) {
        out.appendBE(i.initiateTag); out.appendBE(i.advertisedReceiverWindow)
        out.appendBE(i.outboundStreams); out.appendBE(i.inboundStreams); out.appendBE(i.initialTSN)
    }
}
