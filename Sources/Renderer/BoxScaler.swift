/// Area-average (box) resampling of an I420 or RGB picture to an RGB pixel grid of any size.
///
/// Every output pixel is the exact area-weighted mean of the source pixels it covers, computed in
/// integers: along an axis of `n` source and `m` output pixels, source pixel `i` spans `[i*m, (i+1)*m)`
/// and output pixel `o` spans `[o*n, (o+1)*n)`, so overlaps are whole numbers and each output's
/// weights sum to `n`. The same rule upsamples (a 1x1 source fills the grid). Chroma planes are
/// resampled straight from their own half-resolution grid, which covers the same picture area.
/// I420 converts to RGB after averaging with BT.601 limited-range coefficients.
///
/// The weight tables depend only on the sizes, so a scaler keeps them between frames.
public final class BoxScaler {
    private struct Axis: Equatable {
        let source: Int
        let output: Int
        var first: [Int32] = []    // first source index per output pixel
        var count: [Int32] = []    // number of source pixels per output pixel
        var offset: [Int32] = []   // start of this output pixel's weights in `weights`
        var weights: [Int32] = []
        /// When no output pixel needs more than 4 source pixels (up to a 3x downscale, and every
        /// upscale): 4 taps per output, zero-padded, so the hot loop has no inner branch.
        var taps4Index: [Int32] = []
        var taps4Weight: [Int32] = []

        init(source: Int, output: Int) {
            self.source = source; self.output = output
            var maxCount = 0
            for o in 0..<output {
                let lo = o * source, hi = (o + 1) * source
                let i0 = lo / output, i1 = (hi - 1) / output
                first.append(Int32(i0)); count.append(Int32(i1 - i0 + 1)); offset.append(Int32(weights.count))
                maxCount = max(maxCount, i1 - i0 + 1)
                for i in i0...i1 {
                    let a = max(lo, i * output), b = min(hi, (i + 1) * output)
                    weights.append(Int32(b - a))
                }
            }
            if maxCount <= 4 {
                for o in 0..<output {
                    let n = Int(count[o]), k = Int(offset[o]), i0 = Int(first[o])
                    for j in 0..<4 {
                        taps4Index.append(Int32(j < n ? i0 + j : i0))
                        taps4Weight.append(j < n ? weights[k + j] : 0)
                    }
                }
            }
        }
        static func == (l: Axis, r: Axis) -> Bool { l.source == r.source && l.output == r.output }
    }

    private var axes: [Axis] = []
    private var rowSums: [Int32] = []
    private var planeY: [Int32] = []
    private var planeU: [Int32] = []
    private var planeV: [Int32] = []

    public init() {}

    private func axis(_ source: Int, _ output: Int) -> Axis {
        for a in axes where a.source == source && a.output == output { return a }
        let a = Axis(source: source, output: output)
        if axes.count >= 8 { axes.removeFirst() }
        axes.append(a)
        return a
    }

    /// Resamples one 8-bit plane into `out` (`ow*oh` values scaled by 16, i.e. 4 fractional bits).
    ///
    /// Vertical pass first: it runs over whole source rows with one weight per row, which the
    /// compiler vectorizes; the horizontal pass then only sees `oh` rows.
    private func resample(_ plane: UnsafeBufferPointer<UInt8>, stride: Int, width: Int, height: Int,
                          ow: Int, oh: Int, into out: inout [Int32]) {
        let ax = axis(width, ow), ay = axis(height, oh)
        if rowSums.count < oh * width { rowSums = [Int32](repeating: 0, count: oh * width) }
        if out.count < ow * oh { out = [Int32](repeating: 0, count: ow * oh) }
        // Column sums are at most 255*height: Int32 holds them for any height below 8 million.
        rowSums.withUnsafeMutableBufferPointer { sums in
            ay.first.withUnsafeBufferPointer { first in
            ay.count.withUnsafeBufferPointer { count in
            ay.offset.withUnsafeBufferPointer { offset in
            ay.weights.withUnsafeBufferPointer { w in
                for o in 0..<oh {
                    let acc = UnsafeMutableBufferPointer(rebasing: sums[(o * width)..<((o + 1) * width)])
                    for x in 0..<width { acc[x] = 0 }
                    let r0 = Int(first[o]), k0 = Int(offset[o])
                    for j in 0..<Int(count[o]) {
                        let weight = w[k0 + j]
                        let row = UnsafeBufferPointer(rebasing: plane[((r0 + j) * stride)..<((r0 + j) * stride + width)])
                        for x in 0..<width { acc[x] &+= Int32(row[x]) &* weight }
                    }
                }
            }}}}
        }
        // Horizontal pass, then one rounded multiply by the reciprocal of width*height. Sums are at
        // most 255*width*height, which Int32 holds up to 4K sources; larger ones take the 64-bit loop.
        let denominator = Int64(width) * Int64(height)
        let reciprocal = ((Int64(1) << 40) + denominator / 2) / denominator
        if !ax.taps4Index.isEmpty && denominator * 255 < Int64(Int32.max) {
            rowSums.withUnsafeBufferPointer { sums in
            out.withUnsafeMutableBufferPointer { dst in
            ax.taps4Index.withUnsafeBufferPointer { idx in
            ax.taps4Weight.withUnsafeBufferPointer { w in
                for o in 0..<oh {
                    let row = UnsafeBufferPointer(rebasing: sums[(o * width)..<((o + 1) * width)])
                    let base = o * ow
                    for x in 0..<ow {
                        let t = 4 &* x
                        let s0 = row[Int(idx[t])] &* w[t] &+ row[Int(idx[t &+ 1])] &* w[t &+ 1]
                        let s1 = row[Int(idx[t &+ 2])] &* w[t &+ 2] &+ row[Int(idx[t &+ 3])] &* w[t &+ 3]
                        let s = Int64(s0 &+ s1)
                        dst[base &+ x] = Int32(truncatingIfNeeded: (s &* 16 &* reciprocal &+ (1 << 39)) >> 40)
                    }
                }
            }}}}
            return
        }
        rowSums.withUnsafeBufferPointer { sums in
        out.withUnsafeMutableBufferPointer { dst in
            ax.first.withUnsafeBufferPointer { first in
            ax.count.withUnsafeBufferPointer { count in
            ax.offset.withUnsafeBufferPointer { offset in
            ax.weights.withUnsafeBufferPointer { w in
                for o in 0..<oh {
                    let src = o * width, base = o * ow
                    for x in 0..<ow {
                        var s: Int64 = 0
                        var i = src + Int(first[x]), k = Int(offset[x])
                        for _ in 0..<Int(count[x]) { s &+= Int64(sums[i]) &* Int64(w[k]); i += 1; k += 1 }
                        // value*16, rounded: (s*16/den) with the reciprocal in 40-bit fixed point.
                        dst[base + x] = Int32(truncatingIfNeeded: (s &* 16 &* reciprocal &+ (1 << 39)) >> 40)
                    }
                }
            }}}}
        }}
    }

