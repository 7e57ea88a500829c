/// The receiving half of an association, pure: DATA chunks in, whole messages out in stream order, and the SACK
/// that describes what arrived (RFC 9260 §6.2, §6.5, §6.9). Memory is bounded by the receive window: a chunk
/// that does not fit is dropped unacknowledged, and the sender retransmits it once space is free (the chunk that
/// fills the first gap may use a bounded reserve beyond the window, so that space does come back).
struct SctpReceiveBuffer {
    struct Message: Equatable {
        var stream: UInt16
        var ppid: UInt32
        var payload: [UInt8]
    }

    private struct Fragment {
        var stream: UInt16
        var ssn: UInt16
        var ppid: UInt32
        var unordered: Bool
        var beginning: Bool
        var ending: Bool
        var payload: [UInt8]
        /// Part of a message known to exceed the limit: its payload is gone, its TSN is still acknowledged.
        var oversize = false
    }

    /// Per stream: the next SSN to deliver and complete ordered messages waiting for it.
    private struct InboundStream {
        var nextSSN: UInt16 = 0
        var waiting: [UInt16: Message?] = [:]
    }

    /// What each held chunk costs besides its payload, so a flood of 1-byte chunks is bounded too.
    static let chunkOverhead = 64
    /// TSNs further ahead of the cumulative TSN than this cannot be described by a SACK gap block (16-bit offsets).
    static let maxAhead: UInt32 = 16_384
    static let maxGapBlocks = 64
    static let maxDuplicates = 16
    /// Complete ordered messages held per stream waiting for an earlier one (each also counted in the window).
    static let maxWaitingPerStream = 4096

    let window: Int
    let maxMessage: Int
    let streamCount: UInt16
    private(set) var cumulativeTSN: UInt32
    /// TSNs received above the cumulative TSN (each is in `fragments` until its message is complete).
    private var above: Set<UInt32> = []
    private var fragments: [UInt32: Fragment] = [:]
    private var streams: [UInt16: InboundStream] = [:]
    private(set) var heldBytes = 0
    private var duplicates: [UInt32] = []

    init(peerInitialTSN: UInt32, window: Int, maxMessage: Int, streamCount: UInt16) {
        cumulativeTSN = peerInitialTSN &- 1
        self.window = window
        self.maxMessage = maxMessage
        self.streamCount = streamCount
    }

    /// What is free, less the per-chunk overhead `heldBytes` counts and the peer does not (RFC 9260 §6.1 counts
    /// user data only): an eighth covers our 64 bytes on every chunk of 512 bytes or more, so a peer filling exactly
    /// what we advertise is not refused its last chunks. The INIT advertises the same share of the empty window:
    /// a full 1 MiB there let Chromium's first flight overrun the window by its chunks' overhead.
    var advertisedWindow: UInt32 { Self.advertised(free: window - heldBytes) }
    static func advertised(free: Int) -> UInt32 { UInt32(max(0, free) / 8 * 7) }

    /// How far past the window the chunk at the cumulative TSN + 1 may go: one largest message and its chunks'
    /// overhead. We count 64 bytes a chunk where the sender counts 16, so a window of small messages filled behind
    /// one lost chunk would otherwise refuse that chunk's retransmission for ever (and the sender, unanswered,
    /// would abort); once it is in, what waited behind it is delivered and the space comes back. RFC 9260 §6.2
    /// makes room by dropping the highest TSN held instead; the reserve keeps the bound fixed without reneging.
    var reserve: Int {
        let message = min(maxMessage, window)
        return message + message / 16
    }
    /// What is held before a chunk is dropped: the window and an eighth more. We advertise 7/8 of what is free, so a
    /// sender that honours it never comes near; the eighth is for senders that do not quite (aiortc's sends on its
    /// congestion window and overran a full 1 MiB in CI), whose chunks are then taken rather than sent twice.
    var limit: Int { window + window / 8 }
    var hasGaps: Bool { !above.isEmpty }

