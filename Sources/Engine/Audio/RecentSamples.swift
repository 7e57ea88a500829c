/// The last `capacity` samples of a stream, kept in a ring: appending a 20 ms frame costs the frame, where appending
/// to an array and dropping its front moved the whole half second (48 KB) every frame, for every participant.
public struct RecentSamples: Sendable {
    public let capacity: Int
    private var ring: [Int16]
    /// Where the next sample goes (the oldest one once the ring is full).
    private var next = 0
    public private(set) var count = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = [Int16](repeating: 0, count: self.capacity)
    }

    public var isEmpty: Bool { count == 0 }

    public mutating func append(_ samples: [Int16]) {
        for s in samples.suffix(capacity) {
            ring[next] = s
            next = next + 1 == capacity ? 0 : next + 1
        }
        count = min(capacity, count + samples.count)
    }

    /// Oldest first.
    public var samples: [Int16] {
        count < capacity ? Array(ring[0..<count]) : Array(ring[next...] + ring[..<next])
    }
}