    /// Scales `input` to `width`x`height` RGB pixels, written into `out` (3 bytes a pixel, packed).
    public func scale(_ input: VideoInput, width ow: Int, height oh: Int, into out: inout [UInt8]) {
        precondition(ow > 0 && oh > 0)
        if out.count != ow * oh * 3 { out = [UInt8](repeating: 0, count: ow * oh * 3) }
        switch input {
        case .i420(let f):
            f.y.withUnsafeBufferPointer { resample($0, stride: f.yStride, width: f.width, height: f.height, ow: ow, oh: oh, into: &planeY) }
            f.u.withUnsafeBufferPointer { resample($0, stride: f.uStride, width: f.chromaWidth, height: f.chromaHeight, ow: ow, oh: oh, into: &planeU) }
            f.v.withUnsafeBufferPointer { resample($0, stride: f.vStride, width: f.chromaWidth, height: f.chromaHeight, ow: ow, oh: oh, into: &planeV) }
            planeY.withUnsafeBufferPointer { py in
            planeU.withUnsafeBufferPointer { pu in
            planeV.withUnsafeBufferPointer { pv in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<(ow * oh) {
                    let rgb = YUV.toRGB(y16: py[i], u16: pu[i], v16: pv[i])
                    dst[3 * i] = rgb.r; dst[3 * i + 1] = rgb.g; dst[3 * i + 2] = rgb.b
                }
            }}}}
        case .rgb(let f):
            // Treat the packed picture as three interleaved planes by resampling each channel.
            for c in 0..<3 {
                let channel: [UInt8] = {
                    var plane = [UInt8](repeating: 0, count: f.width * f.height)
                    for y in 0..<f.height { for x in 0..<f.width { plane[y * f.width + x] = f.pixels[y * f.stride + 3 * x + c] } }
                    return plane
                }()
                channel.withUnsafeBufferPointer { resample($0, stride: f.width, width: f.width, height: f.height, ow: ow, oh: oh, into: &planeY) }
                planeY.withUnsafeBufferPointer { p in
                out.withUnsafeMutableBufferPointer { dst in
                    for i in 0..<(ow * oh) { dst[3 * i + c] = UInt8(clamping: (p[i] + 8) >> 4) }
                }}
            }
        }
    }
}

/// BT.601 limited-range ("studio swing") YCbCr to RGB, the matrix of webcams and VP8/H.264 video.
public enum YUV {
    /// Converts Y, U and V given with 4 fractional bits (value*16).
    @inline(__always) public static func toRGB(y16: Int32, u16: Int32, v16: Int32) -> RGB {
        // R = 1.164(Y-16) + 1.596(V-128); G = 1.164(Y-16) - 0.392(U-128) - 0.813(V-128);
        // B = 1.164(Y-16) + 2.017(U-128). Coefficients * 256; inputs * 16 → shift by 12.
        let c = 298 &* (y16 &- 256)
        let d = u16 &- 2048, e = v16 &- 2048
        let half: Int32 = 1 << 11
        let r = (c &+ 409 &* e &+ half) >> 12
        let g = (c &- 100 &* d &- 208 &* e &+ half) >> 12
        let b = (c &+ 516 &* d &+ half) >> 12
        return RGB(UInt8(clamping: r), UInt8(clamping: g), UInt8(clamping: b))
    }

    /// Converts one 8-bit sample triple.
    public static func toRGB(y: UInt8, u: UInt8, v: UInt8) -> RGB {
        toRGB(y16: Int32(y) << 4, u16: Int32(u) << 4, v16: Int32(v) << 4)
    }
}
