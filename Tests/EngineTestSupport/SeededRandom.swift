// Every Swift test draws from Engine's SplitMix64, the generator production uses, so a seed means the same thing
// everywhere. Test targets get it from here (Renderer's, RoomModel's and Signaling's tests need nothing else of Engine).
@_exported import struct Engine.SplitMixRandom

extension SplitMixRandom {
    public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) } }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}
