import EngineTransport
/// One decoded picture in planar I420 (YUV 4:2:0, 8 bits), the format of VP8 decoders,
/// webcams and Y4M files. Chroma planes are half size, rounded up for odd sizes.
public struct VideoFrame: Sendable {
    public var width: Int
    public var height: Int
    public var y: [UInt8]
    public var u: [UInt8]
    public var v: [UInt8]
    public var yStride: Int
    public var uStride: Int
    public var vStride: Int
    /// Presentation time in seconds from the start of the stream.
    public var timestamp: Double

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    public init(width: Int, height: Int, y: [UInt8], yStride: Int, u: [UInt8], uStride: Int,
                v: [UInt8], vStride: Int, timestamp: Double) throws(EngineError) {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        guard width > 0, height > 0, yStride >= width, uStride >= cw, vStride >= cw,
              y.count >= yStride * (height - 1) + width,
              u.count >= uStride * (ch - 1) + cw, v.count >= vStride * (ch - 1) + cw else {
            throw .invalidArgument("I420 planes do not fit \(width)x\(height) with strides \(yStride)/\(uStride)/\(vStride)")
        }
        self.width = width; self.height = height
        self.y = y; self.u = u; self.v = v
        self.yStride = yStride; self.uStride = uStride; self.vStride = vStride
        self.timestamp = timestamp
    }

    /// A tightly packed frame.
    public init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8], timestamp: Double) throws(EngineError) {
        try self.init(width: width, height: height, y: y, yStride: width, u: u, uStride: (width + 1) / 2,
                      v: v, vStride: (width + 1) / 2, timestamp: timestamp)
    }
}

/// Anything that yields video frames one at a time (a file, a generator, later a camera).
public protocol VideoSource: AnyObject {
    /// Nominal frames per second (for pacing a preview).
    var frameRate: Double { get }
    /// The next frame, or nil at the end of the stream.
    func nextFrame() throws(EngineError) -> VideoFrame?
}
