/// Connection state of one participant, as the W3C names peer-connection states, plus `new`
/// for a peer announced by signaling whose connection has not started yet.
public enum ConnectionState: String, Sendable, Codable, CaseIterable {
    case new, connecting, connected, disconnected, failed, closed

    /// A one-word label for tiles and the list view.
    public var label: String { rawValue }
}

/// Live numbers of one participant's media, as measured by the engine.
public struct MediaStats: Sendable, Equatable, Codable {
    public var fps: Double = 0
    public var kbps: Double = 0
    public var rttMs: Double? = nil
    public var lossPercent: Double = 0
    public var videoCodec: String? = nil
    public var audioCodec: String? = nil
    public var frameWidth: Int = 0
    public var frameHeight: Int = 0
    /// The local participant only: the bitrate the encoder aims at (the weakest link's), kbps.
    public var targetKbps: Int? = nil

    public init(fps: Double = 0, kbps: Double = 0, rttMs: Double? = nil, lossPercent: Double = 0,
                videoCodec: String? = nil, audioCodec: String? = nil, frameWidth: Int = 0, frameHeight: Int = 0,
                targetKbps: Int? = nil) {
        self.targetKbps = targetKbps
        self.fps = fps; self.kbps = kbps; self.rttMs = rttMs; self.lossPercent = lossPercent
        self.videoCodec = videoCodec; self.audioCodec = audioCodec
        self.frameWidth = frameWidth; self.frameHeight = frameHeight
    }
}

/// What the room knows of one participant (the local one included).
public struct Participant: Sendable, Equatable, Identifiable {
    public let id: ParticipantID
    public let isLocal: Bool
    /// Set by the name extension of the signaling protocol; nil shows the short socketId.
    public var name: String?
    public var connection: ConnectionState
    public var audioMuted = false
    public var videoOn = true
    /// The video source name (`card`, `bars`, `/dev/video0`, ...), known for the local participant.
    public var sourceName: String?
    /// Audio level 0...1 (RMS-like), and whether the speaking hysteresis currently says "speaking".
    public var audioLevel: Double = 0
    public var speaking = false
    /// Time (seconds on the caller's clock) of the last decoded video frame; nil before the first.
    public var lastFrameAt: Double?
    /// Video aspect ratio (width / height in pixels) of the last frame; 4:3 until a frame says otherwise.
    public var videoAspect: Double = 4.0 / 3.0
    public var stats = MediaStats()
    /// Its further video streams (shared screens) in the call's order, at most `VideoStream.maxExtraPerParticipant`.
    public var streams: [VideoStream] = []
    /// Join order: smaller is earlier. The local participant is always first in the grid.
    public let joinIndex: Int

    public init(id: ParticipantID, isLocal: Bool, connection: ConnectionState, joinIndex: Int, name: String? = nil) {
        self.id = id; self.isLocal = isLocal; self.connection = connection; self.joinIndex = joinIndex; self.name = name
    }

    /// Whether the screen marks this participant as speaking: never while muted (the room keeps `speaking` false then;
    /// this says so where it is drawn, too).
    public var showsSpeaking: Bool { speaking && !audioMuted }

    /// The label a tile shows: the display name, else the short socketId.
    public var displayName: String { name ?? id.short }
}
