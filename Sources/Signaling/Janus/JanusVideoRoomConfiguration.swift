/// What `JanusVideoRoomClient` joins and how patiently. Times are seconds of the caller's monotonic clock.
public struct JanusVideoRoomConfiguration: Sendable, Equatable {
    /// The room id: 1...2^53 (Janus's integer ids; `string_ids` rooms are not supported).
    public var room: UInt64
    /// Our display name in the room, at most `limits.maxDisplayBytes` UTF-8 bytes.
    public var display: String
    public var pin: String?
    /// On 426 "no such room", create it (with the settings below) and join again.
    public var createRoomIfMissing = true
    /// Settings of a room this client creates (janus_videoroom.c's `create`).
    public var roomPublishers = 16
    public var roomFirFrequency = 10
    public var roomAudioLevelEvents = true
    public var roomAudioCodec = "opus"
    public var roomVideoCodec = "vp8"
    /// "{"janus":"keepalive"}" after this long without sending: Janus drops a session idle for 60 s (`session_timeout`).
    public var keepaliveInterval = 25.0
    /// How long any request may wait for its answer.
    public var requestTimeout = 10.0
    /// How long `.leave` waits for the session's `destroy` to be confirmed.
    public var leaveTimeout = 2.0
    /// Our publisher offer's mids; nil: read from the offer's `a=mid` lines.
    public var audioMid: String?
    public var videoMid: String?
    public var limits = JanusLimits()

    public init(room: UInt64, display: String, pin: String? = nil, createRoomIfMissing: Bool = true) {
        self.room = room
        self.display = display
        self.pin = pin
        self.createRoomIfMissing = createRoomIfMissing
    }
}