    enum Accepted: Equatable { case new, duplicate, dropped(String) }

    /// Takes one DATA chunk; complete messages are appended to `delivered`, warnings to `warnings`.
    mutating func receive(_ chunk: SctpDataChunk, delivered: inout [Message], warnings: inout [String]) -> Accepted {
        let tsn = chunk.tsn
        if Serial.lessOrEqual(tsn, cumulativeTSN) || above.contains(tsn) {
            if duplicates.count < Self.maxDuplicates { duplicates.append(tsn) }
            return .duplicate
        }
        guard tsn &- cumulativeTSN <= Self.maxAhead else { return .dropped("TSN \(tsn) too far ahead") }
        guard chunk.stream < streamCount else {
            // Acknowledge it (the sender would retransmit forever) but deliver nothing.
            markReceived(tsn)
            return .dropped("DATA on stream \(chunk.stream), beyond the \(streamCount) negotiated")
        }
        let cost = chunk.payload.count + Self.chunkOverhead
        // The chunk that fills the first gap may use the reserve: see `reserve` (aiortc, overrunning the window,
        // made a transfer stall for ever without it).
        let fillsTheGap = tsn == cumulativeTSN &+ 1
        guard heldBytes + cost <= limit || fillsTheGap && heldBytes + cost <= limit + reserve else {
            return .dropped("receive window full")
        }
        fragments[tsn] = Fragment(stream: chunk.stream, ssn: chunk.ssn, ppid: chunk.ppid, unordered: chunk.unordered,
                                  beginning: chunk.beginning, ending: chunk.ending, payload: Array(chunk.payload))
        heldBytes += cost
        markReceived(tsn)
        assemble(around: tsn, delivered: &delivered, warnings: &warnings)
        return .new
    }

    private mutating func markReceived(_ tsn: UInt32) {
        above.insert(tsn)
        while above.remove(cumulativeTSN &+ 1) != nil { cumulativeTSN &+= 1 }
    }

    /// Fragments of one message carry consecutive TSNs (RFC 9260 §6.9), so the message around `tsn` is the run of
    /// held fragments from a B to an E through it, all on one stream.
    private mutating func assemble(around tsn: UInt32, delivered: inout [Message], warnings: inout [String]) {
        guard let here = fragments[tsn] else { return }
        var first = tsn
        while let f = fragments[first], !f.beginning, let previous = fragments[first &- 1], previous.stream == here.stream,
              !previous.ending {
            first &-= 1
        }
        var last = first
        var size = 0
        var oversize = false
        while let f = fragments[last], f.stream == here.stream {
            size += f.payload.count
            oversize = oversize || f.oversize
            if f.ending || last &- first > Self.maxAhead { break }
            last &+= 1
        }
        guard let start = fragments[first], start.beginning, let end = fragments[last], end.ending, end.stream == here.stream else {
            // Incomplete. A message already known too large keeps no payload: otherwise a peer could fill the window
            // with one message that never completes, and nothing else would ever arrive.
            if size > maxMessage || oversize { strip(from: first, through: last) }
            return
        }
        var payload: [UInt8] = []
        let keep = size <= maxMessage && !oversize
        if keep { payload.reserveCapacity(size) }
        var t = first
        while true {
            let f = fragments.removeValue(forKey: t)!
            heldBytes -= f.payload.count + Self.chunkOverhead
            if keep { payload += f.payload }
            if t == last { break }
            t &+= 1
        }
        if !keep { warnings.append("a message above \(maxMessage) bytes on stream \(start.stream) was discarded") }
        let message: Message? = keep ? Message(stream: start.stream, ppid: start.ppid, payload: payload) : nil
        if start.unordered {
            if let message { delivered.append(message) }
            return
        }
        var stream = streams[start.stream] ?? InboundStream()
        // An SSN already delivered (or skipped by FORWARD TSN) cannot come again in a new TSN but from a hostile peer.
        guard !Serial.less16(start.ssn, stream.nextSSN), stream.waiting[start.ssn] == nil,
              stream.waiting.count < Self.maxWaitingPerStream else {
            warnings.append("stream \(start.stream) SSN \(start.ssn) out of place; dropped")
            return
        }
        // Waiting messages stay inside the window until they are delivered.
        stream.waiting[start.ssn] = .some(message)
        heldBytes += Self.cost(message)
        deliverInOrder(&stream, into: &delivered)
        streams[start.stream] = stream
    }

