/// What the room sends a member whose connection dropped while it waits for a resume (docs/skyrtc-protocol.md §10),
/// kept in order to be delivered right after the `_peers` of the resuming connection.
///
/// Bounded, since the member cannot read while it is away and the others may keep sending: at most `maxMessages`
/// messages and `maxBytes` bytes. Past either the oldest go first (the fresh `_peers` already says who is in the
/// room, so what is lost is old signaling the clients renegotiate anyway), and `dropped` counts them for the log.
struct SkyRTCHeldMessages: Equatable, Sendable {
    static let maxMessages = 64
    static let maxBytes = 256 << 10

    private(set) var messages: [[UInt8]] = []
    private(set) var bytes = 0
    private(set) var dropped = 0

    mutating func append(_ message: [UInt8]) {
        messages.append(message)
        bytes += message.count
        // At most `maxMessages + 1` messages are ever here, so removing from the front stays cheap.
        while !messages.isEmpty && (messages.count > Self.maxMessages || bytes > Self.maxBytes) {
            bytes -= messages.removeFirst().count
            dropped += 1
        }
    }
}
