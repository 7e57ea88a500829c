@testable import Engine

/// A's media: the test card through one VP8 encoder (15 fps) and a 440 Hz tone through Opus every 20 ms, on the
/// virtual clock. Keyframe requests from A's connection force the next frame to be a keyframe.
final class VirtualSender {
    let encoder: VP8Encoder
    let opus: OpusEncoder
    let card: TestCardSource
    var tone = ToneSource(frequency: 440)
    var muted = false
    var slots = 0
    var keyframesSent = 0
    var clock: Double = 0

    init() throws {
        encoder = try VP8Encoder(width: 320, height: 240)
        opus = try OpusEncoder()
        final class Clock: @unchecked Sendable { var value = 0.0 }   // read only from the test's one thread
        let box = Clock()
        card = try TestCardSource(participant: 5, clock: { box.value })
        clockBox = { box.value = $0 }
    }
    private let clockBox: (Double) -> Void

    func tick(_ h: PeerPairHarness, at now: TransportTime) throws {
        let wantsKeyframe = h.events["A"]!.contains { if case .keyframeRequested = $0 { true } else { false } }
        let frame = tone.nextFrame()
        let (packet, dtx) = try opus.encode(muted ? .silence : frame)
        h.feed("A", .command(.sendAudio(packet: packet, isDTX: dtx)))
        slots += 1
        // 15 fps out of 50 audio slots per second: a frame on slots 0, 3, 7, 10, 13, 17, ...
        if (slots * 15) / 50 != ((slots - 1) * 15) / 50 {
            clockBox(now.seconds)
            let force = wantsKeyframe && pendingKeyframe(h)
            if let picture = try card.nextFrame(), let encoded = try encoder.encode(picture, forceKeyframe: force) {
                if encoded.isKeyframe { keyframesSent += 1 }
                h.feed("A", .command(.sendVideo(encoded)))
            }
        }
    }

    private var requestsSeen = 0
    /// True once per new `.keyframeRequested` event of A.
    private func pendingKeyframe(_ h: PeerPairHarness) -> Bool {
        let requests = h.count("A") { if case .keyframeRequested = $0 { true } else { false } }
        defer { requestsSeen = requests }
        return requests > requestsSeen
    }
}
