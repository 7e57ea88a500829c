import CVPX
import EngineRTP
import EngineTransport

/// VP8 encoder (libvpx) with real-time settings: no lag, CBR, error resilient (so a receiver can
/// decode past a lost frame), the fastest speed, one thread. Owned by the video thread.
public final class VP8Encoder {
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var bitrateKbps: Int
    private let ctx: UnsafeMutablePointer<vpx_codec_ctx_t>
    private var config = vpx_codec_enc_cfg_t()
    private let image: UnsafeMutablePointer<vpx_image_t>
    private var pts: Int64 = 0

    public init(width: Int, height: Int, bitrateKbps: Int = 300, frameRate: Int = 15) throws(EngineError) {
        guard width >= 16, height >= 16, width % 2 == 0, height % 2 == 0, width <= 4096, height <= 4096 else {
            throw .invalidArgument("VP8 size \(width)x\(height)")
        }
        self.width = width; self.height = height; self.bitrateKbps = bitrateKbps
        let rc = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &config, 0)
        guard rc == VPX_CODEC_OK else { throw .library(name: "vpx", call: "vpx_codec_enc_config_default", code: Int32(rc.rawValue)) }
        config.g_w = UInt32(width)
        config.g_h = UInt32(height)
        config.g_timebase = vpx_rational(num: 1, den: 90_000)   // the RTP video clock (RFC 7741 §4.1)
        config.rc_target_bitrate = UInt32(bitrateKbps)
        config.g_lag_in_frames = 0
        config.rc_end_usage = VPX_CBR
        config.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        config.g_threads = 1
        config.kf_mode = VPX_KF_AUTO
        // Keyframes come when a receiver asks (PLI/FIR) or a peer switches encodings; a periodic one is only a
        // backstop, as rare as libwebrtc's (3000 frames). Every 10 s, as before, each was a burst of two or three
        // frames' bytes followed by half a second of small frames while libvpx paid it back: the congestion
        // controller took the burst for a widened path and the lull for an idle encoder (measured on the bench).
        config.kf_max_dist = 3000
        config.rc_min_quantizer = 4
        config.rc_max_quantizer = 56
        config.rc_undershoot_pct = 95
        config.rc_overshoot_pct = 15
        // libvpx's CBR keeps a model of the decoder's buffer, in milliseconds of the target rate, and aims each frame
        // at keeping it at the optimal level. The level is kept in bits, so a new target moves the optimal level and
        // not the level: after a raise the buffer reads as low and libvpx saves (up to rc_undershoot_pct / 2 under
        // the target per frame) until it is refilled. The estimator raises its rate in a ramp (docs/
        // congestion-control.md §4), so with libwebrtc's 600 ms optimal level (1000 ms buffer) the encoder sent about
        // 0.3 s behind the ramp (`VP8EncoderTests`: 94 % of a ramp's mean target, 98.5 % with 150 ms). That lag is
        // time in which the estimate runs above what the wire carries, so the queue it finds at the bottleneck is
        // found late, and the decrease reaches the wire late too: with both the lag and the call loop's 200 ms
        // between encoding plans, two bots on a 500 kbit/s bench link kept a queue standing (probe RTT p50 16 ms,
        // p95 96 ms, medians of three runs). The buffer's size bounds what a keyframe may borrow: 300 ms of the
        // target.
        config.rc_buf_sz = 300
        config.rc_buf_initial_sz = 100
        config.rc_buf_optimal_sz = 150
        ctx = .allocate(capacity: 1)
        ctx.initialize(to: vpx_codec_ctx_t())
        let initRC = cvpx_enc_init(ctx, vpx_codec_vp8_cx(), &config, 0)
        guard initRC == VPX_CODEC_OK else {
            ctx.deallocate()
            throw .library(name: "vpx", call: "vpx_codec_enc_init", code: Int32(initRC.rawValue))
        }
        _ = vpx_codec_control_VP8E_SET_CPUUSED(ctx, Int32(VP8E_SET_CPUUSED.rawValue), -8)
        _ = vpx_codec_control_VP8E_SET_STATIC_THRESHOLD(ctx, Int32(VP8E_SET_STATIC_THRESHOLD.rawValue), 1)
        guard let img = vpx_img_alloc(nil, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 16) else {
            vpx_codec_destroy(ctx)
            ctx.deallocate()
            throw .library(name: "vpx", call: "vpx_img_alloc", code: -1)
        }
        image = img
    }

    deinit {
        vpx_img_free(image)
        vpx_codec_destroy(ctx)
        ctx.deallocate()
    }

    /// Changes the target bitrate without a keyframe (rate control follows the peer's reports).
    public func setBitrate(kbps: Int) {
        let clamped = min(max(kbps, 30), 5_000)
        guard clamped != bitrateKbps else { return }
        bitrateKbps = clamped
        config.rc_target_bitrate = UInt32(clamped)
        _ = vpx_codec_enc_config_set(ctx, &config)
    }

    /// Encodes one frame of exactly the encoder's size (scale first); `forceKeyframe` answers a
    /// PLI/FIR. Returns nil when rate control dropped the frame.
    public func encode(_ frame: VideoFrame, forceKeyframe: Bool = false) throws(EngineError) -> EncodedVideoFrame? {
        guard frame.width == width, frame.height == height else {
            throw .invalidArgument("frame \(frame.width)x\(frame.height) for a \(width)x\(height) encoder")
        }
        copy(frame.y, stride: frame.yStride, to: image.pointee.planes.0!, stride: Int(image.pointee.stride.0), w: width, h: height)
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        copy(frame.u, stride: frame.uStride, to: image.pointee.planes.1!, stride: Int(image.pointee.stride.1), w: cw, h: ch)
        copy(frame.v, stride: frame.vStride, to: image.pointee.planes.2!, stride: Int(image.pointee.stride.2), w: cw, h: ch)
        let flags: vpx_enc_frame_flags_t = forceKeyframe ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
        let duration: UInt = 90_000 / 15
        let rc = vpx_codec_encode(ctx, image, pts, duration, flags, UInt(VPX_DL_REALTIME))
        pts += Int64(duration)
        guard rc == VPX_CODEC_OK else { throw .library(name: "vpx", call: "vpx_codec_encode", code: Int32(rc.rawValue)) }
        var iter: vpx_codec_iter_t? = nil
        var out: EncodedVideoFrame?
        while let pkt = vpx_codec_get_cx_data(ctx, &iter) {
            guard pkt.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let f = pkt.pointee.data.frame
            let bytes = Array(UnsafeRawBufferPointer(start: f.buf, count: f.sz))
            out = EncodedVideoFrame(data: bytes, isKeyframe: f.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0,
                                    timestamp: frame.timestamp)
        }
        return out
    }

    private func copy(_ src: [UInt8], stride: Int, to dst: UnsafeMutablePointer<UInt8>, stride dstStride: Int, w: Int, h: Int) {
        src.withUnsafeBufferPointer { s in
            for row in 0..<h {
                (dst + row * dstStride).update(from: s.baseAddress! + row * stride, count: w)
            }
        }
    }
}

