import Testing
@testable import EngineMedia

/// The ring gives what "append, then keep the last `capacity`" gives, for any sequence of frame sizes.
@Test func theRingKeepsTheLastSamplesInOrder() {
    var generator = SystemRandomNumberGenerator()
    for capacity in [1, 7, 960, 24_000] {
        var ring = RecentSamples(capacity: capacity)
        var reference: [Int16] = []
        #expect(ring.isEmpty && ring.samples.isEmpty)
        for _ in 0..<60 {
            let frame = (0..<Int.random(in: 0...(2 * capacity + 3), using: &generator)).map { _ in
                Int16.random(in: .min ... .max, using: &generator)
            }
            ring.append(frame)
            reference = Array((reference + frame).suffix(capacity))
            #expect(ring.samples == reference, "capacity \(capacity)")
            #expect(ring.count == reference.count)
        }
    }
}
