import Engine
import Renderer
import RoomModel
#if canImport(Glibc)
import Glibc
#endif

/// Draws participants' video with the Renderer, behind curses' back: curses owns the chrome
/// (labels, placeholders, status bar, overlays), the Renderer owns the video rectangles and
/// remembers what the terminal shows there, so only cells that visibly changed are written.
///
/// The bytes are wrapped in DECSC/DECRC (ESC 7 / ESC 8): curses keeps its idea of the cursor
/// position and attributes, and never notices (docs/toolchain-pitfalls.md §6: without it, the next curses
/// update lands on the wrong row).
final class TerminalVideoPainter: VideoPainter {
    /// The latest frame of a tile (a participant's main video or a further stream), or nil when there is none to show.
    typealias FrameSource = (Tile) -> VideoFrame?

    private let screen: TerminalScreen
    private var tiles: [TileID: VideoTile] = [:]
    private let options: TileOptions
    private let frames: FrameSource
    private let clock: () -> Double
    /// Total bytes written, for the stats overlay and the benchmark of bytes per second.
    private(set) var bytesWritten = 0
    private var painted = Set<TileID>()
    /// Called after a flush, once per remote main-video frame that reached the terminal for the first time (its bytes
    /// are written): the glass-to-glass probe of `join --latency-log` reads the test card's capture time from it.
    var onFramePainted: ((Participant, VideoFrame) -> Void)?
    private var lastTimestamp: [ParticipantID: Double] = [:]
    private var newlyPainted: [(Participant, VideoFrame)] = []

    init(colorMode: ColorMode, bytesPerSecond: Int = ByteBudget.defaultBytesPerSecond,
         clock: @escaping () -> Double, frames: @escaping FrameSource) {
        screen = TerminalScreen(columns: 1, rows: 1, budget: ByteBudget(bytesPerSecond: bytesPerSecond))
        var o = TileOptions()
        o.colorMode = colorMode
        o.dither = colorMode != .truecolor
        options = o
        self.frames = frames
        self.clock = clock
    }

    func hasVideo(for tile: Tile) -> Bool { frames(tile) != nil }

    func paint(_ tile: Tile, in rect: RoomModel.CellRect) {
        let id = tile.id
        let participant = tile.participant
        let (cols, rows) = terminalSize()
        if screen.columns != cols || screen.rows != rows {
            screen.resize(columns: max(1, cols), rows: max(1, rows))
            discardClear()
        }
        guard let frame = frames(tile), let image = try? I420Image(
            width: frame.width, height: frame.height, y: frame.y, yStride: frame.yStride,
            u: frame.u, uStride: frame.uStride, v: frame.v, vStride: frame.vStride) else { return }
        let target = Renderer.CellRect(column: rect.x, row: rect.y, width: rect.width, height: rect.height)
        let video: VideoTile
        if let existing = tiles[id] {
            video = existing
            if video.rect != target { video.move(to: target) }
        } else {
            video = VideoTile(rect: target, options: options)
            tiles[id] = video
        }
        video.render(.i420(image), now: clock(), on: screen)
        painted.insert(id)
        if onFramePainted != nil, tile.isMain, !participant.isLocal, lastTimestamp[participant.id] != frame.timestamp {
            lastTimestamp[participant.id] = frame.timestamp
            newlyPainted.append((participant, frame))
        }
    }

    func flush() {
        // Tiles of participants who left or streams that ended are forgotten (a new tile starts from scratch).
        for id in tiles.keys where !painted.contains(id) { tiles[id] = nil }
        painted.removeAll(keepingCapacity: true)
        let bytes = screen.finishFrame()
        defer {
            for (p, f) in newlyPainted { onFramePainted?(p, f) }
            newlyPainted.removeAll(keepingCapacity: true)
        }
        guard !bytes.isEmpty else { return }
        var out: [UInt8] = [0x1B, 0x37, 0x1B, 0x5B, 0x30, 0x6D]   // ESC 7 (save cursor and attributes), SGR 0
        out += bytes
        out += [0x1B, 0x38]               // ESC 8: restore them
        bytesWritten += out.count
        out.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(1, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
    }

    func withhold(_ rect: RoomModel.CellRect?) {
        screen.withheld = rect.map { Renderer.CellRect(column: $0.x, row: $0.y, width: $0.width, height: $0.height) }
    }

    func invalidate() {
        screen.invalidate()
        discardClear()
    }

    /// After `invalidate`/`resize` the screen's next frame starts by clearing the terminal, which
    /// would wipe curses' chrome. Closing that frame now and dropping its bytes keeps the clear off
    /// the wire; the tiles still repaint every one of their cells (a new screen generation forces
    /// them), so nothing is lost.
    private func discardClear() {
        _ = screen.finishFrame()
    }

    private func terminalSize() -> (Int, Int) {
        var ws = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 { return (Int(ws.ws_col), Int(ws.ws_row)) }
        return (80, 24)
    }
}
