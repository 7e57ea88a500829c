#if canImport(Glibc)
import Glibc
#endif
import EngineTransport

/// Reads YUV4MPEG2 (`.y4m`) files: a text header line (`YUV4MPEG2 W320 H240 F30:1 C420jpeg …`)
/// then, per frame, a `FRAME` line and the raw Y, U and V planes. Only 4:2:0 8-bit is accepted
/// (C420, C420jpeg, C420paldv, C420mpeg2, or no C tag, which the format defines as 4:2:0).
public final class Y4MReader: VideoSource {
    public let width: Int
    public let height: Int
    public let frameRate: Double
    private let file: UnsafeMutablePointer<FILE>
    /// The largest width or height VP8 can code.
    public static let maxDimension = 16_383
    private var frameIndex = 0

    public init(path: String) throws(EngineError) {
        guard let f = fopen(path, "rb") else {
            throw .invalidArgument("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        file = f
        let header: String
        do { header = try Self.readLine(f, limit: 1024) } catch { fclose(f); throw error }
        let fields = header.split(separator: " ")
        guard fields.first == "YUV4MPEG2" else { fclose(f); throw .malformed(what: "y4m", reason: "no YUV4MPEG2 signature") }
        var w = 0, h = 0, rate = 30.0
        for field in fields.dropFirst() {
            let value = field.dropFirst()
            switch field.first {
            case "W": w = Int(value) ?? 0
            case "H": h = Int(value) ?? 0
            case "F":
                let parts = value.split(separator: ":")
                if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), n > 0, d > 0 { rate = n / d }
            case "C":
                guard value.hasPrefix("420") && !value.contains("p1") else {
                    fclose(f); throw .malformed(what: "y4m", reason: "colour space C\(value) is not 8-bit 4:2:0")
                }
            default: break
            }
        }
        guard w > 0, h > 0 else { fclose(f); throw .malformed(what: "y4m", reason: "missing W/H in '\(header)'") }
        // The frames go to a VP8 encoder, whose frame header carries 14-bit dimensions (RFC 6386 §9.1); bounding
        // them here also keeps `width * height` (the plane sizes read per frame) far from overflow.
        guard w <= Self.maxDimension, h <= Self.maxDimension else {
            fclose(f); throw .malformed(what: "y4m", reason: "W\(w) H\(h) exceeds \(Self.maxDimension)")
        }
        width = w; height = h; frameRate = rate
    }

    deinit { fclose(file) }

    private static func readLine(_ f: UnsafeMutablePointer<FILE>, limit: Int) throws(EngineError) -> String {
        var bytes: [UInt8] = []
        while true {
            let c = getc(f)
            if c == EOF { if bytes.isEmpty { return "" }; break }
            if c == 0x0A { break }
            bytes.append(UInt8(c))
            if bytes.count > limit { throw .malformed(what: "y4m", reason: "header line longer than \(limit) bytes") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public func nextFrame() throws(EngineError) -> VideoFrame? {
        let line = try Self.readLine(file, limit: 1024)
        if line.isEmpty && feof(file) != 0 { return nil }
        guard line.hasPrefix("FRAME") else { throw .malformed(what: "y4m", reason: "expected FRAME, got '\(line.prefix(16))'") }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        func plane(_ n: Int) throws(EngineError) -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: n)
            let got = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, n, file) }
            guard got == n else { throw .malformed(what: "y4m", reason: "frame \(frameIndex) truncated") }
            return buffer
        }
        let y = try plane(width * height), u = try plane(cw * ch), v = try plane(cw * ch)
        defer { frameIndex += 1 }
        return try VideoFrame(width: width, height: height, y: y, u: u, v: v, timestamp: Double(frameIndex) / frameRate)
    }
}
