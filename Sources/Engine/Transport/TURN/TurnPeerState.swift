/// What a `TurnClient` keeps per peer: a permission per peer IP (RFC 8656 §9) and a channel per peer transport
/// address (§12), each with the moment it must be refreshed.

struct TurnPermission {
    enum State: Equatable {
        /// Asked for before the allocation existed; requested once it does.
        case wanted
        /// CreatePermission sent, no answer yet (datagrams wait in `queue`).
        case requesting
        /// The server confirmed it; refreshed at `refreshAt` (the state stays `installed` meanwhile).
        case installed
        /// Refused or unanswered; asked again at `refreshAt`, datagrams meanwhile dropped.
        case refused
    }

    var state: State
    var refreshAt: TransportTime?
    var transaction: TransactionID?
    /// Datagrams for peers at this IP waiting for the permission (bounded by `TurnClientConfig.maxQueuedPerPeer`).
    var queue: [(peer: TransportAddress, bytes: [UInt8])] = []
}

struct TurnChannel {
    let number: UInt16
    /// The server confirmed the binding: datagrams go as ChannelData.
    var bound = false
    /// The server refused the binding: datagrams keep going as Send indications; it is not asked again.
    var refused = false
    var refreshAt: TransportTime?
    var transaction: TransactionID?
}

/// One outstanding request of the client (RFC 8489 §6.2: retransmitted over UDP until answered or timed out).
struct TurnTransaction {
    enum Purpose: Hashable {
        case allocate
        case refresh(lifetime: UInt32)
        case createPermission(IPAddress)
        case channelBind(channel: UInt16, peer: TransportAddress)
    }

    let purpose: Purpose
    let bytes: [UInt8]
    /// The MESSAGE-INTEGRITY key the request was signed with; nil for the first, unauthenticated Allocate.
    let key: [UInt8]?
    /// 438 answers already retried for this request (a server that keeps calling every nonce stale is given up on).
    let staleNonceRetries: Int
    var transmissions: Int
    var rto: Duration
    /// When to retransmit, or after the last transmission, when to give up.
    var nextAt: TransportTime
    /// A health probe's deadline: unanswered by then, the allocation counts as lost.
    var giveUpAt: TransportTime? = nil
}
