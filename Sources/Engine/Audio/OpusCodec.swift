import COpus
import EngineTransport

/// Opus encoder (libopus) for 20 ms mono frames at 48 kHz, set up for calls: VOIP application,
/// in-band FEC (RFC 6716 §2.1.7) so a receiver can rebuild a lost frame from the next packet,
/// and DTX so silence costs almost nothing. Owned by one thread (not Sendable).
public final class OpusEncoder {
    private let state: OpaquePointer
    private var output = [UInt8](repeating: 0, count: 1500)

    /// - Parameters:
    ///   - bitrate: bits per second (6 000 to 510 000).
    ///   - expectedLossPercent: tunes how much FEC the encoder spends.
    public init(bitrate: Int = 32_000, expectedLossPercent: Int = 5) throws(EngineError) {
        var err: Int32 = 0
        guard let s = opus_encoder_create(48_000, 1, OPUS_APPLICATION_VOIP, &err), err == OPUS_OK else {
            throw .library(name: "opus", call: "opus_encoder_create", code: err)
        }
        state = s
        _ = copus_enc_set(s, OPUS_SET_BITRATE_REQUEST, Int32(clamping: bitrate))
        _ = copus_enc_set(s, OPUS_SET_INBAND_FEC_REQUEST, 1)
        _ = copus_enc_set(s, OPUS_SET_PACKET_LOSS_PERC_REQUEST, Int32(clamping: expectedLossPercent))
        _ = copus_enc_set(s, OPUS_SET_DTX_REQUEST, 1)
        _ = copus_enc_set(s, OPUS_SET_SIGNAL_REQUEST, OPUS_SIGNAL_VOICE)
    }

    deinit { opus_encoder_destroy(state) }

    public func setBitrate(_ bitrate: Int) {
        _ = copus_enc_set(state, OPUS_SET_BITRATE_REQUEST, Int32(clamping: bitrate))
    }

    /// Encodes one frame. With DTX on, a packet of 2 bytes or fewer means "silence, nothing worth
    /// sending" (opus_encode documentation); `isDTX` tells the caller it may skip it.
    public func encode(_ frame: AudioFrame) throws(EngineError) -> (packet: [UInt8], isDTX: Bool) {
        let n = frame.samples.withUnsafeBufferPointer { pcm in
            output.withUnsafeMutableBufferPointer { out in
                opus_encode(state, pcm.baseAddress!, Int32(AudioFrame.samplesPerFrame), out.baseAddress!, Int32(out.count))
            }
        }
        guard n > 0 else { throw .library(name: "opus", call: "opus_encode", code: n) }
        return (Array(output[0..<Int(n)]), n <= 2)
    }
}

/// Opus decoder for 20 ms mono frames at 48 kHz, with the two ways to fill a gap: FEC from the
/// packet after the gap, or packet-loss concealment (PLC) when that is not there either.
public final class OpusDecoder {
    private let state: OpaquePointer
    private var pcm = [Int16](repeating: 0, count: AudioFrame.samplesPerFrame)

    public init() throws(EngineError) {
        var err: Int32 = 0
        guard let s = opus_decoder_create(48_000, 1, &err), err == OPUS_OK else {
            throw .library(name: "opus", call: "opus_decoder_create", code: err)
        }
        state = s
    }

    deinit { opus_decoder_destroy(state) }

    /// Decodes one packet into one 20 ms frame. A packet holding a different duration is refused
    /// rather than resampled: every sender we talk to uses 20 ms (RFC 7587 ptime default).
    public func decode(_ packet: [UInt8]) throws(EngineError) -> AudioFrame {
        try run(packet, fec: false)
    }

    /// Rebuilds the frame *before* `nextPacket` from its in-band FEC data (RFC 6716 §2.1.7);
    /// without FEC data libopus falls back to concealment, so the result is always a frame.
    public func recover(from nextPacket: [UInt8]) throws(EngineError) -> AudioFrame {
        try run(nextPacket, fec: true)
    }

    /// A concealment frame for a packet that never arrived.
    public func conceal() throws(EngineError) -> AudioFrame {
        try run(nil, fec: false)
    }

    private func run(_ packet: [UInt8]?, fec: Bool) throws(EngineError) -> AudioFrame {
        if let p = packet, p.isEmpty || p.count > 1275 * 3 {
            throw .malformed(what: "Opus packet", reason: "length \(p.count)")
        }
        let n: Int32 = pcm.withUnsafeMutableBufferPointer { out in
            if let p = packet {
                return p.withUnsafeBufferPointer { data in
                    opus_decode(state, data.baseAddress, Int32(p.count), out.baseAddress!, Int32(AudioFrame.samplesPerFrame), fec ? 1 : 0)
                }
            }
            return opus_decode(state, nil, 0, out.baseAddress!, Int32(AudioFrame.samplesPerFrame), 0)
        }
        guard n >= 0 else { throw .malformed(what: "Opus packet", reason: "opus_decode returned \(n)") }
        guard Int(n) == AudioFrame.samplesPerFrame else {
            throw .malformed(what: "Opus packet", reason: "holds \(n) samples, not 20 ms")
        }
        return AudioFrame(samples: pcm)
    }
}
