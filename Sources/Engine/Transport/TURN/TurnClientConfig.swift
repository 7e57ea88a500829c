/// A TURN user's long-term credentials (RFC 8489 §9.2). The password is used as given: conftui has no SASLprep,
/// which is the identity for the ASCII passwords TURN services hand out.
public struct TurnCredentials: Hashable, Sendable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// Tunables of one `TurnClient`; defaults follow RFC 8656 and RFC 8489.
public struct TurnClientConfig: Sendable {
    public var credentials: TurnCredentials
    /// LIFETIME asked for in Allocate and Refresh (RFC 8656 §7.2: the default lifetime is 10 minutes).
    public var requestedLifetime: UInt32 = 600
    /// RFC 8489 §6.2.1: the first retransmission timeout "SHOULD be greater than 500 ms"; it doubles each time.
    public var initialRTO: Duration = .milliseconds(500)
    /// RFC 8489 §6.2.1 Rc: transmissions of one request before it fails (7 gives the RFC's 39.5 s with Rm = 16).
    public var maxTransmissions = 7
    /// RFC 8489 §6.2.1 Rm: after the last transmission the client waits this many initial RTOs for an answer.
    public var lastWaitMultiplier = 16
    /// The server's connection is a byte stream (TCP or TLS, RFC 8656 §3.1): requests are sent once (the stream
    /// retransmits; RFC 8489 §6.2.2 waits 39.5 s for the answer) and ChannelData is padded (§12.5).
    public var reliableTransport = false
    /// Distinct peer IP addresses with a permission (RFC 8656 §9), and peer transport addresses with a channel
    /// (§12); each costs a refresh every few minutes. A WebRTC peer has a handful of candidates; beyond the bound
    /// datagrams to a new peer are dropped (`droppedSends`).
    public var maxPermissions = 32
    public var maxChannels = 32
    /// Datagrams held for a peer whose permission is still being created, sent as soon as it is: the first
    /// connectivity checks are not lost to the CreatePermission round trip. Beyond it the oldest is dropped.
    public var maxQueuedPerPeer = 8
    /// Allocation health: while we relay to peers and nothing at all has come from the server for this long, a
    /// Refresh asks whether the allocation still stands (a restarted server forgets it silently: what we send is
    /// dropped, and no refresh falls due for minutes). Answered 437, or not at all within `probeTimeout`, the
    /// allocation is lost (`TurnEvent.failed`). A quiet peer costs one probe per `probeInterval` at most.
    public var silenceProbeAfter: Duration = .milliseconds(1200)
    public var probeTimeout: Duration = .seconds(3)
    public var probeInterval: Duration = .seconds(5)
    /// Seed of the client's generator (transaction ids). Use a system random value in production.
    public var seed: UInt64
    /// SOFTWARE attribute of our requests (RFC 8489 §14.14, optional); nil sends none.
    public var software: String? = "conftui"

    public init(credentials: TurnCredentials, seed: UInt64) {
        self.credentials = credentials
        self.seed = seed
    }
}

/// The timing rules of allocations, permissions and channels (RFC 8656 §7, §9, §12), in one place.
enum TurnLifetimes {
    /// RFC 8656 §9: "The Permission Lifetime MUST be 300 seconds (= 5 minutes)." Refreshed a minute early.
    static let permissionRefresh: Duration = .seconds(240)
    /// RFC 8656 §12: a channel binding lasts 10 minutes unless refreshed; refreshed two minutes early.
    static let channelRefresh: Duration = .seconds(480)
    /// A permission the server refused is not asked for again before this (each send would otherwise ask again).
    static let refusedPermissionRetry: Duration = .seconds(30)
    /// The LIFETIME a server grants is believed within these bounds: a huge one (up to 2^32 s) would overflow the
    /// clock arithmetic and a tiny one would make the client refresh in a loop. RFC 8656 §7.2 lets a server cap
    /// lifetimes at its maximum ("3600 seconds (1 hour)" by default); refreshing earlier than needed is harmless.
    static let grantedLifetimeBounds: ClosedRange<UInt32> = 10...3600

    /// When to refresh an allocation granted for `seconds`: a minute before it expires (RFC 8656 §8 recommends
    /// refreshing before expiry), or halfway through a lifetime of two minutes or less.
    static func refreshDelay(grantedSeconds: UInt32) -> Duration {
        let seconds = Int64(min(max(grantedSeconds, grantedLifetimeBounds.lowerBound), grantedLifetimeBounds.upperBound))
        return seconds > 120 ? .seconds(seconds - 60) : .milliseconds(seconds * 500)
    }
}
