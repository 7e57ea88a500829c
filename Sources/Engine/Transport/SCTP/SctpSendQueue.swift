/// Messages accepted by `send` and not yet cut into DATA chunks, first in first out, with each stream's next SSN
/// and the bytes still queued per stream (the W3C `bufferedAmount` of its channel).
struct SctpSendQueue {
    struct Message {
        var stream: UInt16
        var ppid: UInt32
        var payload: [UInt8]
        var unordered: Bool
        var ssn: UInt16
        /// Bytes of `payload` already cut into chunks.
        var offset = 0
    }

    private var messages: [Message] = []
    private var head = 0
    private var nextSSN: [UInt16: UInt16] = [:]
    private(set) var bufferedPerStream: [UInt16: Int] = [:]
    private(set) var bufferedBytes = 0

    var isEmpty: Bool { head == messages.count }

    func buffered(stream: UInt16) -> Int { bufferedPerStream[stream] ?? 0 }

    func hasQueued(on streams: Set<UInt16>) -> Bool { streams.contains { buffered(stream: $0) > 0 } }

    mutating func enqueue(stream: UInt16, ppid: UInt32, payload: [UInt8], unordered: Bool) {
        var ssn: UInt16 = 0
        if !unordered {
            ssn = nextSSN[stream] ?? 0
            nextSSN[stream] = ssn &+ 1
        }
        messages.append(Message(stream: stream, ppid: ppid, payload: payload, unordered: unordered, ssn: ssn))
        bufferedPerStream[stream, default: 0] += payload.count
        bufferedBytes += payload.count
    }

    /// Cuts the next chunk of at most `maxPayload` bytes, TSN assigned by the caller.
    mutating func nextChunk(maxPayload: Int, tsn: UInt32) -> SctpDataChunk? {
        guard head < messages.count, maxPayload > 0 else { return nil }
        let m = messages[head]
        let take = min(maxPayload, m.payload.count - m.offset)
        let chunk = SctpDataChunk(tsn: tsn, stream: m.stream, ssn: m.ssn, ppid: m.ppid, unordered: m.unordered,
                                  beginning: m.offset == 0, ending: m.offset + take == m.payload.count,
                                  payload: m.payload[m.offset..<m.offset + take])
        messages[head].offset += take
        bufferedPerStream[m.stream, default: 0] -= take
        if bufferedPerStream[m.stream] == 0 { bufferedPerStream.removeValue(forKey: m.stream) }
        bufferedBytes -= take
        if chunk.ending {
            messages[head].payload = []
            head += 1
            // Compact once the consumed prefix dominates, so the array does not grow with every message ever sent.
            if head > 64 && head * 2 > messages.count {
                messages.removeFirst(head)
                head = 0
            }
        }
        return chunk
    }

    /// Next size of the chunk `nextChunk` would cut, for packing.
    func peekSize(maxPayload: Int) -> Int? {
        guard head < messages.count else { return nil }
        return min(maxPayload, messages[head].payload.count - messages[head].offset)
    }

    /// RFC 6525 §5.1.2: after a reset the stream's SSNs start at 0 again.
    mutating func resetSSN(streams: [UInt16]) {
        for s in streams { nextSSN.removeValue(forKey: s) }
    }

    mutating func removeAll() {
        messages.removeAll()
        head = 0
        bufferedPerStream.removeAll()
        bufferedBytes = 0
    }
}
