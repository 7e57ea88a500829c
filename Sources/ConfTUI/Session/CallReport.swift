import Engine
import Foundation
import Signaling
import Synchronization

/// The JSON report `bot --report` and `join --report` write when they end: who we were, why we ended, what we sent
/// and, per remote socketId, what arrived (frames, test-card counters, tone, RTT, loss, the connection timeline).
struct CallReport: Encodable {
    var name: String
    var room: String
    var you: RemotePeerID?
    var startedAt: Double
    var endReason: String
    var elapsed: Double
    /// Wall-clock time (Unix seconds) when the call started: the origin of every `...At` in `peers`.
    var callStartedAt: Double
    var local: LocalMediaSnapshot
    var peers: [RemotePeerID: ReportedPeer]
    /// Every connection's bytes and packets, both ways (`CallTraffic`): the uplink and downlink of the call.
    var traffic: CallTraffic
    /// What the call's bounds dropped (`CallLimits`): zero unless a server or peer sent more than a room needs, or the
    /// screen stopped reading the call's events.
    var dropped: Dropped
    /// Chat and files (`bot`): every message and file in order; nil where the caller keeps no record.
    var chat: [MessagingReport.Chat]?
    var files: [MessagingReport.File]?
    var said: [MessagingReport.Said]?
    var filesSent: [MessagingReport.Sent]?
    var roundTripsMs: [String: [Double]]?

    struct Dropped: Encodable {
        /// Signaling messages refused because `CallLimits.maxQueuedSignals` were already waiting.
        var signals: Int
        /// Call events dropped because `CallLimits.maxQueuedEvents` were already waiting for the screen.
        var callEvents: Int
    }

    /// A participant's snapshot with the name it gave the room (`display`, absent when it gave none) and what it
    /// announced about its microphone and camera (`media`: each null until it said).
    struct ReportedPeer: Encodable {
        var snapshot: PeerSnapshot
        var display: String?
        var media = Media()

        struct Media: Encodable {
            var audioMuted: Bool?
            var videoOn: Bool?

            private enum Key: String, CodingKey { case audioMuted, videoOn }

            // Null rather than absent: "not announced" is an answer a test reads.
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(audioMuted, forKey: .audioMuted)
                try container.encode(videoOn, forKey: .videoOn)
            }
        }

        private enum Key: String, CodingKey { case display, media }

        func encode(to encoder: any Encoder) throws {
            try snapshot.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encodeIfPresent(display, forKey: .display)
            try container.encode(media, forKey: .media)
        }
    }

    init(session: any RoomSession, name: String, startedAt: Double, endReason: String, messaging: MessagingReport? = nil,
         names: [RemotePeerID: String] = [:], media: [RemotePeerID: RemoteMediaState] = [:]) {
        chat = messaging?.chat
        files = messaging?.files
        said = messaging?.said
        filesSent = messaging?.filesSent
        roundTripsMs = messaging.flatMap { $0.roundTripsMs.isEmpty ? nil : $0.roundTripsMs }
        let s = session.call.snapshot()
        self.name = name
        room = session.roomShown
        you = s.you
        self.startedAt = startedAt
        self.endReason = endReason
        elapsed = s.elapsed
        callStartedAt = MediaPipeline.wallClock() - s.elapsed
        local = s.local
        traffic = s.traffic
        peers = s.peers.reduce(into: [:]) {
            let announced = media[$1.key]
            $0[$1.key] = ReportedPeer(snapshot: $1.value, display: names[$1.key],
                                      media: .init(audioMuted: announced?.audioMuted, videoOn: announced?.videoOn))
        }
        dropped = Dropped(signals: session.call.droppedSignals, callEvents: session.call.events.dropped)
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}

/// Rewrites a report file during a call without holding up the caller. Building a report measures every peer's tone
/// (about a second with four peers in a debug build), which on the screen's thread froze the keys for that long every
/// 2 s. One write at a time: a round that finds the previous write still going is skipped. Each write goes to a
/// temporary file that is then renamed, so a reader never sees half a report.
final class PeriodicReportWriter: Sendable {
    let path: String
    private let busy = Mutex(false)

    init(path: String) { self.path = path }

    func writeInBackground(_ report: @escaping @Sendable () -> CallReport) {
        let idle = busy.withLock { isBusy in
            defer { isBusy = true }
            return !isBusy
        }
        guard idle else { return }
        Thread { [self] in
            write(report())
            busy.withLock { $0 = false }
        }.start()
    }

    /// Waits (up to 5 s) for a write in progress, then writes `report`: the last word, at the end of the call.
    func writeNow(_ report: CallReport) {
        for _ in 0..<500 where busy.withLock({ $0 }) { usleep(10_000) }
        write(report)
    }

    private func write(_ report: CallReport) {
        let temporary = path + ".tmp"
        do {
            try report.write(to: temporary)
            _ = rename(temporary, path)
        } catch {
            // The screen cannot show it and must not stop for it.
        }
    }
}
