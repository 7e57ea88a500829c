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

    /// Each destination pixel averages the source rectangle it covers (at least one pixel). Exact halving, what a
    /// simulcast low layer does every frame, has a loop of its own: the general one costs a division per pixel.
    static func plane(_ src: [UInt8], _ stride: Int, _ sw: Int, _ sh: Int, _ dw: Int, _ dh: Int) -> [UInt8] {
        // The loops below read without bounds checks: every read is inside the plane `VideoFrame` validated.
        precondition(sw > 0 && sh > 0 && stride >= sw && src.count >= stride * (sh - 1) + sw, "plane smaller than its size")
        if sw == 2 * dw, sh == 2 * dh { return halve(src, stride, dw, dh) }
        let columns = (0..<dw).map { dx in
            let x0 = dx * sw / dw
            return (x0, max(x0 + 1, (dx + 1) * sw / dw))
        }
        return [UInt8](unsafeUninitializedCapacity: dw * dh) { out, count in
            src.withUnsafeBufferPointer { s in
                for dy in 0..<dh {
                    let y0 = dy * sh / dh, y1 = max(y0 + 1, (dy + 1) * sh / dh)
                    for (dx, (x0, x1)) in columns.enumerated() {
                        var sum = 0
                        for sy in y0..<y1 {
                            let row = sy * stride
                            for sx in x0..<x1 { sum += Int(s[row + sx]) }
                        }
                        out[dy * dw + dx] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
                    }
                }
            }
            count = dw * dh
        }
    }

    /// Each destination pixel is the truncated mean of a 2x2 block (what the general loop computes for this size).
    static func halve(_ src: [UInt8], _ stride: Int, _ dw: Int, _ dh: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: dw * dh) { out, count in
            src.withUnsafeBufferPointer { s in
                for dy in 0..<dh {
                    let top = 2 * dy * stride, bottom = top + stride, line = dy * dw
                    for dx in 0..<dw {
                        let sum = Int(s[top + 2 * dx]) + Int(s[top + 2 * dx + 1])
                            + Int(s[bottom + 2 * dx]) + Int(s[bottom + 2 * dx + 1])
                        out[line + dx] = UInt8(truncatingIfNeeded: sum >> 2)
                    }
                }
            }
            count = dw * dh
        }
    }
}
