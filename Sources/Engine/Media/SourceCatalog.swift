import EngineTransport
/// Video source names, the same for every `--camera` option:
/// `auto` (the first camera, else `card`), `face` (a drawn person), `card` (the test card), `demo-card`, `bars`,
/// `clock`, `file:PATH.y4m` (looping), `/dev/videoN`.
public enum SourceCatalog {
    public static let synthetic = ["card", "bars", "clock"]

    /// What `c` (switch camera) cycles through: cameras first, then the synthetic sources, with
    /// `initial` (resolved from `auto`) where it falls in that order, or first when it is not in it (a file, `face`:
    /// the demo's face → card → bars → clock).
    public static func switchOrder(initial: String, cameras: [String]) -> [String] {
        var order = cameras + synthetic
        let resolved = resolve(initial, cameras: cameras)
        if !order.contains(resolved) { order.insert(resolved, at: 0) }
        return order
    }

    /// `auto` → the first camera, else `card`; other names unchanged.
    public static func resolve(_ name: String, cameras: [String]) -> String {
        name == "auto" ? (cameras.first ?? "card") : name
    }

    /// Opens a source by name. `participant` picks the test card's colour and the face's looks; `displayName` is the
    /// name the card and the face show; `speech` moves the face's mouth (the script the call's microphone says).
    public static func open(_ name: String, width: Int, height: Int, frameRate: Double, participant: UInt8 = 0,
                            displayName: String? = nil, speech: SpeechScript? = nil,
                            clock: @escaping @Sendable () -> Double) throws(EngineError) -> VideoSource {
        switch name {
        case "face":
            return try FaceSource(width: width, height: height, frameRate: frameRate, participant: participant,
                                  name: displayName, speech: speech, clock: clock)
        case "card":
            return try TestCardSource(width: width, height: height, frameRate: frameRate, participant: participant,
                                      name: displayName, clock: clock)
        case "demo-card":
            return SweepingLightSource(try TestCardSource(width: width, height: height, frameRate: frameRate,
                                                          participant: participant, name: displayName, clock: clock), clock: clock)
        case "bars":
            return try ColorBarsSource(width: width, height: height, frameRate: frameRate)
        case "clock":
            return try ClockSource(width: width, height: height, frameRate: frameRate, clock: clock)
        case "auto":
            return try open(resolve(name, cameras: V4L2Camera.list().map(\.path)), width: width, height: height,
                            frameRate: frameRate, participant: participant, displayName: displayName, speech: speech,
                            clock: clock)
        default:
            if name.hasPrefix("file:") {
                return try LoopingFileSource(path: String(name.dropFirst(5)))
            }
            if name.hasPrefix("/dev/video") {
                return try V4L2Camera(path: name, width: width, height: height, frameRate: frameRate, clock: clock)
            }
            throw .invalidArgument("unknown video source '\(name)': use auto, face, card, demo-card, bars, clock, file:PATH.y4m or /dev/videoN")
        }
    }
}

/// A Y4M file played in a loop (the file source of `--camera file:PATH.y4m`), with timestamps
/// that keep increasing across loops.
public final class LoopingFileSource: VideoSource {
    public let path: String
    private var reader: Y4MReader
    private var offset = 0.0
    private var lastInLoop = 0.0

    public init(path: String) throws(EngineError) {
        self.path = path
        reader = try Y4MReader(path: path)
        // An empty file would loop forever without a frame: refuse it up front.
        guard try Y4MReader(path: path).nextFrame() != nil else {
            throw .malformed(what: "y4m", reason: "\(path) holds no frame")
        }
    }

    public var frameRate: Double { reader.frameRate }

    public func nextFrame() throws(EngineError) -> VideoFrame? {
        if var frame = try reader.nextFrame() {
            lastInLoop = frame.timestamp
            frame.timestamp += offset
            return frame
        }
        // End of the file: start again, one frame interval after the last frame shown.
        offset += lastInLoop + 1 / reader.frameRate
        reader = try Y4MReader(path: path)
        return try reader.nextFrame().map { f in var f = f; lastInLoop = f.timestamp; f.timestamp += offset; return f }
    }
}
