import Engine
#if canImport(Glibc)
import Glibc
#endif

/// VP8 and Opus costs on this machine, and how well the test card survives VP8 at 150 kbps.
/// CPU time (not wall time) per frame, so the other core's load does not count; "core share"
/// is what a 15 fps (video) or 50 fps (audio) stream of it costs of one core.
let mediaSuite = BenchSuite(name: "media", summary: "VP8 encode/decode, Opus encode+decode, test card accuracy at 150 kbps") {
    var rows: [[String]] = []
    var json: [String] = []
    for (w, h, kbps) in [(320, 240, 300), (640, 480, 800)] {
        let card = try TestCardSource(width: w, height: h, participant: 2, clock: { wallClock() })
        let frames = try (0..<150).map { _ in try card.nextFrame()! }
        let encoder = try VP8Encoder(width: w, height: h, bitrateKbps: kbps)
        var encoded: [EncodedVideoFrame] = []
        let encodeSeconds = try cpuTime {
            for f in frames { if let e = try encoder.encode(f) { encoded.append(e) } }
        }
        let decoder = try VP8Decoder()
        let decodeSeconds = try cpuTime {
            for e in encoded { _ = try decoder.decode(e.data, timestamp: e.timestamp) }
        }
        let enc = encodeSeconds * 1000 / Double(frames.count), dec = decodeSeconds * 1000 / Double(max(1, encoded.count))
        let bytes = encoded.reduce(0) { $0 + $1.data.count }
        rows.append(["VP8 \(w)x\(h) @\(kbps) kbps", fmt(enc), fmt(dec), fmt((enc + dec) * 15 / 10) + " %",
                     "\(bytes * 8 * 15 / max(1, encoded.count) / 1000) kbps"])
        json.append(#"{"what":"vp8","width":\#(w),"height":\#(h),"encode_ms":\#(fmt(enc)),"decode_ms":\#(fmt(dec))}"#)
    }
    var tone = ToneSource(frequency: 440)
    let audio = (0..<500).map { _ in tone.nextFrame() }
    let opusEncoder = try OpusEncoder()
    let opusDecoder = try OpusDecoder()
    let opusSeconds = try cpuTime {
        for f in audio { _ = try opusDecoder.decode(try opusEncoder.encode(f).packet) }
    }
    let opus = opusSeconds * 1000 / Double(audio.count)
    rows.append(["Opus 20 ms mono 32 kbps (enc+dec)", "", "", fmt(opus * 50 / 10) + " %", fmt(opus) + " ms/frame"])
    json.append(#"{"what":"opus","encode_decode_ms":\#(fmt(opus))}"#)
    printTable(header: ["stream", "encode ms/frame", "decode ms/frame", "core share", "note"], rows: rows)

    print("")
    var accuracyRows: [[String]] = []
    for (w, h) in [(320, 240), (640, 480)] {
        let card = try TestCardSource(width: w, height: h, participant: 5, clock: { wallClock() })
        let encoder = try VP8Encoder(width: w, height: h, bitrateKbps: 150)
        let decoder = try VP8Decoder()
        var decoded = 0, correct = 0
        for _ in 0..<300 {
            let f = try card.nextFrame()!
            guard let e = try encoder.encode(f), let d = try decoder.decode(e.data, timestamp: e.timestamp) else { continue }
            decoded += 1
            if let code = TestCard.decode(d), code == TestCard.decode(f) { correct += 1 }
        }
        let pct = 100 * Double(correct) / Double(max(1, decoded))
        accuracyRows.append(["test card \(w)x\(h) @150 kbps", "\(decoded)", "\(correct)", fmt(pct) + " %"])
        json.append(#"{"what":"testcard","width":\#(w),"height":\#(h),"kbps":150,"frames":\#(decoded),"read_correctly_pct":\#(fmt(pct))}"#)
    }
    printTable(header: ["test card", "frames decoded", "codes read", "accuracy"], rows: accuracyRows)
    writeJSONLines(json, to: "bench-results/media.jsonl")
}

func wallClock() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds this thread spent in `body` (immune to what the other core is doing).
func cpuTime(_ body: () throws -> Void) rethrows -> Double {
    var a = timespec(), b = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a)
    try body()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b)
    return Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) / 1e9
}

func fmt(_ v: Double, _ digits: Int = 2) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (v * scale).rounded() / scale
    var s = "\(r)"
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
    } else if digits > 0 { s += "." + String(repeating: "0", count: digits) }
    return s
}

func printTable(header: [String], rows: [[String]]) {
    var widths = header.map(\.count)
    for row in rows { for (i, c) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { i, c in c + String(repeating: " ", count: widths[i] - c.count) }.joined(separator: " | ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-"))
    for row in rows { print(line(row)) }
}

func writeJSONLines(_ lines: [String], to path: String) {
    mkdir("bench-results", 0o755)
    guard let f = fopen(path, "w") else { return }
    for l in lines { fputs(l + "\n", f) }
    fclose(f)
}
