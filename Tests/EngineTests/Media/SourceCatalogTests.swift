import Testing
@testable import EngineMedia
@testable import EngineTransport
#if canImport(Glibc)
import Glibc
#endif

@Test func switchOrderPutsCamerasFirstThenSyntheticSources() {
    #expect(SourceCatalog.switchOrder(initial: "auto", cameras: []) == ["card", "bars", "clock"])
    #expect(SourceCatalog.switchOrder(initial: "auto", cameras: ["/dev/video0"]) == ["/dev/video0", "card", "bars", "clock"])
    #expect(SourceCatalog.switchOrder(initial: "file:/tmp/a.y4m", cameras: []) == ["file:/tmp/a.y4m", "card", "bars", "clock"])
    #expect(SourceCatalog.resolve("auto", cameras: []) == "card")
}

@Test func everySyntheticNameOpensAtTheAskedSize() throws {
    for name in SourceCatalog.synthetic {
        let s = try SourceCatalog.open(name, width: 160, height: 120, frameRate: 15, clock: { 10 })
        let f = try #require(try s.nextFrame())
        #expect(f.width == 160 && f.height == 120, "\(name)")
    }
    #expect(throws: EngineError.self) { try SourceCatalog.open("webcam", width: 160, height: 120, frameRate: 15, clock: { 0 }) }
}

@Test func theCardsShowTheDisplayNameTheyAreOpenedWith() throws {
    for source in ["card", "demo-card"] {
        let named = try SourceCatalog.open(source, width: 160, height: 120, frameRate: 15, displayName: "Ada", clock: { 10 })
        let plain = try SourceCatalog.open(source, width: 160, height: 120, frameRate: 15, clock: { 10 })
        let a = try #require(try named.nextFrame()), b = try #require(try plain.nextFrame())
        #expect(a.y != b.y, "\(source): the name is drawn")
        // Above the code strip only: both still carry the same code.
        #expect(Array(a.y[(TestCard.bandTop(120) * a.yStride)...]) == Array(b.y[(TestCard.bandTop(120) * b.yStride)...]))
    }
}

@Test func aFileSourceLoopsWithIncreasingTimestamps() throws {
    let path = "/tmp/conftui-test-\(getpid()).y4m"
    var bytes = Array("YUV4MPEG2 W4 H2 F10:1 C420jpeg\n".utf8)
    for i in 0..<3 { bytes += Array("FRAME\n".utf8) + [UInt8](repeating: UInt8(50 + i), count: 8) + [UInt8](repeating: 128, count: 4) }
    let f = fopen(path, "wb")!
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
    fclose(f)
    defer { unlink(path) }
    let source = try SourceCatalog.open("file:\(path)", width: 4, height: 2, frameRate: 10, clock: { 0 })
    var last = -1.0
    var lumas: [UInt8] = []
    for _ in 0..<7 {
        let frame = try #require(try source.nextFrame())
        #expect(frame.timestamp > last)
        last = frame.timestamp
        lumas.append(frame.y[0])
    }
    #expect(lumas == [50, 51, 52, 50, 51, 52, 50])
    #expect(abs(last - 0.6) < 1e-9, "seven frames at 10 fps end at 0.6 s")
}

/// Found by libFuzzer (y4m target): a header's W of 16 digits went straight into `width * height`, a plane
/// allocation of petabytes (or an overflow trap). Dimensions beyond what VP8 can code are refused at the header.
@Test func aY4MHeaderWithHugeDimensionsIsRefused() {
    let path = "/tmp/conftui-test-huge-\(getpid()).y4m"
    for header in ["YUV4MPEG2 W7777777777777772 H2 F30:1 Ip A1:1 C420jpeg\n", "YUV4MPEG2 W16384 H2\n",
                   "YUV4MPEG2 W4611686018427387904 H4\n"] {
        let bytes = Array(header.utf8) + Array("FRAME\n".utf8) + [UInt8](repeating: 0x80, count: 64)
        let f = fopen(path, "wb")!
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        defer { unlink(path) }
        #expect(throws: EngineError.self, "\(header)") { _ = try Y4MReader(path: path) }
    }
}
