import Foundation
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport
@testable import Signaling

/// Target 1, the remote offer/answer/candidate path as a client meets it: newline-separated server messages →
/// SkyRTC decode → (the session's translation) → SDP or candidate parse → `PeerConnection` (answer or offer, apply,
/// candidates; a later offer of the same ICE session renegotiates) → virtual time until the first connectivity checks
/// go out. Newlines inside JSON strings are escaped,
/// so a raw 0x0A only ever separates messages.
enum SignalingPathTarget {
    static let local = TransportAddress("127.0.0.1:40000")!

    static func run(_ bytes: [UInt8]) {
        var configuration = PeerConnection.Configuration.random(localHosts: [local])
        configuration.acceptRemoteAddress = { _ in true }
        guard let pc = try? PeerConnection(configuration: configuration) else { return }
        var now = TransportTime.zero
        var deadline: TransportTime?
        func feed(_ input: PeerConnection.Input) {
            deadline = pc.handle(input, now: now).deadline
        }
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true).prefix(16) {
            guard let message = try? SkyRTCServerMessage.decode(Array(line)) else { continue }
            switch message {
            case .offer(let d):
                guard let text = sdpText(d), let offer = try? SessionDescription(parsing: text) else { continue }
                _ = offer.sdpText
                feed(.command(.applyRemoteOffer(offer)))
            case .answer(let d):
                if pc.role == nil { feed(.command(.createOffer)) }
                guard let text = sdpText(d), let answer = try? SessionDescription(parsing: text) else { continue }
                feed(.command(.applyRemoteAnswer(answer)))
            case .iceCandidate(let c):
                // As the call does: blank is end-of-candidates, the rest must parse.
                let trimmed = c.candidate.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty, let candidate = try? IceCandidate(parsing: trimmed) else { continue }
                _ = candidate.sdpValue
                feed(.command(.addRemoteCandidate(candidate)))
            case .removePeer:
                feed(.command(.close))
            case .peers, .newPeer, .error, .mediaState, .other:
                continue
            }
        }
        // The first connectivity checks (and their retransmissions) on the virtual clock: a few seconds is enough.
        for _ in 0..<40 {
            guard let next = deadline, next.nanoseconds <= 3_000_000_000 else { break }
            now = max(now, next)
            feed(.timeout)
        }
        _ = pc.stats(now: now)
        feed(.command(.close))
    }

    /// What the session reads from `_offer`/`_answer`: `data.sdp.sdp` (browsers) or a plain string.
    static func sdpText(_ d: SkyRTCDescription) -> String? { d.sdp["sdp"]?.stringValue ?? d.sdp.stringValue }
}
