/// The SCTP chunks WebRTC data channels use (RFC 9260 §3.3, RFC 3758, RFC 6525), as values. Chunks this endpoint
/// does not know are kept as `.unknown` so the association can apply the rule in their type's top two bits.
enum SctpChunk: Equatable, Sendable {
    case data(SctpDataChunk)
    case initiate(SctpInit)
    case initiateAck(SctpInit, cookie: [UInt8])
    case sack(SctpSack)
    case heartbeat(info: [UInt8])
    case heartbeatAck(info: [UInt8])
    case abort(reflected: Bool, cause: String)
    case shutdown(cumulativeTSN: UInt32)
    case shutdownAck
    case error(cause: String)
    /// An ERROR we send with one "Unrecognized Chunk Type" cause (RFC 9260 §3.3.10.6) that returns the chunk we did
    /// not recognise, as it came. (An ERROR we receive reads as `.error`.)
    case unrecognizedChunkReport(type: UInt8, flags: UInt8, value: [UInt8])
    case cookieEcho(cookie: [UInt8])
    case cookieAck
    case shutdownComplete(reflected: Bool)
    case forwardTSN(SctpForwardTSN)
    case reconfig([SctpReconfigParameter])
    case unknown(type: UInt8, flags: UInt8, value: [UInt8])

    enum TypeCode {
        static let data: UInt8 = 0, initiate: UInt8 = 1, initiateAck: UInt8 = 2, sack: UInt8 = 3
        static let heartbeat: UInt8 = 4, heartbeatAck: UInt8 = 5, abort: UInt8 = 6, shutdown: UInt8 = 7
        static let shutdownAck: UInt8 = 8, error: UInt8 = 9, cookieEcho: UInt8 = 10, cookieAck: UInt8 = 11
        static let shutdownComplete: UInt8 = 14, reconfig: UInt8 = 130, forwardTSN: UInt8 = 192
    }
}

/// A DATA chunk (RFC 9260 §3.3.1). `beginning`/`ending` are the B and E bits: a message in one chunk has both.
struct SctpDataChunk: Equatable, Sendable {
    var tsn: UInt32
    var stream: UInt16
    var ssn: UInt16
    var ppid: UInt32
    var unordered: Bool
    var beginning: Bool
    var ending: Bool
    /// RFC 7053: the receiver should SACK at once (set on the last chunk before the sender would block).
    var immediate: Bool = false
    var payload: ArraySlice<UInt8>

    static let headerSize = 16
}

/// INIT and INIT ACK share their fixed part (RFC 9260 §3.3.2, §3.3.3).
struct SctpInit: Equatable, Sendable {
    var initiateTag: UInt32
    var advertisedReceiverWindow: UInt32
    var outboundStreams: UInt16
    var inboundStreams: UInt16
    var initialTSN: UInt32
    /// Forward-TSN-Supported (RFC 3758 §3.1), which WebRTC requires (RFC 8831 §6.2).
    var forwardTSN: Bool
    /// Chunk types listed in Supported Extensions (RFC 5061 §4.2.7): RE-CONFIG (130) and FORWARD-TSN (192).
    var extensions: [UInt8]
}

/// A SACK (RFC 9260 §3.3.4): gap blocks are offsets from the cumulative TSN, both ends inclusive.
struct SctpSack: Equatable, Sendable {
    var cumulativeTSN: UInt32
    var advertisedReceiverWindow: UInt32
    var gaps: [ClosedRange<UInt16>]
    var duplicates: [UInt32]
}

/// FORWARD TSN (RFC 3758 §3.2): the receiver may move its cumulative TSN here and skip per-stream SSNs.
struct SctpForwardTSN: Equatable, Sendable {
    var newCumulativeTSN: UInt32
    var streams: [(stream: UInt16, ssn: UInt16)]

    static func == (a: Self, b: Self) -> Bool {
        a.newCumulativeTSN == b.newCumulativeTSN && a.streams.elementsEqual(b.streams) { $0 == $1 }
    }
}

/// The RE-CONFIG parameters a data channel's close uses (RFC 6525 §4.1, §4.4): the others are answered as unknown.
enum SctpReconfigParameter: Equatable, Sendable {
    case outgoingReset(requestSequence: UInt32, responseSequence: UInt32, lastTSN: UInt32, streams: [UInt16])
    case response(sequence: UInt32, result: UInt32)
    case other(type: UInt16)

    enum Result {
        static let successPerformed: UInt32 = 1, denied: UInt32 = 2, errorWrongSSN: UInt32 = 3
        static let inProgress: UInt32 = 6
    }
}
