import EngineTransport
/// The camera pixel formats conftui converts to I420 itself, in order of preference: the
/// planar ones need no maths, the packed 4:2:2 ones (what most UVC webcams offer uncompressed)
/// need chroma averaging. MJPEG-only cameras are not supported (it would need a JPEG decoder).
public enum PixelFormat: String, Sendable, CaseIterable {
    case yu12 = "YU12"   // I420 itself
    case yv12 = "YV12"   // I420 with U and V swapped
    case nv12 = "NV12"   // Y plane + interleaved UV
    case yuyv = "YUYV"   // packed Y0 U Y1 V
    case uyvy = "UYVY"   // packed U Y0 V Y1
    case rgb24 = "RGB3"  // packed R G B

    /// The V4L2 fourcc (little-endian a | b<<8 | c<<16 | d<<24).
    public var fourcc: UInt32 {
        let b = Array(rawValue.utf8)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    public init?(fourcc: UInt32) {
        guard let f = PixelFormat.allCases.first(where: { $0.fourcc == fourcc }) else { return nil }
        self = f
    }

    /// Bytes one frame needs at `width` x `height` with `bytesPerLine` (0: packed).
    public func minimumSize(width: Int, height: Int, bytesPerLine: Int) -> Int {
        switch self {
        case .yu12, .yv12, .nv12:
            let stride = max(bytesPerLine, width)
            return stride * height + 2 * ((stride + 1) / 2) * ((height + 1) / 2)
        case .yuyv, .uyvy: return max(bytesPerLine, width * 2) * (height - 1) + width * 2
        case .rgb24: return max(bytesPerLine, width * 3) * (height - 1) + width * 3
        }
    }
}

/// Conversions from camera buffers to I420 (pure functions, so every path is unit-tested without
/// a camera). Odd sizes are rounded down to even, as VP8 needs.
public enum PixelConversion {
    public static func toI420(_ data: UnsafeRawBufferPointer, format: PixelFormat, width w0: Int, height h0: Int,
                              bytesPerLine: Int, timestamp: Double) throws(EngineError) -> VideoFrame {
        let w = w0 & ~1, h = h0 & ~1
        guard w >= 2, h >= 2 else { throw .invalidArgument("camera frame \(w0)x\(h0)") }
        guard data.count >= format.minimumSize(width: w0, height: h0, bytesPerLine: bytesPerLine) else {
            throw .malformed(what: "camera frame", reason: "\(data.count) bytes for \(format.rawValue) \(w0)x\(h0)")
        }
        let cw = w / 2, ch = h / 2
        var y = [UInt8](repeating: 0, count: w * h)
        var u = [UInt8](repeating: 128, count: cw * ch)
        var v = [UInt8](repeating: 128, count: cw * ch)
        let src = data.bindMemory(to: UInt8.self)
        switch format {
        case .yu12, .yv12, .nv12:
            let stride = max(bytesPerLine, w0)
            for r in 0..<h { for c in 0..<w { y[r * w + c] = src[r * stride + c] } }
            let chromaBase = stride * h0
            let cstride = (stride + 1) / 2
            if format == .nv12 {
                for r in 0..<ch {
                    for c in 0..<cw {
                        u[r * cw + c] = src[chromaBase + r * stride + 2 * c]
                        v[r * cw + c] = src[chromaBase + r * stride + 2 * c + 1]
                    }
                }
            } else {
                let second = chromaBase + cstride * ((h0 + 1) / 2)
                let (uBase, vBase) = format == .yu12 ? (chromaBase, second) : (second, chromaBase)
                for r in 0..<ch {
                    for c in 0..<cw {
                        u[r * cw + c] = src[uBase + r * cstride + c]
                        v[r * cw + c] = src[vBase + r * cstride + c]
                    }
                }
            }
        case .yuyv, .uyvy:
            let stride = max(bytesPerLine, w0 * 2)
            let (yOff, uOff, vOff) = format == .yuyv ? (0, 1, 3) : (1, 0, 2)
            for r in 0..<h {
                let row = r * stride
                for c in 0..<w { y[r * w + c] = src[row + 2 * c + yOff] }
            }
            // 4:2:2 → 4:2:0: average the chroma of each pair of rows.
            for r in 0..<ch {
                let a = 2 * r * stride, b = (2 * r + 1) * stride
                for c in 0..<cw {
                    let q = 4 * c
                    u[r * cw + c] = UInt8((Int(src[a + q + uOff]) + Int(src[b + q + uOff]) + 1) / 2)
                    v[r * cw + c] = UInt8((Int(src[a + q + vOff]) + Int(src[b + q + vOff]) + 1) / 2)
                }
            }
        case .rgb24:
            let stride = max(bytesPerLine, w0 * 3)
            // BT.601 limited range, the colour space WebRTC video and VP8 assume.
            for r in 0..<h {
                for c in 0..<w {
                    let p = r * stride + 3 * c
                    let R = Int(src[p]), G = Int(src[p + 1]), B = Int(src[p + 2])
                    y[r * w + c] = UInt8(clamping: ((66 * R + 129 * G + 25 * B + 128) >> 8) + 16)
                }
            }
            for r in 0..<ch {
                for c in 0..<cw {
                    var R = 0, G = 0, B = 0
                    for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        let p = (2 * r + dy) * stride + 3 * (2 * c + dx)
                        R += Int(src[p]); G += Int(src[p + 1]); B += Int(src[p + 2])
                    }
                    R /= 4; G /= 4; B /= 4
                    u[r * cw + c] = UInt8(clamping: ((-38 * R - 74 * G + 112 * B + 128) >> 8) + 128)
                    v[r * cw + c] = UInt8(clamping: ((112 * R - 94 * G - 18 * B + 128) >> 8) + 128)
                }
            }
        }
        return try VideoFrame(width: w, height: h, y: y, u: u, v: v, timestamp: timestamp)
    }
}
