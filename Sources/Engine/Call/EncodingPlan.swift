/// The rate of each video encoding and which peers take which: at most two encodings, so that one peer on a slow
/// link does not lower the picture everyone else receives (docs/congestion-control.md §8). Pure: the call core
/// passes each connected peer's video target and the previous plan, and applies the result.
///
/// The rule: sort the peers' targets and find the widest gap between neighbours (as a ratio). When it is wide
/// (`splitRatio`), the peers below it share a low encoding at the lowest target, the others a full encoding at the
/// lowest target above the gap; otherwise one encoding at the lowest target serves all, as before. A plan already
/// split stays split down to `mergeRatio`, so a sawtooth estimate near the threshold does not flip peers between
/// encodings (each switch costs that peer a keyframe).
public struct EncodingPlan: Equatable, Sendable {
    public enum Layer: Int, Sendable, Equatable, CaseIterable {
        case full = 0
        case low = 1

        /// The layer's bit in a set of layers kept as one integer (`MediaPipeline`'s keyframe requests and pauses).
        public var bit: Int { 1 << rawValue }
    }

    /// A split pays when the faster group gets a quarter more: at conftui's 300 kbit/s default, a peer whose link
    /// allows 240 kbit/s or less gets its own encoding. The second encoder costs little CPU at 320x240.
    public static let splitRatio = 1.25
    public static let mergeRatio = 1.1
    /// What a VP8 encoder is never set below.
    public static let minimumKbps = 30

    public var fullKbps: Int
    /// Nil: one encoding.
    public var lowKbps: Int?
    public var lowPeers: Set<RemotePeerID>

    public init(fullKbps: Int, lowKbps: Int? = nil, lowPeers: Set<RemotePeerID> = []) {
        self.fullKbps = fullKbps
        self.lowKbps = lowKbps
        self.lowPeers = lowPeers
    }

    public func layer(of peer: RemotePeerID) -> Layer { lowPeers.contains(peer) ? .low : .full }

    /// The same encodings for the same peers, each rate within 10 % of `other`'s: not worth a line in the log (the
    /// plan follows the estimates about every frame, and they move by a few percent a second).
    public func isClose(to other: EncodingPlan) -> Bool {
        func near(_ a: Int, _ b: Int) -> Bool { abs(a - b) * 10 <= max(a, b) }
        guard lowPeers == other.lowPeers, near(fullKbps, other.fullKbps) else { return false }
        switch (lowKbps, other.lowKbps) {
        case (nil, nil): return true
        case let (a?, b?): return near(a, b)
        default: return false
        }
    }

    /// The plan for `targets` (kbit/s per connected peer), each clamped to `minimumKbps...ceilingKbps`.
    public static func make(targets: [RemotePeerID: Int], ceilingKbps: Int, previous: EncodingPlan?) -> EncodingPlan {
        let sorted = targets.map { ($0.key, min(max($0.value, minimumKbps), ceilingKbps)) }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.rawValue < $1.0.rawValue }
        guard let lowest = sorted.first?.1 else { return EncodingPlan(fullKbps: ceilingKbps) }
        var widest: (index: Int, ratio: Double)?
        for i in sorted.indices.dropFirst() {
            let ratio = Double(sorted[i].1) / Double(sorted[i - 1].1)
            if ratio > (widest?.ratio ?? 1) { widest = (i, ratio) }
        }
        let threshold = previous?.lowKbps != nil ? mergeRatio : splitRatio
        guard let gap = widest, gap.ratio >= threshold else { return EncodingPlan(fullKbps: lowest) }
        return EncodingPlan(fullKbps: sorted[gap.index].1, lowKbps: lowest, lowPeers: Set(sorted[..<gap.index].map(\.0)))
    }
}
