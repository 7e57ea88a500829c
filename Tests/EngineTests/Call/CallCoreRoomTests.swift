import Foundation
import Testing
import EngineTestSupport
@testable import Engine

/// Whole rooms of `CallCore`s on the virtual clock and the network emulator (`CallRoomHarness`): four members join a
/// SkyRTC mesh, send each other media both ways, one leaves, one loses its signaling and comes back, and every frame
/// and audio packet is checked to come from the member it is attributed to. Seconds of a room run in about a third of
/// their time (`make bench`, suite "rooms", measures it).
@Suite struct CallCoreRoomTests {
    static let names = ["ann", "bob", "cat", "dan"]

    /// What `receiver` got from `sender` so far: video frames and audio packets.
    func received(_ room: CallRoomHarness, _ receiver: String, from sender: String) -> (video: Int, audio: Int) {
        let m = room.member(receiver)
        return (m.videoFrom[sender]?.count ?? 0, m.audioFrom[sender]?.count ?? 0)
    }

    /// Runs `seconds` of media and checks that each receiver got at least `minimumShare` of each sender's video
    /// frames and audio packets in that time.
    func expectMediaFlows(_ room: CallRoomHarness, among names: [String], seconds: Double, minimumShare: Double,
                          sourceLocation: SourceLocation = #_sourceLocation) {
        // The first keyframe of a new connection may need a PLI and a resend (or, with loss, a lost handshake flight
        // resent on OpenSSL's own timer, which runs on the real clock: on a loaded machine that is more virtual time):
        // measure once every pair has had a few frames since, and no less than 500 ms on.
        var start: [String: Int] = [:]
        for r in names { for s in names where s != r { start["\(r)<\(s)"] = received(room, r, from: s).video } }
        room.run(for: .milliseconds(500))
        let flowing = room.run(for: .seconds(5)) {
            names.allSatisfy { r in names.allSatisfy { s in s == r || received(room, r, from: s).video >= start["\(r)<\(s)"]! + 3 } }
        }
        #expect(flowing, "not every member gets video from every other", sourceLocation: sourceLocation)
        var before: [String: (video: Int, audio: Int)] = [:]
        for r in names { for s in names where s != r { before["\(r)<\(s)"] = received(room, r, from: s) } }
        room.run(for: .milliseconds(Int64(seconds * 1000)))
        let frames = seconds / (Double(room.videoInterval.components.attoseconds) / 1e18)
        let packets = seconds / 0.020
        for r in names {
            for s in names where s != r {
                let now = received(room, r, from: s), then = before["\(r)<\(s)"]!
                #expect(Double(now.video - then.video) >= minimumShare * frames, "\(r) got \(now.video - then.video) frames from \(s)",
                        sourceLocation: sourceLocation)
                #expect(Double(now.audio - then.audio) >= minimumShare * packets, "\(r) got \(now.audio - then.audio) audio packets from \(s)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    func logs(_ room: CallRoomHarness) -> String {
        room.members.map { "\($0.name):\n" + $0.log.suffix(40).joined(separator: "\n") }.joined(separator: "\n")
    }

    func joinLeaveLoseAndReconnect(loss: Double, seed: UInt64) {
        var conditions = LinkConditions()
        conditions.delay = .milliseconds(15)
        conditions.jitter = .milliseconds(5)
        conditions.loss = loss
        let room = CallRoomHarness(conditions: conditions, seed: seed)
        let wall = ContinuousClock.now
        for name in Self.names { room.add(name) }
        for name in Self.names {
            room.join(name)
            room.run(for: .milliseconds(100))
        }
        // With loss a handshake flight may need a retransmission or two (DTLS doubles its timer from 1 s).
        #expect(room.run(for: .seconds(15)) { room.fullyConnected }, "\(logs(room))")
        // NACK recovers lost video packets (a recovered frame may land in the next second, so two are counted); lost
        // audio is concealed, not resent.
        let share = loss > 0 ? 0.8 : 0.9
        // With loss, a frame whose packet and its resend are both lost costs a keyframe request and the frames until
        // it comes: over 2 s one loss pattern (of a loaded machine) gave 24 frames where 24.2 were asked; 4 s even it out.
        let window = loss > 0 ? 4.0 : 2.0
        expectMediaFlows(room, among: Self.names, seconds: window, minimumShare: share)

        // dan leaves: everyone else closes its connection to dan and goes on.
        let dan = room.member("dan").id!
        room.leave("dan")
        room.run(for: .milliseconds(300))
        for name in ["ann", "bob", "cat"] {
            #expect(room.member(name).core.connection(of: dan) == nil)
            #expect(room.member(name).states.last { $0.hasPrefix("dan:") } == "dan:closed")
        }
        #expect(room.member("dan").core.openConnections == 0)
        expectMediaFlows(room, among: ["ann", "bob", "cat"], seconds: window, minimumShare: share)

        // cat's signaling breaks: its call closes everything at once, the others see it leave.
        let cat = room.member("cat").id!
        room.loseSignaling("cat")
        room.run(for: .milliseconds(300))
        #expect(room.member("cat").core.openConnections == 0)
        #expect(room.member("cat").core.you == nil)
        #expect(room.member("ann").core.connection(of: cat) == nil && room.member("bob").core.connection(of: cat) == nil)
        // It reconnects under a new id and offers to everyone again.
        room.join("cat")
        // With loss a handshake flight may need a retransmission or two (DTLS doubles its timer from 1 s).
        #expect(room.run(for: .seconds(15)) { room.fullyConnected }, "\(logs(room))")
        #expect(room.member("cat").id != cat)
        expectMediaFlows(room, among: ["ann", "bob", "cat"], seconds: window, minimumShare: share)

        for m in room.members { #expect(m.misattributed == 0, "\(m.name) got media attributed to the wrong sender") }
        // Each join is announced once: cat joined twice.
        #expect(room.members.map(\.announcements.count) == [1, 1, 2, 1])
        // How much faster than real time is the bench's business (`make bench`, suite "rooms"); printed here too.
        print(String(format: "room of four (loss %.0f %%): %.1f s of call in %.2f s", loss * 100, room.now.seconds,
                     (ContinuousClock.now - wall).seconds))
    }

    @Test func aMeshOfFourJoinsLeavesLosesSignalingAndReconnects() {
        joinLeaveLoseAndReconnect(loss: 0, seed: 1)
    }

    @Test func theSameWithFivePercentLoss() {
        joinLeaveLoseAndReconnect(loss: 0.05, seed: 2)
    }
}