/// VP8 decoder (libvpx). Owned by the receiving video thread.
public final class VP8Decoder {
    private let ctx: UnsafeMutablePointer<vpx_codec_ctx_t>

    public init() throws(EngineError) {
        ctx = .allocate(capacity: 1)
        ctx.initialize(to: vpx_codec_ctx_t())
        let rc = cvpx_dec_init(ctx, vpx_codec_vp8_dx(), nil, 0)
        guard rc == VPX_CODEC_OK else {
            ctx.deallocate()
            throw .library(name: "vpx", call: "vpx_codec_dec_init", code: Int32(rc.rawValue))
        }
    }

    deinit {
        vpx_codec_destroy(ctx)
        ctx.deallocate()
    }

    /// RFC 6386 §9.1: bit 0 of the frame tag is 0 for a key frame; a key frame also carries the
    /// start code 9d 01 2a (§9.1) before its size.
    public static func isKeyframe(_ data: [UInt8]) -> Bool {
        data.count >= 10 && data[0] & 1 == 0 && data[3] == 0x9d && data[4] == 0x01 && data[5] == 0x2a
    }

    /// Decodes one whole frame. A corrupt frame throws (the caller asks for a keyframe) and leaves
    /// the decoder usable. A keyframe announcing more than `RemoteInputLimits.vp8MaxWidth` x `vp8MaxHeight` is
    /// refused the same way before libvpx sees it (libvpx allocates for the announced size first).
    public func decode(_ data: [UInt8], timestamp: Double) throws(EngineError) -> VideoFrame? {
        guard !data.isEmpty else { throw .malformed(what: "VP8 frame", reason: "empty") }
        guard let header = VP8FrameHeader(parsing: data) else {
            throw .malformed(what: "VP8 frame", reason: "\(data.count) bytes: no frame tag, or a keyframe without its start code")
        }
        try header.checkRemoteLimits()
        let rc = data.withUnsafeBufferPointer { vpx_codec_decode(ctx, $0.baseAddress, UInt32($0.count), nil, 0) }
        guard rc == VPX_CODEC_OK else {
            throw .malformed(what: "VP8 frame", reason: "vpx_codec_decode returned \(rc.rawValue)")
        }
        var iter: vpx_codec_iter_t? = nil
        var result: VideoFrame?
        while let img = vpx_codec_get_frame(ctx, &iter) {
            let w = Int(img.pointee.d_w), h = Int(img.pointee.d_h)
            let cw = (w + 1) / 2, ch = (h + 1) / 2
            // Each row copied straight into the new plane (no zero fill first: every byte is written).
            func plane(_ p: UnsafeMutablePointer<UInt8>?, _ stride: Int32, _ pw: Int, _ ph: Int) -> [UInt8] {
                guard let p, pw > 0, ph > 0 else { return [UInt8](repeating: 0, count: pw * ph) }
                return [UInt8](unsafeUninitializedCapacity: pw * ph) { o, count in
                    for row in 0..<ph { (o.baseAddress! + row * pw).initialize(from: p + row * Int(stride), count: pw) }
                    count = pw * ph
                }
            }
            result = try VideoFrame(width: w, height: h,
                                    y: plane(img.pointee.planes.0, img.pointee.stride.0, w, h),
                                    u: plane(img.pointee.planes.1, img.pointee.stride.1, cw, ch),
                                    v: plane(img.pointee.planes.2, img.pointee.stride.2, cw, ch),
                                    timestamp: timestamp)
        }
        return result
    }
}
