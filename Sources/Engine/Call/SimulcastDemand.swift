/// Which of our two simulcast encodings anybody in a forwarding server's room takes, so that a publisher stops
/// encoding the one nobody receives (what other SFUs call dynacast). Pure: the session tells it who publishes in
/// the room and what each of them said it takes; it answers which encodings to keep.
///
/// Janus tells a publisher nothing about its subscribers' layers, so conftui participants say it themselves, on
/// their publication's data channel, which the server relays to everyone (`JanusLayerWish` in Signaling, docs/janus.md). The rules:
/// - A participant that never said (a browser, aiortc, a conftui that has not said yet) may take either: both stay.
/// - A room with nobody else in it keeps both: a subscriber that does not publish is invisible to us, and a
///   newcomer's first picture should not wait for an encoder to start.
/// - An encoding stops only when every other publisher said it takes the other one. When one is wrong (a viewer we
///   cannot see wants the full picture), Janus falls back to the encoding that flows (its simulcast context drops a
///   layer after 250 ms without packets), so the worst case is a smaller picture, never none.
public struct SimulcastDemand: Equatable, Sendable {
    public typealias Layer = EncodingPlan.Layer

    private var present: Set<RemotePeerID> = []
    private var wishes: [RemotePeerID: Layer] = [:]

    public init() {}

    /// A publisher is in the room (a wish it sent before is kept).
    public mutating func joined(_ peer: RemotePeerID) { present.insert(peer) }

    /// A publisher left: what it took no longer counts.
    public mutating func left(_ peer: RemotePeerID) {
        present.remove(peer)
        wishes[peer] = nil
    }

    /// `peer` said it takes `layer` of every publisher. A wish from somebody not (yet) in the room is kept for when
    /// they are: the data channel can be faster than the server's event.
    public mutating func heard(_ layer: Layer, from peer: RemotePeerID) { wishes[peer] = layer }

    /// The encodings to send: both unless every other publisher said which one it takes.
    public var layers: (full: Bool, low: Bool) {
        guard !present.isEmpty else { return (true, true) }
        var full = false, low = false
        for peer in present {
            switch wishes[peer] {
            case .full?: full = true
            case .low?: low = true
            case nil: return (true, true)
            }
        }
        return (full, low)
    }
}
