import Engine
import RoomModel

/// Synthetic video for the simulated room: each fake participant shows its own test card
/// (its colour, its name, its frame counter), the local tile shows the source `c` switches between.
/// Frames are made on demand at most `frameRate` times a second per participant.
final class DemoVideo {
    let width = 160, height = 120
    let frameRate = 15.0
    private let clock: @Sendable () -> Double
    private var sources: [ParticipantID: VideoSource] = [:]
    private var latest: [ParticipantID: (frame: VideoFrame, at: Double)] = [:]
    let local: SourceSwitcher

    init(localSource: String, localName: String?, clock: @escaping @Sendable () -> Double) throws {
        self.clock = clock
        let names = SourceCatalog.switchOrder(initial: localSource, cameras: [])
        var entries: [SourceSwitcher.Entry] = []
        for name in names {
            entries.append(.init(name: name, source: try SourceCatalog.open(name, width: 160, height: 120, frameRate: 15,
                                                                          participant: 0, displayName: localName, clock: clock)))
        }
        local = try SourceSwitcher(entries: entries, width: 160, height: 120, clock: clock)
    }

    /// The current frame of `id` (`local` is the local participant), refreshed at the frame rate.
    func frame(for id: ParticipantID, isLocal: Bool, index: Int, name: String?) -> VideoFrame? {
        let now = clock()
        if let l = latest[id], now - l.at < 1 / frameRate { return l.frame }
        let frame: VideoFrame?
        if isLocal {
            frame = try? local.nextFrame()
        } else {
            if sources[id] == nil {
                sources[id] = try? TestCardSource(width: width, height: height, frameRate: frameRate,
                                                  participant: UInt8(truncatingIfNeeded: index), name: name, clock: clock)
            }
            // Under a moving light, so the whole tile moves as a person on camera does.
            frame = (try? sources[id]?.nextFrame()).flatMap { $0 }.map { SweepingLightSource.light($0, at: now) }
        }
        if let frame { latest[id] = (frame, now) }
        return frame
    }

    func forget(_ id: ParticipantID) {
        sources[id] = nil
        latest[id] = nil
    }
}
