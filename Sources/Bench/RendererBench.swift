#if canImport(Glibc)
import Glibc
#endif
import Engine
import Renderer

/// `conftui-bench renderer`: bytes per frame, picture quality and encode time of the terminal
/// renderer on the three benchmark clips, next to a naive full-redraw encoder (what mpv's
/// `--vo=tct` does) run in the same process on the same frames.
///
/// Quality is the PSNR of what a model terminal shows after replaying the bytes, against the
/// source converted to RGB (BT.601 limited range) per source pixel and then area-averaged to the
/// same pixel grid in floating point: a reference computed independently of the renderer's
/// integer scaler.
let rendererSuite = BenchSuite(
    name: "renderer",
    summary: "terminal renderer: bytes/frame, PSNR and ms/frame vs a naive full redraw (clips from $CONFTUI_CLIPS)",
    run: { try RendererBench.run() })

enum RendererBench {
    static let clips = ["talkhead", "talkhead_noise", "testsrc2"]
    static var sizes: [(Int, Int)] { getenv("CONFTUI_BENCH_QUICK") != nil ? [(128, 48)] : [(64, 24), (128, 48)] }
    static var modes: [(name: String, mode: ColorMode, dither: Bool)] {
        let all = allModes
        guard let only = getenv("CONFTUI_BENCH_MODES") else { return getenv("CONFTUI_BENCH_QUICK") != nil ? [all[0]] : all }
        let names = String(cString: only).split(separator: ",").map(String.init)
        return all.filter { names.contains($0.name) }
    }
    static let allModes: [(name: String, mode: ColorMode, dither: Bool)] = [
        ("truecolor", .truecolor, false), ("256", .palette256, true), ("256-nearest", .palette256, false),
    ]

    struct Row {
        var clip: String, cells: String, mode: String
        var mean: Double, p95: Int, psnr: Double, blurredPSNR: Double, ms: Double, msMedian: Double
        var naiveMean: Double, naivePSNR: Double, naiveMs: Double
    }

    static func run() throws {
        let directory = getenv("CONFTUI_CLIPS").map { String(cString: $0) } ?? ".build/clips"
        var rows: [Row] = []
        print("clips from \(directory)")
        var headerShown = false
        func header() {
            if headerShown { return }
            headerShown = true
            print(pad("clip", 15) + pad("cells", 7) + pad("mode", 11) + lpad("B/frame", 9) + lpad("p95", 8) + lpad("PSNR dB", 9)
              + lpad("2x2 dB", 8) + lpad("CPU ms/f", 10) + lpad("ms p50", 8) + " | " + lpad("naive B/f", 10) + lpad("PSNR", 7) + lpad("ms", 7))
        }
        for clip in clips {
            let path = "\(directory)/\(clip).y4m"
            guard access(path, R_OK) == 0 else {
                print("missing \(path): run `make bench` (converts the clips from CLIPS_SRC) or set CONFTUI_CLIPS")
                continue
            }
            let frames = try loadFrames(path)
            if clip == clips[0] { printScalerCost(frames) }
            header()
            for (cw, ch) in sizes {
                let reference = frames.map { referencePixels($0, width: cw, height: ch * 2) }
                for m in modes {
                    let ours = measure(frames, reference, cw, ch) { TileEncoder(mode: m.mode, dither: m.dither, columns: cw, rows: ch) }
                    let naive = measure(frames, reference, cw, ch) { NaiveEncoder(mode: m.mode, columns: cw, rows: ch) }
                    let row = Row(clip: clip, cells: "\(cw)x\(ch)", mode: m.name, mean: ours.mean, p95: ours.p95, psnr: ours.psnr,
                                  blurredPSNR: ours.blurredPSNR,
                                  ms: ours.ms, msMedian: ours.msMedian, naiveMean: naive.mean, naivePSNR: naive.psnr, naiveMs: naive.ms)
                    rows.append(row)
                    print(pad(clip, 15) + pad(row.cells, 7) + pad(m.name, 11) + lpad(fmt(row.mean, 0), 9) + lpad("\(row.p95)", 8)
                          + lpad(fmt(row.psnr, 2), 9) + lpad(fmt(row.blurredPSNR, 2), 8) + lpad(fmt(row.ms, 3), 10) + lpad(fmt(row.msMedian, 3), 8) + " | " + lpad(fmt(row.naiveMean, 0), 10)
                          + lpad(fmt(row.naivePSNR, 2), 7) + lpad(fmt(row.naiveMs, 3), 7))
                }
            }
        }
        writeJSONLines(rows, to: "bench-results/renderer.jsonl")
    }

