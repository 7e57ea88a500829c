#if canImport(Glibc)
import Glibc
#endif
import EngineTestSupport
import Foundation
import Testing
@testable import Renderer

/// The renderer's bytes played into a real terminal (tmux, when installed), captured with
/// `capture-pane -e`, replayed into `TerminalModel` and compared cell by cell with the screen
/// model: checks cursor addressing (CUP rows count from 1), relative moves and SGR against a
/// terminal the renderer did not write.
@Suite struct RealTerminalTests {
    static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs tmux; only `capture` commands read stdout (the server tmux forks keeps any pipe open).
    @discardableResult
    func run(_ arguments: [String], capture: Bool = false, wait: Bool = true) throws -> Data {
        let p = Process()
        p.standardInput = FileHandle.nullDevice
        p.executableURL = URL(fileURLWithPath: Self.tmux!)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = capture ? pipe : FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = capture ? pipe.fileHandleForReading.readDataToEndOfFile() : Data()
        if wait { p.waitUntilExit() }
        return data
    }

    @Test(.enabled(if: RealTerminalTests.tmux != nil), arguments: [ColorMode.truecolor, .palette256])
    func tmuxShowsWhatTheScreenModelSays(mode: ColorMode) throws {
        let columns = 30, rows = 10
        let screen = TerminalScreen(columns: columns, rows: rows)
        let tile = VideoTile(rect: CellRect(column: 2, row: 1, width: 26, height: 8), label: "peer",
                             options: TileOptions(colorMode: mode, refreshPeriod: nil))
        var rng = SplitMixRandom(seed: 2026)
        var pixels = (0..<(26 * 16)).map { _ in RGB(rng.byte(), rng.byte(), rng.byte()) }
        var stream: [UInt8] = []
        for frame in 0..<6 {
            for _ in 0..<40 { pixels[rng.int(0...(pixels.count - 1))] = RGB(rng.byte(), rng.byte(), rng.byte()) }
            var bytes: [UInt8] = []
            for p in pixels { bytes += [p.r, p.g, p.b] }
            tile.render(.rgb(try RGBImage(width: 26, height: 16, pixels: bytes)), now: Double(frame) / 30, on: screen)
            stream += screen.finishFrame()
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conftui-rt-\(getpid())-\(mode)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("frames.bin")
        try Data(stream).write(to: file)
        let socket = "conftui-rt-\(getpid())-\(mode)"
        defer { _ = try? run(["-L", socket, "kill-server"]) }
        try run(["-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)",
                 "env TERM=tmux-256color sh -c 'stty -onlcr; cat \(file.path); sleep 20'"], wait: false)
        // Wait (bounded) for cat to finish: the last frame's cells appear.
        var captured = Data()
        for _ in 0..<50 {
            usleep(100_000)
            captured = try run(["-L", socket, "capture-pane", "-p", "-e", "-N", "-t", "0"], capture: true)
            if String(decoding: captured, as: UTF8.self).contains("peer") { usleep(200_000); break }
        }
        captured = try run(["-L", socket, "capture-pane", "-p", "-e", "-N", "-t", "0"], capture: true)
        // Replay the capture: one line per row, each from column 0 with colours reset.
        var model = TerminalModel(columns: columns, rows: rows)
        let lines = String(decoding: captured, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (r, line) in lines.prefix(rows).enumerated() {
            model.feed(Array("\u{1B}[0m\u{1B}[\(r + 1);1H".utf8) + Array(line.utf8))
        }
        var checked = 0, wrong: [String] = []
        for r in 0..<rows {
            for c in 0..<columns where screen.known[r * columns + c] {
                let want = screen.cell(column: c, row: r), got = model.cell(column: c, row: r)
                if let wp = want.pixels {
                    // tmux may redraw a cell with the other half-block glyph or as a space: compare pixels.
                    let gp = got.pixels
                    let ok = gp != nil && Palette.rgb(of: gp!.top) == Palette.rgb(of: wp.top) && Palette.rgb(of: gp!.bottom) == Palette.rgb(of: wp.bottom)
                    if !ok { wrong.append("(\(c),\(r)) want \(wp) got \(String(describing: gp))") }
                } else if want.glyph != got.glyph {
                    wrong.append("(\(c),\(r)) want \(want.glyph) got \(got.glyph)")
                }
                checked += 1
            }
        }
        #expect(checked == columns * rows)
        #expect(wrong.count == 0, "\(wrong.count) cells differ, first: \(wrong.prefix(3))")
    }
}
