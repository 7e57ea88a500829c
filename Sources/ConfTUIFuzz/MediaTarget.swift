@testable import Engine

/// Target 4, media after SRTP: the input is a script of RTP and RTCP packets that A protects with its real SRTP
/// context and B unprotects, so every parser behind SRTP sees the fuzzer's bytes — routing, RTP and RTCP parsing,
/// VP8 depacketisation, the jitter buffers, NACK, statistics, and B's VP8 and Opus decoders — with virtual time
/// passing between packets. (Unprotected noise would stop at libsrtp's authentication.) B also sends a video frame
/// per input, so its send-side estimator has stamped packets and probes for the fuzzer's transport feedback to
/// name: the sent-packet log, the probe meter and controller, and the pacer are reached too.
///
/// Connecting a pair (certificates, ICE, the DTLS handshake, codecs) costs hundreds of times an input, so one pair
/// serves `inputsPerPair` inputs (or until the fuzzer's packets have closed it). The price: a crash may depend on
/// the inputs before it; replay the crash directory's input with a fresh process, then the recent corpus entries.
enum MediaTarget {
    static let inputsPerPair = 2_000
    nonisolated(unsafe) static var current: (peers: ConnectedPeers, media: RemoteMedia, inputs: Int)?

    static func run(_ bytes: [UInt8]) {
        if let c = current, c.inputs < inputsPerPair, c.peers.a.state == .connected, c.peers.b.state == .connected {
            current?.inputs += 1
        } else {
            current = nil
            guard let peers = ConnectedPeers(), let media = try? RemoteMedia() else { return }
            current = (peers, media, 0)
            wire(peers, media)
        }
        guard let (peers, _, _) = current else { return }
        run(bytes, on: peers)
    }

    /// B's decoded media goes to real decoders, as in a call.
    static func wire(_ peers: ConnectedPeers, _ media: RemoteMedia) {
        // Unowned: `peers` keeps this closure, and a strong capture would leak both.
        peers.onEventAtB = { [unowned peers] event in
            switch event {
            case .videoFrame(let mid, let frame):
                if !media.decode(frame, now: peers.now.seconds, wallMillis: UInt32(truncatingIfNeeded: peers.now.nanoseconds / 1_000_000)) {
                    peers.feed("B", .command(.decodeFailed(mid: mid)))
                }
            case .audio(_, let pull): _ = media.play(pull)
            default: break
            }
        }
    }

    static func run(_ bytes: [UInt8], on peers: ConnectedPeers) {
        var input = FuzzInput(bytes)
        let start = peers.now
        // A 2 KB frame (two packets through the pacer); the first of a pair is a keyframe (VP8 P bit 0), which
        // B's connection needs before it sends video, and after which its estimator starts probing.
        var frame = [UInt8](repeating: 0x5A, count: 2_000)
        let keyframe = (current?.inputs ?? 0) == 0
        frame[0] = keyframe ? 0x10 : 0x11
        peers.feed("B", .command(.sendVideo(EncodedVideoFrame(data: frame, isKeyframe: keyframe, timestamp: start.seconds))))
        var packets = 0
        while !input.isEmpty && packets < 64 {
            packets += 1
            let op = input.byte()
            var packet = input.chunk()
            // Bit 1: make it version 2 (the fuzzer need not rediscover the header's first bits).
            if op & 2 != 0, !packet.isEmpty { packet[0] = packet[0] & 0x3F | 0x80 }
            if packet.count >= 12 || op & 1 == 1 && packet.count >= 8 {
                peers.deliverToB(packet, rtcp: op & 1 == 1)
            }
            // The top bits: let virtual time pass (timers, NACK, playout), up to 63 ms per packet and 300 ms per
            // input: a virtual second costs about a real one here (ASan, timers, decoders), and longer timers are
            // still reached because the pair, and its clock, live on across inputs.
            let wait = Int64(op >> 2)
            if wait > 0, peers.now < start + .milliseconds(300) { peers.run(limit: .milliseconds(wait)) }
        }
        peers.run(limit: .milliseconds(20))
        _ = peers.b.stats(now: peers.now)
    }
}
