/// A local/remote candidate pair on the checklist (RFC 8445 §6.1.2).
struct CandidatePair {
    /// §6.1.2.6 pair states.
    enum State: Equatable {
        case frozen, waiting, inProgress, succeeded, failed
    }

    let local: Int
    let remote: Int
    let foundation: String
    var priority: UInt64
    var state: State = .frozen
    /// RFC 8445 §7.2.5.3.4 / §7.3.1.5.
    var nominated = false
    /// Controlled side: USE-CANDIDATE arrived before our own check on the pair succeeded.
    var nominateOnSuccess = false
    /// The connectivity check in flight, if any.
    var transaction: TransactionID?
}

/// An outstanding Binding request of ours.
struct PendingCheck {
    enum Purpose { case connectivity, consent }

    let pair: Int
    let purpose: Purpose
    let useCandidate: Bool
    /// The role we claimed in the request, to interpret a 487 (§7.2.5.1).
    let role: IceRole
    let bytes: [UInt8]
    var transmissions: Int
    var rto: Duration
    var nextRetransmit: TransportTime
    let firstSentAt: TransportTime
}
