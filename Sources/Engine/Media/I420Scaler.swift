import EngineTransport
/// Scales an I420 frame to another size (area average when shrinking, nearest when growing),
/// so any source can feed an encoder of a fixed size: switching cameras never renegotiates.
public enum I420Scaler {
    public static func scale(_ f: VideoFrame, width: Int, height: Int) throws(EngineError) -> VideoFrame {
        if f.width == width && f.height == height { return f }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let y = plane(f.y, f.yStride, f.width, f.height, width, height)
        let u = plane(f.u, f.uStride, f.chromaWidth, f.chromaHeight, cw, ch)
        let v = plane(f.v, f.vStride, f.chromaWidth, f.chromaHeight, cw, ch)
        return try VideoFrame(width: width, height: height, y: y, u: u, v: v, timestamp: f.timestamp)
    }

    /// Each destination pixel averages the source rectangle it covers (at least one pixel).
    static func plane(_ src: [UInt8], _ stride: Int, _ sw: Int, _ sh: Int, _ dw: Int, _ dh: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: dw * dh)
        for dy in 0..<dh {
            let y0 = dy * sh / dh, y1 = max(y0 + 1, (dy + 1) * sh / dh)
            for dx in 0..<dw {
                let x0 = dx * sw / dw, x1 = max(x0 + 1, (dx + 1) * sw / dw)
                var sum = 0
                for sy in y0..<y1 {
                    let row = sy * stride
                    for sx in x0..<x1 { sum += Int(src[row + sx]) }
                }
                out[dy * dw + dx] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
            }
        }
        return out
    }
}
