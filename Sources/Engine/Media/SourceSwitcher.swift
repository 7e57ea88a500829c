import EngineTransport
/// The camera a call sends from, switchable mid-call without renegotiation ("c" in the TUI):
/// frames from whichever source is current are scaled to one fixed size and stamped with
/// timestamps that never go backwards, so the encoder and the peers see one continuous stream.
public final class SourceSwitcher {
    public struct Entry {
        public let name: String
        public let source: VideoSource
        public init(name: String, source: VideoSource) { self.name = name; self.source = source }
    }

    public let width: Int
    public let height: Int
    public private(set) var entries: [Entry]
    public private(set) var index: Int
    private var lastTimestamp = -Double.infinity
    private let clock: () -> Double

    /// - Parameter clock: capture time in seconds; every frame is stamped with it, whatever
    ///   origin its source used.
    public init(entries: [Entry], width: Int, height: Int, startAt index: Int = 0,
                clock: @escaping () -> Double) throws(EngineError) {
        guard !entries.isEmpty else { throw .invalidArgument("no video source") }
        self.entries = entries; self.width = width; self.height = height; self.clock = clock
        self.index = min(max(0, index), entries.count - 1)
    }

    public var currentName: String { entries[index].name }

    /// Moves to the next source and returns its name.
    @discardableResult
    public func next() -> String {
        index = (index + 1) % entries.count
        return currentName
    }

    /// The next frame of the current source at the fixed size. A source that ends (a file without
    /// looping) or fails is skipped for the next one, so the stream goes on.
    public func nextFrame() throws(EngineError) -> VideoFrame {
        for _ in 0..<entries.count {
            if let frame = try? entries[index].source.nextFrame() {
                var out = try I420Scaler.scale(frame, width: width, height: height)
                // Sources count time from different origins: stamp with one clock, never stepping back.
                out.timestamp = max(clock(), lastTimestamp + 1e-6)
                lastTimestamp = out.timestamp
                return out
            }
            index = (index + 1) % entries.count
        }
        throw .invalidState("every video source has ended")
    }
}
