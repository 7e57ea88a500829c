/// The picture of a call at one moment: what `conftui bot --report` writes and what the TUI reads. Plain values
/// (Codable, Sendable), joined from what the event thread publishes and the decode threads' figures, under locks.

public struct CallSnapshot: Sendable, Codable, Equatable {
    public var you: RemotePeerID?
    /// Seconds since the call started.
    public var elapsed: Double
    public var local: LocalMediaSnapshot
    public var peers: [RemotePeerID: PeerSnapshot]
    /// What the speaker played (nil when the call does not play audio, `Call.Options.playback == .none`).
    public var playback: PlaybackSnapshot? = nil
    /// Every connection's datagrams since the call started, closed ones and those that carry no participant (an
    /// SFU's publishing connection) included: the call's uplink and downlink.
    public var traffic = CallTraffic()
}

/// Bytes and packets a call sent and received over all its connections (SRTP, SRTCP, DTLS, STUN; relayed ones as
/// the peer connection saw them, without TURN's framing).
public struct CallTraffic: Sendable, Codable, Equatable {
    public var bytesSent: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    public var packetsSent: UInt64 = 0
    public var packetsReceived: UInt64 = 0

    public init() {}

    mutating func add(_ stats: PeerConnection.Stats) {
        bytesSent &+= stats.bytesSent
        bytesReceived &+= stats.bytesReceived
        packetsSent &+= stats.packetsSent
        packetsReceived &+= stats.packetsReceived
    }
}

public struct LocalMediaSnapshot: Sendable, Codable, Equatable {
    public var source: String
    /// The tone being sent as the microphone, in Hz (0: no tone — a capture device, silence or no audio).
    public var toneHz: Double
    public var muted: Bool
    public var videoEnabled: Bool
    public var videoBitrateKbps: Int
    /// The low encoding's rate while the call sends two (`EncodingPlan`), else nil.
    public var lowVideoBitrateKbps: Int? = nil
    /// The simulcast encodings not made now because nobody in the room takes them ("full", "low"; `SimulcastDemand`).
    public var pausedVideoLayers: [String] = []
    public var videoFramesEncoded: Int
    /// Bytes of VP8 the encoder produced (once, whatever the number of peers): the own send rate.
    public var videoBytesEncoded: UInt64 = 0
    public var keyframesEncoded: Int
    public var audioFramesEncoded: Int
    public var audioDTXFrames: Int
    /// What the microphone is and why ("microphone: ALSA default", "microphone: a 440 Hz tone (cannot open ...)").
    public var audioInputNote: String
    /// RMS level 0...1 of the last 20 ms captured, before mute; 0 while muted or sending no audio (the own tile's meter).
    public var inputLevel: Double
}

extension LocalMediaSnapshot {
    var localState: LocalMediaState { LocalMediaState(audioMuted: muted, videoOn: videoEnabled, source: source) }
}

/// The speaker side of a call: every connected peer's decoded audio mixed and played, 20 ms at a time.
public struct PlaybackSnapshot: Sendable, Codable, Equatable {
    /// Where the mix goes and why ("speaker: ALSA default", "speaker: none (cannot open ...); levels measured only").
    public var note: String
    /// 20 ms frames mixed and handed to the output.
    public var framesPlayed = 0
    /// Slots where a peer that was playing had no frame ready (silence was mixed in for it).
    public var underruns = 0
    /// Frames dropped because a peer's queue held more than 120 ms (the playback side stalled or runs slow).
    public var framesDropped = 0
    /// Peers whose audio is being mixed now.
    public var peers = 0
    /// RMS level 0...1 of the last 20 ms played (a meter), and of the last ~0.5 s with its strongest frequency
    /// (computed by `Call.snapshot(analyseAudio:)`; nil when silent).
    public var frameLevel = 0.0
    public var level = 0.0
    public var dominantFrequency: Double?
}

public struct StateChange: Sendable, Codable, Equatable {
    /// Seconds since the call started.
    public var at: Double
    public var state: PeerConnectionState
    public var cause: String
}

public struct TestCardSeen: Sendable, Codable, Equatable {
    public var first: UInt32
    public var last: UInt32
    public var count: Int
    public var participant: UInt8
    /// Capture-to-decode delay of the last card read, in ms (both ends use the wall clock).
    public var lastLatencyMs: Double
}

public struct ReceivedVideoSnapshot: Sendable, Codable, Equatable {
    public var framesReceived = 0
    /// VP8 bytes of the frames received (RTP payloads less their descriptors): the stream's video rate.
    public var bytesReceived: UInt64 = 0
    public var framesDecoded = 0
    public var keyframesDecoded = 0
    public var decodeFailures = 0
    public var width = 0
    public var height = 0
    public var framesPerSecond = 0.0
    /// Seconds since the call started when the first frame was decoded (join-to-first-frame).
    public var firstFrameAt: Double?
    /// W3C webrtc-stats freezeCount: a gap above max(3 × the mean frame interval, mean + 150 ms).
    public var freezes = 0
    /// The longest of those gaps, in seconds (0 without a freeze): how long a lost path kept the picture still.
    public var longestFreeze = 0.0
    public var testCard: TestCardSeen?
    /// Mean of the luma plane and its standard deviation over the last decoded frame: a uniform picture has ~0.
    public var lumaMean = 0.0
    public var lumaStdDev = 0.0
}

public struct ReceivedAudioSnapshot: Sendable, Codable, Equatable {
    /// 20 ms slots decoded from a packet (or recovered by FEC).
    public var framesDecoded = 0
    public var framesConcealed = 0
    public var silentSlots = 0
    /// RMS level 0...1 and the strongest frequency over the last ~0.5 s (nil when silent).
    public var level = 0.0
    public var dominantFrequency: Double?
    /// The loudest 20 ms slot so far (RMS, 0...1): catches intermittent sounds such as Chromium's fake-microphone beep.
    public var peakLevel = 0.0
}

public struct PeerSnapshot: Sendable, Codable, Equatable {
    public var role: SignalingRole?
    /// Seconds since the call started when this connection was created.
    public var createdAt: Double
    public var timeline: [StateChange]
    /// From the creation of the offer (offerer) or the arrival of the offer (answerer) to `connected`.
    public var timeToConnected: Double?
    /// Every candidate we signalled to this peer (`candidate:...` lines), host and server-reflexive.
    public var localCandidates: [String]
    public var transport: PeerConnection.Stats
    /// The participant's main video (its first video section).
    public var video: ReceivedVideoSnapshot
    public var audio: ReceivedAudioSnapshot
    /// Every video section decoded, by mid (the main one included): a participant that shares its screen as well
    /// as its camera sends two.
    public var videoStreams: [String: ReceivedVideoSnapshot] = [:]
    /// Seconds since the call started when the participant left (its connection closed, or the forwarding server's
    /// section map stopped naming it): the figures above are its last. A participant of a forwarding server shares
    /// the server's connection, whose state stays `connected` after it left: this is what says so.
    public var leftAt: Double?
}
