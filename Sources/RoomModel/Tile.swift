/// One further video stream of a participant (a shared screen): a picture of its own, shown in a tile of its own
/// right after the participant's main tile.
public struct VideoStream: Sendable, Equatable {
    /// The stream's id as the call names it (a video section's mid): a key for fetching its pictures, never shown.
    public let id: String
    /// Its place among the participant's pictures, the main video being 1: the label says "Zoe · 2".
    public var ordinal: Int
    /// Time (seconds on the caller's clock) of the stream's last reported picture; nil before the first.
    public var lastFrameAt: Double?
    /// Width / height in pixels of its pictures; 16:9 (a screen's usual shape) until a picture says otherwise.
    public var videoAspect: Double = 16.0 / 9.0

    public init(id: String, ordinal: Int) {
        self.id = id; self.ordinal = ordinal
    }

    /// Further streams shown per participant: enough for a screen or two being shared, few enough that one peer
    /// cannot fill the grid. Streams listed beyond these get no tile.
    public static let maxExtraPerParticipant = 3
    /// Stream ids longer than this (in UTF-8 bytes) or empty get no tile: the call's own bound on a mid, so any id
    /// it accepts fits, and a key built from a hostile string stays small.
    public static let idBytes = 1...64
}

/// Which tile: a participant's main one (`stream` nil) or one of its further streams.
public struct TileID: Hashable, Sendable, CustomStringConvertible {
    public let participant: ParticipantID
    public let stream: String?

    public init(_ participant: ParticipantID, stream: String? = nil) {
        self.participant = participant; self.stream = stream
    }

    public var description: String { stream.map { "\(participant)/\($0)" } ?? participant.description }
}

/// What one tile of the grid shows: a participant's main video with its label and audio, or one of its further
/// streams (labelled with the participant's name and the stream's ordinal, without the audio's marks).
public struct Tile: Sendable, Equatable, Identifiable {
    public let participant: Participant
    /// Nil for the participant's main tile.
    public let stream: VideoStream?

    public init(participant: Participant, stream: VideoStream? = nil) {
        self.participant = participant; self.stream = stream
    }

    public var id: TileID { TileID(participant.id, stream: stream?.id) }
    /// The shape of what the tile shows (width / height in pixels).
    public var videoAspect: Double { stream?.videoAspect ?? participant.videoAspect }
    public var isMain: Bool { stream == nil }
}
