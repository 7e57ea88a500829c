import Testing
@testable import EngineMedia
@testable import EngineTransport

/// A small I420 picture with distinct values everywhere, to see every sample land in its place.
private func reference(_ w: Int, _ h: Int) throws -> VideoFrame {
    let y = (0..<(w * h)).map { UInt8(16 + ($0 * 7) % 200) }
    let u = (0..<((w / 2) * (h / 2))).map { UInt8(40 + ($0 * 5) % 150) }
    let v = (0..<((w / 2) * (h / 2))).map { UInt8(60 + ($0 * 3) % 140) }
    return try VideoFrame(width: w, height: h, y: y, u: u, v: v, timestamp: 0)
}

/// Packs `f` the way a camera would deliver `format`, with `pad` bytes of padding per line.
private func pack(_ f: VideoFrame, _ format: PixelFormat, pad: Int) -> (bytes: [UInt8], bytesPerLine: Int) {
    let w = f.width, h = f.height, cw = w / 2
    switch format {
    case .yu12, .yv12, .nv12:
        let stride = w + pad
        var out = [UInt8](repeating: 0, count: stride * h + 2 * (stride / 2) * (h / 2))
        for r in 0..<h { for c in 0..<w { out[r * stride + c] = f.y[r * w + c] } }
        let base = stride * h, cs = stride / 2
        for r in 0..<(h / 2) {
            for c in 0..<cw {
                let (uu, vv) = (f.u[r * cw + c], f.v[r * cw + c])
                switch format {
                case .nv12: out[base + r * stride + 2 * c] = uu; out[base + r * stride + 2 * c + 1] = vv
                case .yu12: out[base + r * cs + c] = uu; out[base + cs * (h / 2) + r * cs + c] = vv
                default: out[base + r * cs + c] = vv; out[base + cs * (h / 2) + r * cs + c] = uu
                }
            }
        }
        return (out, stride)
    case .yuyv, .uyvy:
        let stride = w * 2 + pad
        var out = [UInt8](repeating: 0, count: stride * h)
        for r in 0..<h {
            for c in 0..<cw {
                let y0 = f.y[r * w + 2 * c], y1 = f.y[r * w + 2 * c + 1]
                let uu = f.u[(r / 2) * cw + c], vv = f.v[(r / 2) * cw + c]
                let q = r * stride + 4 * c
                if format == .yuyv { out[q] = y0; out[q + 1] = uu; out[q + 2] = y1; out[q + 3] = vv }
                else { out[q] = uu; out[q + 1] = y0; out[q + 2] = vv; out[q + 3] = y1 }
            }
        }
        return (out, stride)
    case .rgb24:
        fatalError("rgb24 is tested on its own")
    }
}

@Test(arguments: [PixelFormat.yu12, .yv12, .nv12, .yuyv, .uyvy], [0, 8])
func cameraFormatsConvertToTheSameI420(format: PixelFormat, pad: Int) throws {
    let f = try reference(16, 8)
    let (bytes, bpl) = pack(f, format, pad: pad)
    let got = try bytes.withUnsafeBytes { raw in
        try PixelConversion.toI420(raw, format: format, width: 16, height: 8, bytesPerLine: bpl, timestamp: 1.5)
    }
    #expect(got.y == f.y)
    #expect(got.u == f.u)
    #expect(got.v == f.v)
    #expect(got.timestamp == 1.5)
}

@Test func rgbConvertsWithBT601LimitedRange() throws {
    // white, black, pure red, pure blue as 2x2 blocks
    let colours: [(UInt8, UInt8, UInt8)] = [(255, 255, 255), (0, 0, 0), (255, 0, 0), (0, 0, 255)]
    var bytes = [UInt8](repeating: 0, count: 8 * 2 * 3)
    for c in 0..<8 { for r in 0..<2 { let (R, G, B) = colours[c / 2]; let p = r * 24 + 3 * c; bytes[p] = R; bytes[p + 1] = G; bytes[p + 2] = B } }
    let f = try bytes.withUnsafeBytes { try PixelConversion.toI420($0, format: .rgb24, width: 8, height: 2, bytesPerLine: 0, timestamp: 0) }
    #expect(f.y[0] == 235 && f.y[2] == 16, "white and black at studio levels")
    #expect(abs(Int(f.y[4]) - 82) <= 1 && f.v[2] == 240, "red: Y 82, Cr 240")
    #expect(abs(Int(f.y[6]) - 41) <= 1 && f.u[3] == 240, "blue: Y 41, Cb 240")
}

@Test func aShortOrOddBufferIsAnErrorAndOddSizesRoundDown() throws {
    let short = [UInt8](repeating: 0, count: 10)
    #expect(throws: EngineError.self) {
        try short.withUnsafeBytes { try PixelConversion.toI420($0, format: .yuyv, width: 16, height: 8, bytesPerLine: 0, timestamp: 0) }
    }
    let odd = [UInt8](repeating: 128, count: 17 * 2 * 9)
    let f = try odd.withUnsafeBytes { try PixelConversion.toI420($0, format: .yuyv, width: 17, height: 9, bytesPerLine: 0, timestamp: 0) }
    #expect(f.width == 16 && f.height == 8)
}

@Test func fourccsMatchTheKernelHeader() {
    #expect(PixelFormat.yuyv.fourcc == 0x5659_5559)   // V4L2_PIX_FMT_YUYV 'YUYV'
    #expect(PixelFormat(fourcc: 0x3231_5559) == .yu12)  // 'YU12'
    #expect(PixelFormat(fourcc: 0x3231_5659) == .yv12)  // 'YV12'
    #expect(PixelFormat(fourcc: 0x4750_4A4D) == nil)    // 'MJPG' is not supported
}

private let cameras = V4L2Camera.list()

@Test(.enabled(if: !cameras.isEmpty, "no V4L2 capture device on this machine (no /dev/video*, no v4l2loopback): capture test skipped"))
func aRealCameraDeliversI420Frames() throws {
    let camera = try V4L2Camera(path: cameras[0].path, width: 320, height: 240, clock: { 0 })
    var frames = 0
    for _ in 0..<10 { if let f = try camera.nextFrame() { frames += 1; #expect(f.width > 0 && f.height > 0) } }
    #expect(frames > 0, "\(cameras[0].card) delivered no frame in 10 s")
}
