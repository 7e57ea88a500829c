/// The sans-IO surface of `TurnClient`: what goes in (`TurnInput`) and what comes out (`TurnOutput`). Every datagram
/// either way is between the client's socket and its one TURN server, so none carries an address; peers are named
/// by their transport address as the server relays to and from them.

public enum TurnInput: Hashable, Sendable {
    /// Start the allocation (RFC 8656 §7.1).
    case allocate
    /// A datagram (or, over a stream, one framed message) from the TURN server.
    case received([UInt8])
    /// Relay `bytes` to `peer`: through a bound channel, else a Send indication once the peer's IP has a permission
    /// (which is created on first use).
    case send(to: TransportAddress, bytes: [UInt8])
    /// Install (and keep refreshing) a permission for a peer that is about to send to the relayed address: a
    /// remote ICE candidate's checks reach us only once its IP is permitted (RFC 8656 §9).
    case permit(IPAddress)
    /// The deadline returned earlier has passed (extra timeouts are harmless).
    case timeout
    /// Release the allocation: a Refresh with LIFETIME 0 (RFC 8656 §8).
    case close
}

public enum TurnEvent: Hashable, Sendable {
    /// The allocation exists: `relayed` is the relayed transport address (the relay candidate), `mapped` the
    /// server-reflexive address the server saw us at (XOR-MAPPED-ADDRESS, when sent), `lifetime` what was granted.
    case allocated(relayed: TransportAddress, mapped: TransportAddress?, lifetime: UInt32)
    case permissionCreated(IPAddress)
    /// The server refused a permission (or never answered): datagrams to that IP are dropped for a while.
    case permissionFailed(IPAddress, reason: String)
    case channelBound(peer: TransportAddress, channel: UInt16)
    /// A datagram a peer sent to the relayed address.
    case data(from: TransportAddress, bytes: [UInt8])
    /// The allocation failed or was lost; the client does nothing more. `reason` says which request and why.
    case failed(reason: String)
    /// The allocation was released (or given up after `close`).
    case closed
}

/// What one call to `TurnClient.handle` produced.
public struct TurnOutput: Sendable {
    /// Datagrams (or stream messages) for the TURN server, in order.
    public var transmits: [[UInt8]] = []
    public var events: [TurnEvent] = []
    /// Call `handle(.timeout, now:)` no later than this; nil when the client waits only for input.
    public var deadline: TransportTime?
}

/// Where an allocation is in its life (RFC 8656 §7, §8).
public enum TurnAllocationState: String, Sendable {
    case idle, allocating, allocated, closing, closed, failed
}
