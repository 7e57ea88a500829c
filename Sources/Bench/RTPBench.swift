import Engine

/// What RTP media costs per stream and how long the jitter buffer holds frames. Four tables:
/// 1. CPU per sent and per received 320x240 @15 fps VP8 + 20 ms Opus stream through two in-process
///    `PeerConnection`s (`PeerPairCost`), with the codecs measured in the same run as the baseline, so the
///    per-peer RTP/SRTP/ICE/jitter-buffer share is a ratio that survives a noisy machine;
/// 2. the wall time from the datagram that completes a frame to the decoded frame, on that lossless wire;
/// 3. the whole call layer in real time: two `Call`s on loopback UDP, process CPU (`LoopbackCallCost`);
/// 4. packet-to-frame latency through the jitter buffer with loss and reordering, on a virtual clock
///    (`JitterBufferLatency`).
let rtpSuite = BenchSuite(name: "rtp", summary: "CPU per sent/received 320x240@15 fps stream, packet-to-frame latency through the jitter buffer") {
    var json: [String] = []
    let mediaSeconds = 60.0
    var runs: [PeerPairCost.Result] = []
    for profile in [SrtpProfile.aes128CmHmacSha1_80, .aeadAes128Gcm] {
        runs.append(try PeerPairCost(profile: profile).run(seconds: mediaSeconds))
    }

    print("CPU per stream: 320x240 @15 fps VP8 300 kbps + Opus 20 ms mono, \(Int(mediaSeconds)) s of media between two in-process")
    print("PeerConnections (real ICE, DTLS, SRTP; virtual clock, as fast as possible); this thread's CPU time. % of one core =")
    print("CPU seconds per second of media. The encoders run once for all peers; \"per peer\" rows are what each connection adds,")
    print("compared with the codecs of the same run (codec rows: the first run; each run's totals use its own codec times).")
    let base = runs[0]
    func percent(_ cpu: Double, _ r: PeerPairCost.Result) -> String { fmt(100 * cpu / r.mediaSeconds) + " %" }
    func perFrame(_ cpu: Double, _ frames: Int, _ unit: String = "video frame") -> String {
        fmt(1000 * cpu / Double(max(1, frames)), 3) + " ms / " + unit
    }
    var rows: [[String]] = [
        ["sent", "VP8 encode (baseline: the codec alone)", perFrame(base.vp8Encode, base.videoFramesEncoded), percent(base.vp8Encode, base), ""],
        ["sent", "Opus encode (baseline)", perFrame(base.opusEncode, base.audioFramesEncoded, "20 ms frame"), percent(base.opusEncode, base), ""],
    ]
    for r in runs {
        rows.append(["sent", "per peer, \(r.profile): RTP packetize, SRTP protect, RTCP, ICE consent",
                     perFrame(r.sendPath, r.videoFramesEncoded), percent(r.sendPath, r),
                     fmt(r.sendPath / (r.vp8Encode + r.opusEncode), 3) + " x codecs"])
    }
    for r in runs {
        rows.append(["sent", "one sent stream, \(r.profile): codecs + one peer", perFrame(r.vp8Encode + r.opusEncode + r.sendPath, r.videoFramesEncoded),
                     percent(r.vp8Encode + r.opusEncode + r.sendPath, r), ""])
    }
    rows.append(["received", "VP8 decode (baseline: the codec alone)", perFrame(base.vp8Decode, base.videoFramesDecoded), percent(base.vp8Decode, base), ""])
    rows.append(["received", "Opus decode (baseline)", perFrame(base.opusDecode, base.audioFramesDecoded, "20 ms frame"), percent(base.opusDecode, base), ""])
    for r in runs {
        rows.append(["received", "per peer, \(r.profile): SRTP unprotect, demux, depacketize, jitter buffer, NACK/RTCP, ICE",
                     perFrame(r.receivePath, r.videoFramesDecoded), percent(r.receivePath, r),
                     fmt(r.receivePath / (r.vp8Decode + r.opusDecode), 3) + " x codecs"])
    }
    for r in runs {
        let total = r.receivePath + r.vp8Decode + r.opusDecode
        rows.append(["received", "one received stream, \(r.profile): transport + jitter buffer + codecs",
                     perFrame(total, r.videoFramesDecoded), percent(total, r), ""])
    }
    printTable(header: ["stream", "stage", "CPU (per-peer and totals: audio included)", "% of one core", "per peer / codecs"], rows: rows)
    for r in runs {
        json.append(#"{"what":"rtp_cpu","profile":"\#(r.profile)","media_s":\#(fmt(r.mediaSeconds)),"frames_encoded":\#(r.videoFramesEncoded),"frames_decoded":\#(r.videoFramesDecoded),"audio_decoded":\#(r.audioFramesDecoded),"packets_sent":\#(r.packetsSent),"vp8_encode_s":\#(fmt(r.vp8Encode, 4)),"opus_encode_s":\#(fmt(r.opusEncode, 4)),"send_path_s":\#(fmt(r.sendPath, 4)),"receive_path_s":\#(fmt(r.receivePath, 4)),"vp8_decode_s":\#(fmt(r.vp8Decode, 4)),"opus_decode_s":\#(fmt(r.opusDecode, 4))}"#)
    }
    print("(\(base.videoFramesEncoded) frames and \(base.audioFramesEncoded) audio frames sent, \(base.videoFramesDecoded) and \(base.audioFramesDecoded) decoded, \(base.packetsSent) packets)")

    print("")
    print("Receive-path latency, no loss: wall time from PeerConnection taking the datagram that completes a frame to the frame")
    print("decoded (SRTP unprotect + depacketize + jitter buffer + VP8 decode), \(base.frameLatencies.count) frames of the run above.")
    var latencyRows: [[String]] = []
    for r in runs {
        let micros = r.frameLatencies.map { $0 * 1e6 }
        latencyRows.append([r.profile, "\(micros.count)", fmt(percentile(micros, 0.50), 0) + " µs",
                            fmt(percentile(micros, 0.95), 0) + " µs", fmt(micros.max() ?? 0, 0) + " µs"])
        json.append(#"{"what":"rtp_receive_latency_us","profile":"\#(r.profile)","frames":\#(micros.count),"p50":\#(fmt(percentile(micros, 0.5), 0)),"p95":\#(fmt(percentile(micros, 0.95), 0)),"max":\#(fmt(micros.max() ?? 0, 0))}"#)
    }
    printTable(header: ["SRTP profile", "frames", "p50", "p95", "max"], rows: latencyRows)

    print("")
    let callSeconds = 10.0
    let calls = try LoopbackCallCost.run(seconds: callSeconds)
    print("The whole call layer in real time: two Calls in this process over UDP on 127.0.0.1, each sending its test card and tone")
    print("to the other (2 sent + 2 received streams, plus card rendering, threads, sockets, card reading); process CPU")
    print("(getrusage) over \(Int(callSeconds)) s of wall time once media flows.")
    let perCall = 100 * calls.cpuSeconds / calls.wallSeconds / 2
    let fps = calls.framesDecoded.map { fmt(Double($0) / calls.wallSeconds, 1) }.joined(separator: " / ")
    let audioRate = calls.audioFramesDecoded.map { fmt(Double($0) / calls.wallSeconds, 1) }.joined(separator: " / ")
    printTable(header: ["what", "process CPU % of one core", "per call (1 sent + 1 received stream)", "video fps received (a / b)", "audio frames/s"],
               rows: [["2 Calls, loopback UDP", fmt(100 * calls.cpuSeconds / calls.wallSeconds) + " %", fmt(perCall) + " %", fps, audioRate]])
    json.append(#"{"what":"loopback_calls","wall_s":\#(fmt(calls.wallSeconds)),"cpu_s":\#(fmt(calls.cpuSeconds, 3)),"per_call_pct":\#(fmt(perCall)),"frames_decoded":\#(calls.framesDecoded),"audio_frames_decoded":\#(calls.audioFramesDecoded)}"#)

    print("")
    print("Packet-to-frame latency through the jitter buffer, VIRTUAL ms (what the buffer adds, not CPU time): VideoSendStream ->")
    print("seeded network (20 ms one way + 0-5 ms jitter, order kept; reordered packets 10-40 ms later; loss both ways) -> VideoReceiveStream")
    print("with NACK and PLI, 60 s of the test card at 15 fps. \"last packet\" = from the arrival of the packet that completed the")
    print("frame to its hand-out (0 unless held for a retransmission or an earlier frame); \"first packet\" = the buffer's own measure.")
    let scenarios = [
        JitterBufferLatency.Scenario(name: "0 % loss, in order", loss: 0, reorder: 0, seed: 1),
        JitterBufferLatency.Scenario(name: "0 % loss, 5 % reordered", loss: 0, reorder: 0.05, seed: 2),
        JitterBufferLatency.Scenario(name: "5 % loss, 5 % reordered", loss: 0.05, reorder: 0.05, seed: 3),
        JitterBufferLatency.Scenario(name: "10 % loss, 5 % reordered", loss: 0.10, reorder: 0.05, seed: 4),
    ]
    var bufferRows: [[String]] = []
    for s in scenarios {
        let r = try JitterBufferLatency.run(s, seconds: 60)
        let last = r.lastPacketToFrame, first = r.firstPacketToFrame
        let held = 100 * Double(last.filter { $0 > 0 }.count) / Double(max(1, last.count))
        bufferRows.append([s.name, "\(r.framesSent)", "\(r.framesDecoded)", "\(r.framesDropped)", "\(r.nacksSent)", "\(r.retransmissions)",
                           "\(r.plisSent)", fmt(held, 1) + " %",
                           "\(fmt(percentile(last, 0.5), 1)) / \(fmt(percentile(last, 0.95), 1)) / \(fmt(percentile(last, 0.99), 1)) / \(fmt(last.max() ?? 0, 1))",
                           "\(fmt(percentile(first, 0.5), 1)) / \(fmt(percentile(first, 0.95), 1))"])
        json.append(#"{"what":"jitter_buffer_latency_virtual_ms","scenario":"\#(s.name)","seed":\#(s.seed),"frames_sent":\#(r.framesSent),"frames_decoded":\#(r.framesDecoded),"dropped":\#(r.framesDropped),"nacks":\#(r.nacksSent),"retransmissions":\#(r.retransmissions),"plis":\#(r.plisSent),"last_p50":\#(fmt(percentile(last, 0.5), 1)),"last_p95":\#(fmt(percentile(last, 0.95), 1)),"last_p99":\#(fmt(percentile(last, 0.99), 1)),"last_max":\#(fmt(last.max() ?? 0, 1)),"first_p50":\#(fmt(percentile(first, 0.5), 1)),"first_p95":\#(fmt(percentile(first, 0.95), 1))}"#)
    }
    printTable(header: ["network", "frames sent", "decoded", "dropped", "NACKs", "resent", "PLIs", "frames held",
                        "last packet→frame p50/p95/p99/max ms", "first packet→frame p50/p95 ms"], rows: bufferRows)
    writeJSONLines(json, to: "bench-results/rtp.jsonl")
}

/// Nearest-rank percentile (0...1) of unsorted values; 0 for none.
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}