    // MARK: encoders under test

    protocol Encoder {
        /// Encodes one frame; returns the bytes for the terminal.
        mutating func encode(_ frame: I420Image, now: Double) -> [UInt8]
    }

    struct TileEncoder: Encoder {
        let screen: TerminalScreen
        let tile: VideoTile
        init(mode: ColorMode, dither: Bool, columns: Int, rows: Int) {
            screen = TerminalScreen(columns: columns, rows: rows)
            var options = TileOptions(colorMode: mode, dither: dither)
            // CONFTUI_RENDERER_TUNING="tolerance,settle,settleFrames,reuse" explores the trade-off.
            if let t = getenv("CONFTUI_RENDERER_TUNING") {
                let v = String(cString: t).split(separator: ",").compactMap { Int($0) }
                if v.count == 4 {
                    options.tolerance = v[0]; options.settleTolerance = v[1]; options.settleFrames = v[2]; options.reuseTolerance = v[3]
                }
            }
            tile = VideoTile(rect: CellRect(column: 0, row: 0, width: columns, height: rows), options: options)
        }
        mutating func encode(_ frame: I420Image, now: Double) -> [UInt8] {
            tile.render(.i420(frame), now: now, on: screen)
            return screen.finishFrame()
        }
    }

    /// Every cell, every frame, fg and bg SGR per cell, a CUP per row: mpv `--vo=tct`'s scheme.
    struct NaiveEncoder: Encoder {
        let mode: ColorMode, columns: Int, rows: Int
        let scaler = BoxScaler()
        var pixels: [UInt8] = []
        init(mode: ColorMode, columns: Int, rows: Int) { self.mode = mode; self.columns = columns; self.rows = rows }
        mutating func encode(_ frame: I420Image, now: Double) -> [UInt8] {
            scaler.scale(.i420(frame), width: columns, height: rows * 2, into: &pixels)
            var out: [UInt8] = []
            out.reserveCapacity(columns * rows * 40)
            func number(_ n: Int) { out.append(contentsOf: Array(String(n).utf8)) }
            for r in 0..<rows {
                out.append(contentsOf: [0x1B, 0x5B]); number(r + 1); out.append(contentsOf: Array(";1H".utf8))
                for c in 0..<columns {
                    let t = 3 * (2 * r * columns + c), b = t + 3 * columns
                    if mode == .truecolor {
                        out.append(contentsOf: Array("\u{1B}[38;2;".utf8))
                        number(Int(pixels[t])); out.append(0x3B); number(Int(pixels[t + 1])); out.append(0x3B); number(Int(pixels[t + 2]))
                        out.append(contentsOf: Array(";48;2;".utf8))
                        number(Int(pixels[b])); out.append(0x3B); number(Int(pixels[b + 1])); out.append(0x3B); number(Int(pixels[b + 2]))
                    } else {
                        out.append(contentsOf: Array("\u{1B}[38;5;".utf8))
                        number(Int(Palette.nearest256(RGB(pixels[t], pixels[t + 1], pixels[t + 2]))))
                        out.append(contentsOf: Array(";48;5;".utf8))
                        number(Int(Palette.nearest256(RGB(pixels[b], pixels[b + 1], pixels[b + 2]))))
                    }
                    out.append(contentsOf: [0x6D, 0xE2, 0x96, 0x80])
                }
            }
            out.append(contentsOf: [0x1B, 0x5B, 0x30, 0x6D])
            return out
        }
    }

