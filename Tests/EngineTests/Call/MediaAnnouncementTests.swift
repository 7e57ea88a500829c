import Foundation
import Synchronization
import Testing
@testable import Engine

/// The call tells the room its microphone and camera state (SkyRTC `__media_state`): once after each join, then on
/// every change of mute or video, never before the first join and never twice for the same state.
@Suite struct MediaAnnouncementTests {
    @Test(.timeLimit(.minutes(1)))
    func announcedAfterJoinAndOnEachChangeOnly() throws {
        let said = Mutex<[LocalMediaState]>([])
        var options = Call.Options()
        options.hostCandidates = .loopback
        let call = try Call(options: options, onSignal: { _ in }, onMediaAnnouncement: { m in said.withLock { $0.append(m) } })
        call.start()
        defer { call.stop() }
        func wait(for count: Int) -> [(Bool, Bool)] {
            for _ in 0..<200 where said.withLock({ $0.count }) < count { usleep(10_000) }
            return said.withLock { $0.map { ($0.audioMuted, $0.videoOn) } }
        }
        call.media.setMuted(true)   // before any join: nothing said
        usleep(100_000)
        #expect(said.withLock { $0.isEmpty })
        call.handle(.joined(you: RemotePeerID("me"), others: []))
        #expect(wait(for: 1).map { "\($0)" } == ["(true, true)"])
        call.media.setVideoEnabled(false)
        #expect(wait(for: 2).map { "\($0)" } == ["(true, true)", "(true, false)"])
        call.media.setVideoEnabled(false)   // no change: no announcement
        call.media.setMuted(false)
        #expect(wait(for: 3).map { "\($0)" } == ["(true, true)", "(true, false)", "(false, false)"])
        // A rejoin (new socket, new `_peers`) says it again.
        call.handle(.joined(you: RemotePeerID("me-again"), others: []))
        #expect(wait(for: 4).count == 4)
        usleep(150_000)
        #expect(said.withLock { $0.count } == 4)
    }
}
