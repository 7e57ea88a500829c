/// An 8-bit sRGB colour.
public struct RGB: Hashable, Sendable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    @inlinable public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }

    public static let black = RGB(0, 0, 0)
    public static let white = RGB(255, 255, 255)

    public var description: String { "rgb(\(r),\(g),\(b))" }

    /// A perceptual distance in 8-bit units: the larger of the luma difference and half the
    /// largest chroma-like difference (BT.601 weights). Luma errors are what a viewer sees
    /// first on faces and walls, so they may not exceed the tolerance; hue errors may be twice
    /// as large before they count the same. Cheap enough to run for every pixel of every frame.
    @inlinable @inline(__always) public func distance(to o: RGB) -> Int {
        let dr = Int(r) - Int(o.r), dg = Int(g) - Int(o.g), db = Int(b) - Int(o.b)
        let dy = (77 * dr + 150 * dg + 29 * db) / 256     // truncates toward zero: symmetric
        let ay = dy < 0 ? -dy : dy
        let cr = dr - dy, cb = db - dy, cg = dg - dy
        var ac = cr < 0 ? -cr : cr
        let acb = cb < 0 ? -cb : cb
        let acg = cg < 0 ? -cg : cg
        if acb > ac { ac = acb }
        if acg > ac { ac = acg }
        let half = ac >> 1
        return ay > half ? ay : half
    }

    /// Squared Euclidean RGB distance: the measure PSNR uses, so nearest-colour search uses it too.
    @inlinable public func squaredDistance(to o: RGB) -> Int {
        let dr = Int(r) - Int(o.r), dg = Int(g) - Int(o.g), db = Int(b) - Int(o.b)
        return dr * dr + dg * dg + db * db
    }
}
