import Engine

/// What one call into a sans-IO endpoint produced: datagrams to send, events, and when to call again.
public protocol SansIOOutput {
    associatedtype Event
    var transmits: [Transmit] { get }
    var events: [Event] { get }
    /// Call `timeout(now:)` no later than this; nil when the endpoint waits only for input.
    var deadline: TransportTime? { get }
}

/// An endpoint that never touches a socket or a clock: `PairHarness` hands it datagrams and timeouts at a virtual
/// time and carries what it sends over a `NetworkEmulator`.
public protocol SansIOEndpoint: AnyObject {
    associatedtype Output: SansIOOutput
    func receive(_ datagram: Transmit, now: TransportTime) -> Output
    func timeout(now: TransportTime) -> Output
}
