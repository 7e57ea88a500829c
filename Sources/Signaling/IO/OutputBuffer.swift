/// Bytes waiting for a non-blocking `ByteStream`, written in order. The WebSocket session appends its
/// frames straight into `bytes` (one copy of each payload); the driver calls `write(to:)` when the
/// socket may take more.
struct OutputBuffer {
    var bytes: [UInt8] = []
    private(set) var start = 0
    /// Written bytes are dropped from the front once there are more than this many (a memmove), so a
    /// peer that reads slowly cannot make the buffer grow without end.
    let compactionThreshold: Int

    init(compactionThreshold: Int) { self.compactionThreshold = compactionThreshold }

    var pending: Int { bytes.count - start }

    /// Writes as much as the stream takes now. Returns the bytes written, or nil when the stream failed.
    mutating func write(to stream: ByteStream) -> Int? {
        var written = 0
        while pending > 0 {
            // At most 256 KiB a call, so TLS never gets one huge record to encrypt at once.
            let end = min(bytes.count, start + (256 << 10))
            let result = bytes.withUnsafeBytes { stream.write(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            switch result {
            case .bytes(let n):
                // The stream never reports more than it was given; checked, since a start past the end would trap.
                guard n >= 0 && n <= end - start else { return nil }
                start += n
                written += n
            case .wouldBlock, .wantsWrite:
                if start > compactionThreshold {
                    bytes.removeFirst(start)
                    start = 0
                }
                return written
            case .endOfStream, .failed:
                return nil
            }
        }
        bytes.removeAll(keepingCapacity: bytes.capacity <= 64 << 10)
        start = 0
        return written
    }
}
