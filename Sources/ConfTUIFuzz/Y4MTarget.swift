#if canImport(Glibc)
import Glibc
#endif
@testable import EngineMedia

/// Target 8, Y4M files (`--camera FILE`): the input is the file, written to a private temporary path (the reader
/// takes a path), then opened and read for two frames.
enum Y4MTarget {
    static let path = "/tmp/conftui-fuzz-\(getpid()).y4m"

    static func run(_ bytes: [UInt8]) {
        guard let f = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        defer { unlink(path) }
        guard let reader = try? Y4MReader(path: path) else { return }
        for _ in 0..<2 { guard (try? reader.nextFrame()) != nil else { break } }
    }
}
