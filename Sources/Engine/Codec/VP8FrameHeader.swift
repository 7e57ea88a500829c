import EngineTransport
/// The uncompressed first bytes of a VP8 frame (RFC 6386 §9.1), read before libvpx sees the frame: a keyframe's
/// announced size decides what libvpx allocates, so a peer could make it allocate gigabytes with ten bytes.
public struct VP8FrameHeader: Equatable, Sendable {
    public var isKeyframe: Bool
    /// Keyframes only (0 for interframes, which keep the size of the last keyframe): the 14-bit width and height.
    public var width: Int
    public var height: Int

    /// RFC 6386 §9.1: "Start code byte 0 0x9d, Start code byte 1 0x01, Start code byte 2 0x2a".
    static let startCode: [UInt8] = [0x9d, 0x01, 0x2a]

    /// nil when `data` is shorter than the 3-byte frame tag, or is a keyframe shorter than its 10-byte header or
    /// without the start code.
    public init?(parsing data: [UInt8]) {
        // RFC 6386 §9.1: the 3-byte frame tag starts with "A 1-bit frame type (0 for key frames, 1 for interframes)".
        guard data.count >= 3 else { return nil }
        isKeyframe = data[0] & 0x01 == 0
        guard isKeyframe else {
            width = 0
            height = 0
            return
        }
        // "For key frames, the frame tag is followed by a further 7 bytes of uncompressed data": the start code, then
        // two little-endian 16-bit fields "(2 bits Horizontal Scale << 14) | Width (14 bits)" and the same for the
        // height. The scale is an upscaling hint libvpx leaves to the application: the decoded picture is width x height.
        guard data.count >= 10, Array(data[3..<6]) == Self.startCode else { return nil }
        width = (Int(data[6]) | Int(data[7]) << 8) & 0x3FFF
        height = (Int(data[8]) | Int(data[9]) << 8) & 0x3FFF
    }

    /// Throws unless this is an interframe or a keyframe within `RemoteInputLimits.vp8MaxWidth` x `vp8MaxHeight`
    /// (and not empty).
    public func checkRemoteLimits() throws(EngineError) {
        guard isKeyframe else { return }
        let maxW = RemoteInputLimits.vp8MaxWidth, maxH = RemoteInputLimits.vp8MaxHeight
        guard (1...maxW).contains(width), (1...maxH).contains(height) else {
            throw .malformed(what: "VP8 keyframe", reason: "announces \(width)x\(height); at most \(maxW)x\(maxH) is decoded")
        }
    }
}
