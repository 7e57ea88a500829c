/// Opus over RTP (RFC 7587): one Opus packet per RTP packet, no payload header; the RTP clock is
/// always 48 kHz (§4.1), so a 20 ms frame advances the timestamp by 960. The marker bit is set on
/// the first packet after a DTX pause (§4.1: "the first packet of a talkspurt").
public struct OpusPacketizer: Sendable {
    public static let clockRate: UInt32 = 48_000
    public static let timestampStep: UInt32 = 960

    private var timestamp: UInt32
    private var afterSilence = true

    public init(initialTimestamp: UInt32 = 0) { timestamp = initialTimestamp }

    /// The payload and header fields for the next 20 ms frame, or nil when DTX says skip it (the
    /// timestamp still advances: the gap is in time, not in numbering).
    public mutating func next(packet: [UInt8], isDTX: Bool) -> (payload: [UInt8], timestamp: UInt32, marker: Bool)? {
        defer { timestamp &+= Self.timestampStep }
        if isDTX { afterSilence = true; return nil }
        let marker = afterSilence
        afterSilence = false
        return (packet, timestamp, marker)
    }
}
