import Testing
@testable import Engine
@testable import EngineMedia
@testable import EngineTransport

/// RFC 6386 §9.1 keyframe headers are read before libvpx sees a frame, and a keyframe announcing more than
/// `RemoteInputLimits.vp8MaxWidth` x `vp8MaxHeight` never reaches libvpx (issue #12: 16383x16383).
@Suite struct VP8FrameHeaderTests {
    func realFrames() throws -> (key: [UInt8], delta: [UInt8]) {
        let card = try TestCardSource(width: 320, height: 240, clock: { 0 })
        let encoder = try VP8Encoder(width: 320, height: 240)
        var key: [UInt8]?, delta: [UInt8]?
        for _ in 0..<10 where delta == nil {
            guard let picture = try card.nextFrame(), let e = try encoder.encode(picture) else { continue }
            if e.isKeyframe { key = key ?? e.data } else if key != nil { delta = e.data }
        }
        return (try #require(key), try #require(delta))
    }

    /// Writes a 14-bit width and height (and scale bits) into a keyframe's header, little-endian (RFC 6386 §9.1).
    func announcing(_ frame: [UInt8], width: Int, height: Int, scale: UInt8 = 0) -> [UInt8] {
        var f = frame
        f[6] = UInt8(width & 0xFF); f[7] = UInt8(width >> 8) | scale << 6
        f[8] = UInt8(height & 0xFF); f[9] = UInt8(height >> 8) | scale << 6
        return f
    }

    @Test func headerOfRealFrames() throws {
        let (key, delta) = try realFrames()
        #expect(VP8FrameHeader(parsing: key) == VP8FrameHeader(parsing: announcing(key, width: 320, height: 240)))
        let h = try #require(VP8FrameHeader(parsing: key))
        #expect(h.isKeyframe && h.width == 320 && h.height == 240)
        #expect(VP8FrameHeader(parsing: delta)?.isKeyframe == false)
        // The scale bits are not size.
        #expect(VP8FrameHeader(parsing: announcing(key, width: 320, height: 240, scale: 3))?.width == 320)
        #expect(VP8FrameHeader(parsing: [0x10, 0x02]) == nil)
        var noStartCode = key
        noStartCode[4] = 0x02
        #expect(VP8FrameHeader(parsing: noStartCode) == nil)
        #expect(VP8FrameHeader(parsing: Array(key.prefix(9))) == nil)
    }

    @Test func oversizedKeyframeIsRefusedBeforeLibvpxAndTheDecoderGoesOn() throws {
        let (key, _) = try realFrames()
        let decoder = try VP8Decoder()
        for (w, h) in [(16383, 16383), (1921, 1080), (1920, 1089), (0, 240)] {
            let huge = announcing(key, width: w, height: h)
            #expect(throws: EngineError.self) { try VP8FrameHeader(parsing: huge)!.checkRemoteLimits() }
            do {
                _ = try decoder.decode(huge, timestamp: 0)
                Issue.record("a keyframe announcing \(w)x\(h) was decoded")
            } catch {
                #expect(error == .malformed(what: "VP8 keyframe",
                                            reason: "announces \(w)x\(h); at most 1920x1088 is decoded"))
            }
        }
        #expect(throws: Never.self) { try VP8FrameHeader(parsing: announcing(key, width: 1920, height: 1088))!.checkRemoteLimits() }
        // The refusals left the decoder as it was: the real keyframe decodes at its size.
        let picture = try #require(try decoder.decode(key, timestamp: 0))
        #expect(picture.width == 320 && picture.height == 240)
    }

    @Test func remoteMediaCountsTheRefusalAndSaysWhy() throws {
        let (key, _) = try realFrames()
        let media = try RemoteMedia()
        let frame = ReceivedVideoFrame(data: announcing(key, width: 16383, height: 16383), isKeyframe: true, rtpTimestamp: 0)
        #expect(!media.decode(frame, now: 0, wallMillis: 0))
        #expect(media.video.decodeFailures == 1 && media.video.framesDecoded == 0)
        #expect(media.lastDecodeError?.contains("16383x16383") == true)
    }
}
