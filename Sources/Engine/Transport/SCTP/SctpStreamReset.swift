/// Stream reset bookkeeping (RFC 6525 §5), both directions: our Outgoing SSN Reset Requests, one in flight at a
/// time and retransmitted until answered, and the peer's, performed only once every TSN they name has arrived.
struct SctpStreamReset {
    struct Incoming { var sequence: UInt32; var lastTSN: UInt32; var streams: [UInt16] }

    enum IncomingVerdict { case resend(SctpReconfigParameter), pending, refused(SctpReconfigParameter) }

    /// A request naming more streams than this is refused (it would only ever come from a hostile peer).
    static let maxStreamsPerRequest = 1024

    private var nextSequence: UInt32
    private var expectedIncoming: UInt32 = 0
    private var waiting: [UInt16] = []
    private var inFlight: SctpReconfigParameter?
    private var inFlightStreams: [UInt16] = []
    private(set) var deadline: TransportTime?
    private var resendNow = false
    private(set) var pendingIncoming: Incoming?
    private var inProgressSent = false
    private var lastResponse: SctpReconfigParameter?

    init(initialSequence: UInt32 = 0) { nextSequence = initialSequence }

    mutating func peerInitialSequence(_ tsn: UInt32) { expectedIncoming = tsn }

    mutating func request(_ streams: [UInt16]) {
        for s in streams where !waiting.contains(s) && !inFlightStreams.contains(s) { waiting.append(s) }
    }

    /// The request to send now, if any: a retransmission when its timer expired, else a new one for streams with
    /// nothing left queued.
    mutating func nextRequest(lastTSN: UInt32, blocked: (Set<UInt16>) -> Bool, now: TransportTime,
                              rto: Duration) -> SctpReconfigParameter? {
        if let request = inFlight {
            guard resendNow else { return nil }
            resendNow = false
            deadline = now + rto
            return request
        }
        let ready = waiting.filter { !blocked([$0]) }
        guard !ready.isEmpty else { return nil }
        let streams = Array(ready.prefix(Self.maxStreamsPerRequest))
        waiting.removeAll { streams.contains($0) }
        let request = SctpReconfigParameter.outgoingReset(requestSequence: nextSequence, responseSequence: expectedIncoming &- 1,
                                                          lastTSN: lastTSN, streams: streams)
        inFlight = request
        inFlightStreams = streams
        deadline = now + rto
        return request
    }

    mutating func retransmitDue() { resendNow = inFlight != nil }

    /// The peer's answer to our request: the streams reset, when it performed it.
    mutating func response(sequence: UInt32, result: UInt32) -> [UInt16]? {
        guard inFlight != nil, sequence == nextSequence else { return nil }
        if result == SctpReconfigParameter.Result.inProgress { return nil }   // Asked again when the timer fires.
        let streams = inFlightStreams
        inFlight = nil
        inFlightStreams = []
        deadline = nil
        nextSequence &+= 1
        return result == SctpReconfigParameter.Result.successPerformed ? streams : nil
    }

    mutating func incoming(sequence: UInt32, lastTSN: UInt32, streams: [UInt16]) -> IncomingVerdict {
        if sequence == expectedIncoming &- 1, let last = lastResponse { return .resend(last) }
        guard sequence == expectedIncoming, streams.count <= Self.maxStreamsPerRequest else {
            // RFC 6525 §5.2.2: result 5, "Error: Bad Sequence Number" (also for a request we will not hold).
            return .refused(.response(sequence: sequence, result: 5))
        }
        if pendingIncoming == nil { pendingIncoming = Incoming(sequence: sequence, lastTSN: lastTSN, streams: streams) }
        inProgressSent = false
        return .pending
    }

    mutating func performedIncoming() -> SctpReconfigParameter {
        let response = SctpReconfigParameter.response(sequence: pendingIncoming?.sequence ?? expectedIncoming,
                                                      result: SctpReconfigParameter.Result.successPerformed)
        pendingIncoming = nil
        expectedIncoming &+= 1
        lastResponse = response
        return response
    }

    /// "In progress", once per received copy of the request.
    mutating func inProgressResponse() -> SctpReconfigParameter? {
        guard let pending = pendingIncoming, !inProgressSent else { return nil }
        inProgressSent = true
        return .response(sequence: pending.sequence, result: SctpReconfigParameter.Result.inProgress)
    }
}
