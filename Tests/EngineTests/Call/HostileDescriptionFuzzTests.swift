import Testing
@testable import Engine
@testable import EngineTransport

/// Seeded mutations of real offers and answers (Chrome's, aiortc's, conftui's own), applied through the ordinary
/// `PeerConnection` commands and run for a few virtual seconds: whatever a peer writes, the connection answers,
/// refuses or fails, and never traps (issue #12). `make fuzz` runs more inputs: a twentieth of
/// `CONFTUI_FUZZ_ITERATIONS`, since each input costs two peer connections (a certificate each) and their timers, ~6 ms.
@Suite struct HostileDescriptionFuzzTests {
    static let tokens = ["0", "-1", "15", "255", "256", "65536", "4294967296", "99999999999999999999", "", "*", "/", ":",
                         "a=", "::1", "127.0.0.1", "0.0.0.0", String(repeating: "x", count: 300), "\u{0}", "é"]
    static let lines = ["m=audio 9 UDP/TLS/RTP/SAVPF", "m=video 0 UDP/TLS/RTP/SAVPF 96", "m=video 9 RTP/AVP 96",
                        "a=extmap:15 urn:ietf:params:rtp-hdrext:sdes:mid", "a=extmap:255 urn:ietf:params:rtp-hdrext:sdes:mid",
                        "a=mid:", "a=mid:0", "a=setup:holdconn", "a=setup:passive", "a=inactive", "a=sendonly", "a=rtcp-mux",
                        "a=ice-lite", "a=ssrc-group:FID", "a=ssrc-group:FID 1", "a=rtpmap:96 VP8/0", "a=rtpmap:96 VP8/90000",
                        "a=rtpmap:111 opus/48000/2", "a=group:BUNDLE", "a=group:BUNDLE 7 7 7", "a=ice-ufrag:abcd",
                        "a=ice-pwd:abcdefghijklmnopqrstuv", "a=candidate:1 1 udp 1 127.0.0.1 0 typ host",
                        "a=candidate:1 1 udp 1 ::1 9 typ host", "a=fingerprint:sha-256 00", "a=end-of-candidates"]

    func mutate(_ text: String, _ rng: inout SplitMixRandom) -> String {
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        for _ in 0..<Int.random(in: 1...4, using: &rng) where !lines.isEmpty {
            let i = Int.random(in: 0..<lines.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: lines.remove(at: i)
            case 1: lines.insert(lines[i], at: i)
            case 2: lines.insert(Self.lines.randomElement(using: &rng)!, at: i)
            default:
                var fields = lines[i].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
                let f = Int.random(in: 0..<fields.count, using: &rng)
                let token = Self.tokens.randomElement(using: &rng)!
                // Keep the `x=` (or `a=name:`) prefix of the line's first field half the time, so the line still
                // means something.
                if f == 0, rng.chance(0.5), let colon = fields[0].firstIndex(of: ":") ?? fields[0].firstIndex(of: "=") {
                    fields[0] = String(fields[0][...colon]) + token
                } else {
                    fields[f] = token
                }
                lines[i] = fields.joined(separator: " ")
            }
        }
        return lines.joined(separator: "\r\n")
    }

    /// Applies `text` through the commands a SkyRTC message leads to, then lets timers run for 2 virtual seconds.
    func exercise(_ pc: PeerConnection, _ command: (SessionDescription) -> PeerConnection.Command, _ text: String) {
        guard let sd = try? SessionDescription(parsing: text) else { return }
        var now = TransportTime.zero
        var out = pc.handle(.command(command(sd)), now: now)
        for c in sd.allCandidates.prefix(3) { out = pc.handle(.command(.addRemoteCandidate(c)), now: now) }
        for _ in 0..<50 {
            guard let next = out.deadline, next - .zero < .seconds(2) else { break }
            now = max(now, next)
            out = pc.handle(.timeout, now: now)
        }
    }

    @Test func seededFuzzOfOffersAndAnswersNeverTraps() throws {
        var rng = SplitMixRandom(seed: 1212)
        let host = TransportAddress("127.0.0.1:5000")!
        let own = try PeerPairHarness(seed: 12)
        own.feed("A", .command(.createOffer))
        let ownOffer = try #require(own.description("A")).sdpText
        own.feed("B", .command(.applyRemoteOffer(try SessionDescription(parsing: ownOffer))))
        let ownAnswer = try #require(own.description("B")).sdpText
        let offers = [SdpFixtures.chromeOffer, SdpFixtures.aiortcOffer, ownOffer]
        for _ in 0..<max(150, fuzzIterations(default: 150) / 20) {
            let answerer = try PeerConnection(configuration: .random(localHosts: [host]))
            exercise(answerer, { .applyRemoteOffer($0) }, mutate(offers.randomElement(using: &rng)!, &rng))
            let offerer = try PeerConnection(configuration: .random(localHosts: [host]))
            _ = offerer.handle(.command(.createOffer), now: .zero)
            exercise(offerer, { .applyRemoteAnswer($0) }, mutate(ownAnswer, &rng))
        }
    }
}
