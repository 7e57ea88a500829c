import Engine
import RoomModel

/// Synthetic video for the simulated room: each fake participant shows its face (`FaceSource`: its looks, its name,
/// its mouth moving to its seat's script in `talk`, the same script its audio levels come from), the local tile shows
/// the source `c` switches between (your still face first). Frames are made on demand at most `frameRate` times a
/// second per participant.
final class DemoVideo {
    let width = 160, height = 120
    let frameRate = 15.0
    private let clock: @Sendable () -> Double
    private let talk: DemoTalk
    /// The simulated participants' source: `face`, or another synthetic one (`--peer-camera`).
    private let peerCamera: String
    private var sources: [ParticipantID: VideoSource] = [:]
    private var latest: [ParticipantID: (frame: VideoFrame, at: Double)] = [:]
    let local: SourceSwitcher

    /// - Parameter clock: wall-clock seconds, the time base of `talk`.
    init(localSource: String, localName: String?, talk: DemoTalk, peerCamera: String = "face",
         clock: @escaping @Sendable () -> Double) throws {
        self.clock = clock
        self.peerCamera = peerCamera
        self.talk = talk
        let names = SourceCatalog.switchOrder(initial: localSource, cameras: [])
        var entries: [SourceSwitcher.Entry] = []
        for name in names {
            entries.append(.init(name: name, source: try SourceCatalog.open(
                name, width: width, height: height, frameRate: frameRate,
                participant: CallOptionsParsing.participantNumber(localName ?? "you"), displayName: localName, clock: clock)))
        }
        local = try SourceSwitcher(entries: entries, width: width, height: height,
                                   startAt: names.firstIndex(of: SourceCatalog.resolve(localSource, cameras: [])) ?? 0,
                                   clock: clock)
    }

    /// The current frame of `id` (`local` is the local participant), refreshed at the frame rate.
    func frame(for id: ParticipantID, isLocal: Bool, name: String?) -> VideoFrame? {
        let now = clock()
        if let l = latest[id], now - l.at < 1 / frameRate { return l.frame }
        let frame: VideoFrame?
        if isLocal {
            frame = try? local.nextFrame()
        } else {
            if sources[id] == nil, let k = SimulatedRoom.participantNumber(of: id) {
                let participant = CallOptionsParsing.participantNumber(name ?? "")
                sources[id] = peerCamera == "face"
                    ? try? FaceSource(width: width, height: height, frameRate: frameRate, participant: participant, name: name,
                                      speech: talk.script(seat: k - 1), clock: clock)
                    : try? SourceCatalog.open(peerCamera, width: width, height: height, frameRate: frameRate,
                                              participant: participant, displayName: name, clock: clock)
            }
            frame = (try? sources[id]?.nextFrame()).flatMap { $0 }
        }
        if let frame { latest[id] = (frame, now) }
        return frame
    }

    func forget(_ id: ParticipantID) {
        sources[id] = nil
        latest[id] = nil
    }
}
