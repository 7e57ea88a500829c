/// A planar I420 picture as the renderer reads it: three 8-bit planes with their own strides,
/// chroma subsampled 2x2 (rounded up for odd sizes). The renderer owns this type so it never
/// needs to import Engine; callers wrap their decoder's planes in it without copying.
public struct I420Image: Sendable {
    public let width: Int
    public let height: Int
    public let y: [UInt8]
    public let u: [UInt8]
    public let v: [UInt8]
    public let yStride: Int
    public let uStride: Int
    public let vStride: Int

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Checks that every plane holds `stride * (rows - 1) + width` bytes, so the scaler can
    /// index without bounds surprises.
    public init(width: Int, height: Int, y: [UInt8], yStride: Int, u: [UInt8], uStride: Int,
                v: [UInt8], vStride: Int) throws(RendererError) {
        guard width > 0, height > 0 else { throw .invalidFrame("size \(width)x\(height)") }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        guard yStride >= width else { throw .invalidFrame("Y stride \(yStride) < width \(width)") }
        guard uStride >= cw, vStride >= cw else { throw .invalidFrame("chroma stride < \(cw)") }
        guard y.count >= yStride * (height - 1) + width else { throw .invalidFrame("Y plane has \(y.count) bytes") }
        guard u.count >= uStride * (ch - 1) + cw else { throw .invalidFrame("U plane has \(u.count) bytes") }
        guard v.count >= vStride * (ch - 1) + cw else { throw .invalidFrame("V plane has \(v.count) bytes") }
        self.width = width; self.height = height
        self.y = y; self.u = u; self.v = v
        self.yStride = yStride; self.uStride = uStride; self.vStride = vStride
    }

    /// A tightly packed picture (strides equal to the plane widths).
    public init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8]) throws(RendererError) {
        try self.init(width: width, height: height, y: y, yStride: width, u: u, uStride: (width + 1) / 2,
                      v: v, vStride: (width + 1) / 2)
    }
}

/// A packed 8-bit RGB picture (3 bytes a pixel, `stride` bytes a row).
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let stride: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, stride: Int? = nil, pixels: [UInt8]) throws(RendererError) {
        guard width > 0, height > 0 else { throw .invalidFrame("size \(width)x\(height)") }
        let s = stride ?? width * 3
        guard s >= width * 3 else { throw .invalidFrame("RGB stride \(s) < \(width * 3)") }
        guard pixels.count >= s * (height - 1) + width * 3 else { throw .invalidFrame("RGB image has \(pixels.count) bytes") }
        self.width = width; self.height = height; self.stride = s; self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> RGB {
        let i = y * stride + x * 3
        return RGB(pixels[i], pixels[i + 1], pixels[i + 2])
    }
}

/// The two kinds of picture a tile accepts.
public enum VideoInput: Sendable {
    case i420(I420Image)
    case rgb(RGBImage)

    public var width: Int { switch self { case .i420(let f): f.width; case .rgb(let f): f.width } }
    public var height: Int { switch self { case .i420(let f): f.height; case .rgb(let f): f.height } }
}
