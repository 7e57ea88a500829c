#if canImport(Glibc)
import Glibc
#endif
import CNcurses
import Engine
import Renderer
import Synchronization

/// `conftui preview`: the camera check before a call. Shows a video source in the terminal
/// through the same renderer and tile that draw peers, or writes the exact byte stream to a file
/// (`--output`, sized by `--size`) so its cost can be measured.
let previewCommand = Command(
    name: "preview",
    summary: "show a video source in the terminal exactly as peers will see it (camera check)",
    options: [
        .value("camera", "SRC", "video source: bars (default), face, card, clock, auto, /dev/videoN or file:PATH.y4m (played once)"),
        .value("size", "WxH", "tile size in cells (default: the terminal; 128x48 with --output)"),
        ColorChoice.option,
        .value("frames", "N", "stop after N frames (default: the whole file; other sources: forever, 300 with --output)"),
        .value("output", "FILE", "write the terminal byte stream to FILE instead of the terminal"),
        .flag("nearest", "nearest colour instead of ordered dithering in the 256/16-colour modes"),
    ],
    details: """
    keys: q or Ctrl-C quits, Ctrl-L repaints.
    example: conftui preview --camera file:talkhead.y4m --size 128x48 --color 256 --output /tmp/out.ans
    """,
    run: { args in try Preview(args).run() })

/// Set from signal handlers, read by the preview loop.
private let interrupted = Atomic<Bool>(false)
private let resized = Atomic<Bool>(false)

private struct Preview {
    let source: any VideoSource
    let sourceName: String
    let size: (Int, Int)?
    let mode: ColorMode
    let dither: Bool
    let frameLimit: Int?
    let outputPath: String?

