/// One encoded VP8 frame: what `VP8Encoder` (EngineMedia) produces and `VideoSendStream` packetizes. It lives in
/// the RTP layer, the lower of the two, so the codecs depend on RTP's type and RTP knows nothing of libvpx.
public struct EncodedVideoFrame: Sendable, Equatable {
    public var data: [UInt8]
    public var isKeyframe: Bool
    /// Capture time of the source frame, seconds.
    public var timestamp: Double

    package init(data: [UInt8], isKeyframe: Bool, timestamp: Double) {
        self.data = data; self.isKeyframe = isKeyframe; self.timestamp = timestamp
    }
}