    /// `blurredPSNR` compares 2x2-pixel means (one cell wide, one cell tall): roughly what a viewer
    /// sees of half-block pixels, and the measure under which dithering pays off.
    /// `msMedian` resists the other processes on a shared machine preempting a frame.
    struct Measurement { var mean: Double; var p95: Int; var psnr: Double; var blurredPSNR: Double; var ms: Double; var msMedian: Double }

    static func measure<E: Encoder>(_ frames: [I420Image], _ reference: [[Double]], _ columns: Int, _ rows: Int,
                                    _ make: () -> E) -> Measurement {
        var encoder = make()
        var model = TerminalModel(columns: columns, rows: rows)
        var sizes: [Int] = []
        var squaredError = 0.0, samples = 0
        var blurredError = 0.0, blurredSamples = 0
        var nanoseconds: UInt64 = 0
        var perFrame: [UInt64] = []
        for (i, frame) in frames.enumerated() {
            let t0 = cpuNanoseconds()
            let bytes = encoder.encode(frame, now: Double(i) / 30)
            let spent = cpuNanoseconds() - t0
            nanoseconds += spent
            perFrame.append(spent)
            sizes.append(bytes.count)
            model.feed(bytes)
            let ref = reference[i]
            var diff = [Double](repeating: 0, count: columns * rows * 2 * 3)
            for py in 0..<(rows * 2) {
                for px in 0..<columns {
                    let shown = model.pixel(column: px, pixelRow: py)
                    let k = 3 * (py * columns + px)
                    let dr = Double(shown.r) - ref[k], dg = Double(shown.g) - ref[k + 1], db = Double(shown.b) - ref[k + 2]
                    diff[k] = dr; diff[k + 1] = dg; diff[k + 2] = db
                    squaredError += dr * dr + dg * dg + db * db
                    samples += 3
                }
            }
            for by in 0..<rows {
                for bx in 0..<(columns / 2) {
                    for ch in 0..<3 {
                        var d = 0.0
                        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] { d += diff[3 * ((2 * by + dy) * columns + 2 * bx + dx) + ch] }
                        d /= 4
                        blurredError += d * d
                        blurredSamples += 1
                    }
                }
            }
        }
        let sorted = sizes.sorted()
        let mse = squaredError / Double(max(1, samples))
        return Measurement(mean: Double(sizes.reduce(0, +)) / Double(max(1, sizes.count)),
                           p95: sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 95 / 100)],
                           psnr: mse == 0 ? 99 : 10 * log10(255 * 255 / mse),
                           blurredPSNR: blurredError == 0 ? 99 : 10 * log10(255 * 255 * Double(blurredSamples) / blurredError),
                           ms: Double(nanoseconds) / 1e6 / Double(max(1, frames.count)),
                           msMedian: perFrame.isEmpty ? 0 : Double(perFrame.sorted()[perFrame.count / 2]) / 1e6)
    }

    /// The scaler alone (I420 to RGB at 128x96 pixels), so its share of the encode time is known.
    static func printScalerCost(_ frames: [I420Image]) {
        let scaler = BoxScaler()
        var out: [UInt8] = []
        let t0 = cpuNanoseconds()
        for _ in 0..<3 { for f in frames { scaler.scale(.i420(f), width: 128, height: 96, into: &out) } }
        let ms = Double(cpuNanoseconds() - t0) / 1e6 / Double(3 * max(1, frames.count))
        print("box scale + BT.601 to RGB, \(frames.first?.width ?? 0)x\(frames.first?.height ?? 0) -> 128x96: \(fmt(ms, 4)) CPU ms/frame")
    }

    // MARK: reference picture

    /// BT.601 limited range to RGB per source pixel (clamped), then an exact area average to
    /// `width`x`height` (the letterbox fits 4:3 clips exactly at 64x48 and 128x96 pixels).
    static func referencePixels(_ f: I420Image, width: Int, height: Int) -> [Double] {
        var rgb = [Double](repeating: 0, count: f.width * f.height * 3)
        for y in 0..<f.height {
            for x in 0..<f.width {
                let yy = 1.164 * (Double(f.y[y * f.yStride + x]) - 16)
                let u = Double(f.u[(y / 2) * f.uStride + x / 2]) - 128, v = Double(f.v[(y / 2) * f.vStride + x / 2]) - 128
                let k = 3 * (y * f.width + x)
                rgb[k] = min(255, max(0, yy + 1.596 * v))
                rgb[k + 1] = min(255, max(0, yy - 0.392 * u - 0.813 * v))
                rgb[k + 2] = min(255, max(0, yy + 2.017 * u))
            }
        }
        let sx = Double(f.width) / Double(width), sy = Double(f.height) / Double(height)
        var out = [Double](repeating: 0, count: width * height * 3)
        for oy in 0..<height {
            let y0 = Double(oy) * sy, y1 = y0 + sy
            for ox in 0..<width {
                let x0 = Double(ox) * sx, x1 = x0 + sx
                var acc = (0.0, 0.0, 0.0)
                var y = Int(y0)
                while Double(y) < y1 && y < f.height {
                    let wy = min(y1, Double(y + 1)) - max(y0, Double(y))
                    var x = Int(x0)
                    while Double(x) < x1 && x < f.width {
                        let wgt = wy * (min(x1, Double(x + 1)) - max(x0, Double(x)))
                        let k = 3 * (y * f.width + x)
                        acc.0 += wgt * rgb[k]; acc.1 += wgt * rgb[k + 1]; acc.2 += wgt * rgb[k + 2]
                        x += 1
                    }
                    y += 1
                }
                let area = sx * sy, k = 3 * (oy * width + ox)
                out[k] = acc.0 / area; out[k + 1] = acc.1 / area; out[k + 2] = acc.2 / area
            }
        }
        return out
    }

    // MARK: plumbing

    static func loadFrames(_ path: String) throws -> [I420Image] {
        let reader = try Y4MReader(path: path)
        var frames: [I420Image] = []
        while let f = try reader.nextFrame() { frames.append(try image(f)) }
        return frames
    }

    static func writeJSONLines(_ rows: [Row], to path: String) {
        mkdir("bench-results", 0o755)
        guard let file = fopen(path, "w") else { print("cannot write \(path)"); return }
        defer { fclose(file) }
        for r in rows {
            let line = "{\"clip\":\"\(r.clip)\",\"cells\":\"\(r.cells)\",\"color_mode\":\"\(r.mode)\","
                + "\"bytes_per_frame_mean\":\(fmt(r.mean, 1)),\"bytes_per_frame_p95\":\(r.p95),\"psnr_db\":\(fmt(r.psnr, 2)),\"psnr_2x2_db\":\(fmt(r.blurredPSNR, 2)),"
                + "\"ms_per_frame\":\(fmt(r.ms, 4)),\"ms_per_frame_median\":\(fmt(r.msMedian, 4)),\"naive_bytes_per_frame_mean\":\(fmt(r.naiveMean, 1)),"
                + "\"naive_psnr_db\":\(fmt(r.naivePSNR, 2)),\"naive_ms_per_frame\":\(fmt(r.naiveMs, 4))}\n"
            fputs(line, file)
        }
        print("wrote \(rows.count) rows to \(path)")
    }

    /// CPU time of this thread: on a shared 2-core machine wall time counts other processes'
    /// slices too, and the figure wanted is the CPU the renderer costs (its column in docs/benchmarks.md).
    static func cpuNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func fmt(_ v: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let r = (v * scale).rounded() / scale
        var s = String(r)
        if decimals == 0, s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }
    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
    static func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? " " + s : String(repeating: " ", count: n - s.count) + s }
}
/// Engine's decoded frame as the renderer's input (the planes are shared, not copied).
private func image(_ f: VideoFrame) throws -> I420Image {
    try I420Image(width: f.width, height: f.height, y: f.y, yStride: f.yStride, u: f.u, uStride: f.uStride, v: f.v, vStride: f.vStride)
}