    init(_ args: ParsedArguments) throws {
        if !args.positional.isEmpty { throw UsageError("preview takes no positional arguments") }
        outputPath = args.value("output")
        let camera = args.value("camera") ?? "bars"
        sourceName = camera
        if camera.hasPrefix("file:") {
            // Played once, not looped: `--output` measures exactly the file's frames.
            let path = String(camera.dropFirst(5))
            guard path.hasSuffix(".y4m") else { throw UsageError("--camera file: needs a .y4m file (convert with ffmpeg -pix_fmt yuv420p)") }
            source = try Y4MReader(path: path)
        } else {
            do {
                source = try SourceCatalog.open(camera, width: 320, height: 240, frameRate: 30, clock: { wallClockSeconds() })
            } catch {
                throw UsageError("\(error)")
            }
        }
        if let text = args.value("size") {
            let parts = text.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...1000).contains(w), (1...1000).contains(h) else {
                throw UsageError("--size takes WxH in cells, e.g. 128x48, not '\(text)'")
            }
            size = (w, h)
        } else {
            size = nil
        }
        mode = try ColorChoice.parse(args).renderMode(environment: Self.environment(), terminfoColors: Self.terminfoColors())
        dither = !args.has("nearest")
        if args.value("frames") != nil {
            frameLimit = try args.int("frames", default: 0, range: 1...10_000_000)
        } else {
            frameLimit = (!camera.hasPrefix("file:") && outputPath != nil) ? 300 : nil
        }
    }

    static func environment() -> [String: String] {
        var env: [String: String] = [:]
        for name in ["COLORTERM", "TERM", "NO_COLOR"] { if let v = getenv(name) { env[name] = String(cString: v) } }
        return env
    }

    /// terminfo's `colors` for $TERM, read through a curses screen on /dev/null so nothing
    /// reaches the terminal.
    static func terminfoColors() -> Int? {
        guard let term = getenv("TERM"), let out = fopen("/dev/null", "w") else { return nil }
        defer { fclose(out) }
        guard let input = fopen("/dev/null", "r") else { return nil }
        defer { fclose(input) }
        guard let screen = newterm(term, out, input) else { return nil }
        let n = tigetnum("colors")
        endwin()
        delscreen(screen)
        return n > 0 ? Int(n) : nil
    }

    func run() throws -> Int32 {
        if let path = outputPath { return try runToFile(path) }
        return try runOnTerminal()
    }

    func frameImage(_ f: VideoFrame) throws -> VideoInput {
        .i420(try I420Image(width: f.width, height: f.height, y: f.y, yStride: f.yStride, u: f.u, uStride: f.uStride,
                            v: f.v, vStride: f.vStride))
    }

    func makeTile(columns: Int, rows: Int) -> VideoTile {
        VideoTile(rect: CellRect(column: 0, row: 0, width: columns, height: rows), label: "you · \(sourceName)",
                  options: TileOptions(colorMode: mode, dither: dither))
    }

    func runToFile(_ path: String) throws -> Int32 {
        let (columns, rows) = size ?? (128, 48)
        guard let file = fopen(path, "wb") else { throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        let screen = TerminalScreen(columns: columns, rows: rows, exclusive: true)
        let tile = makeTile(columns: columns, rows: rows)
        var count = 0, total = 0
        while frameLimit.map({ count < $0 }) ?? true, let frame = try source.nextFrame() {
            tile.render(try frameImage(frame), now: frame.timestamp, on: screen)
            let bytes = screen.finishFrame()
            if !bytes.isEmpty { _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } }
            total += bytes.count; count += 1
        }
        let mean = count > 0 ? total / count : 0
        print("preview: \(count) frames, \(columns)x\(rows) cells, \(mode) colour: \(total) bytes (\(mean) bytes/frame) to \(path)")
        return 0
    }

    static func terminalSize() -> (Int, Int)? {
        var ws = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }

    static func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(1, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }

    func runOnTerminal() throws -> Int32 {
        guard isatty(1) != 0 else { throw UsageError("stdout is not a terminal: use --output FILE to write the byte stream") }
        var (columns, rows) = size ?? Self.terminalSize() ?? (80, 24)
        // Raw-ish input: no echo, no line buffering, so q and Ctrl-L arrive at once; Ctrl-C stays a signal.
        var saved = termios()
        let haveTTYInput = isatty(0) != 0 && tcgetattr(0, &saved) == 0
        if haveTTYInput {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(0, TCSANOW, &raw)
        }
        signal(SIGINT) { _ in interrupted.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in interrupted.store(true, ordering: .relaxed) }
        signal(SIGWINCH) { _ in resized.store(true, ordering: .relaxed) }
        Self.writeAll(Array("\u{1B}[?1049h\u{1B}[?25l".utf8))      // alternate screen, hide cursor
        defer {
            Self.writeAll(Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8))
            if haveTTYInput { tcsetattr(0, TCSANOW, &saved) }
        }

        // Nothing else writes to the terminal while the preview runs.
        let screen = TerminalScreen(columns: columns, rows: rows, exclusive: true)
        let tile = makeTile(columns: columns, rows: rows)
        let start = MonotonicClock.now()
        var count = 0
        while !interrupted.load(ordering: .relaxed), frameLimit.map({ count < $0 }) ?? true {
            if resized.exchange(false, ordering: .relaxed), size == nil, let s = Self.terminalSize() {
                (columns, rows) = s
                screen.resize(columns: columns, rows: rows)
                tile.move(to: CellRect(column: 0, row: 0, width: columns, height: rows))
            }
            if haveTTYInput && readKeys(screen) { break }
            guard let frame = try source.nextFrame() else { break }
            // Pace to the source's clock; a late frame is drawn at once, never queued.
            let due = start + Double(count) / source.frameRate
            let wait = due - MonotonicClock.now()
            if wait > 0 {
                var ts = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - Double(Int(wait))) * 1e9))
                nanosleep(&ts, nil)
            }
            tile.render(try frameImage(frame), now: MonotonicClock.now() - start, on: screen)
            Self.writeAll(screen.finishFrame())
            count += 1
        }
        return 0
    }

    /// Handles pending keys; true means quit.
    func readKeys(_ screen: TerminalScreen) -> Bool {
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        while poll(&fds, 1, 0) > 0 && fds.revents & Int16(POLLIN) != 0 {
            var byte: UInt8 = 0
            guard read(0, &byte, 1) == 1 else { return false }
            switch byte {
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 3: return true
            case 12: screen.invalidate()
            default: break
            }
        }
        return false
    }
}