    private static func cost(_ message: Message?) -> Int { (message?.payload.count ?? 0) + chunkOverhead }

    private mutating func deliverInOrder(_ stream: inout InboundStream, into delivered: inout [Message]) {
        while let next = stream.waiting.removeValue(forKey: stream.nextSSN) {
            heldBytes -= Self.cost(next)
            if let next { delivered.append(next) }
            stream.nextSSN &+= 1
        }
    }

    private mutating func strip(from first: UInt32, through last: UInt32) {
        var t = first
        while true {
            if var f = fragments[t], !f.payload.isEmpty || !f.oversize {
                heldBytes -= f.payload.count
                f.payload = []
                f.oversize = true
                fragments[t] = f
            }
            if t == last { break }
            t &+= 1
        }
    }

    /// RFC 3758 §3.6: move the cumulative TSN, forget what is skipped, and let the named streams deliver from
    /// after the skipped SSNs.
    mutating func forward(_ f: SctpForwardTSN, delivered: inout [Message]) {
        guard Serial.less(cumulativeTSN, f.newCumulativeTSN), f.newCumulativeTSN &- cumulativeTSN <= Self.maxAhead else { return }
        while cumulativeTSN != f.newCumulativeTSN {
            cumulativeTSN &+= 1
            above.remove(cumulativeTSN)
            if let gone = fragments.removeValue(forKey: cumulativeTSN) { heldBytes -= gone.payload.count + Self.chunkOverhead }
        }
        while above.remove(cumulativeTSN &+ 1) != nil { cumulativeTSN &+= 1 }
        for entry in f.streams where entry.stream < streamCount {
            guard var stream = streams[entry.stream], !Serial.less16(entry.ssn, stream.nextSSN) else { continue }
            for ssn in Array(stream.waiting.keys) where !Serial.less16(entry.ssn, ssn) {
                heldBytes -= Self.cost(stream.waiting.removeValue(forKey: ssn)!)
            }
            stream.nextSSN = entry.ssn &+ 1
            deliverInOrder(&stream, into: &delivered)
            streams[entry.stream] = stream
        }
    }

    /// RFC 6525 §5.2.2: the peer's outgoing reset of these streams, once every TSN up to `lastTSN` arrived.
    func canReset(lastTSN: UInt32) -> Bool { Serial.lessOrEqual(lastTSN, cumulativeTSN) }

    mutating func resetStreams(_ ids: [UInt16]) {
        for id in ids {
            guard let gone = streams.removeValue(forKey: id) else { continue }
            for message in gone.waiting.values { heldBytes -= Self.cost(message) }
        }
    }

    /// The SACK for what has arrived; it reports each duplicate once.
    mutating func makeSack() -> SctpSack {
        var gaps: [ClosedRange<UInt16>] = []
        let offsets = above.map { $0 &- cumulativeTSN }.sorted()
        var i = 0
        while i < offsets.count, gaps.count < Self.maxGapBlocks {
            let start = offsets[i]
            var end = start
            while i + 1 < offsets.count, offsets[i + 1] == end + 1 { i += 1; end += 1 }
            gaps.append(UInt16(start)...UInt16(end))
            i += 1
        }
        let sack = SctpSack(cumulativeTSN: cumulativeTSN, advertisedReceiverWindow: advertisedWindow, gaps: gaps,
                            duplicates: duplicates)
        duplicates.removeAll()
        return sack
    }
}
