/// 20 ms of mono 16-bit PCM at 48 kHz: the unit every audio path in conftui moves.
/// WebRTC's Opus is 48 kHz (RFC 7587 §4: the RTP clock is always 48000); 20 ms is the frame
/// length browsers use by default, so one frame is one RTP packet.
public struct AudioFrame: Sendable, Equatable {
    public static let sampleRate = 48_000
    public static let samplesPerFrame = 960
    public static let duration = 0.020

    public var samples: [Int16]

    public init(samples: [Int16]) {
        precondition(samples.count == AudioFrame.samplesPerFrame, "an AudioFrame holds 960 samples")
        self.samples = samples
    }

    public static let silence = AudioFrame(samples: [Int16](repeating: 0, count: samplesPerFrame))
}
