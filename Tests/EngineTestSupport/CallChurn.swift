import Engine
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Join/leave churn against one `Call`, for the bounds test and `make bench` (suite `churn`): remote peers join
/// the call's room one after another and leave again, and the process's resident memory is read before, during
/// and after. A long call must return to its baseline: a peer that left keeps nothing but its summary
/// (`CallLimits.closedPeerSummaries`).
///
/// A join is what the call sees of a SkyRTC newcomer (docs/skyrtc-protocol.md §5: the newcomer offers): `_new_peer`,
/// its offer and its trickled candidates; the call answers (a `PeerConnection` with its ICE agent and DTLS context, two sockets'
/// worth of ports, VP8 and Opus decoders) and starts checking. Every `handshakeEvery`-th peer also completes the
/// handshake: it is a real sans-IO `PeerConnection` on a loopback socket, driven here until ICE and DTLS connect
/// and SRTP carries the call's media, so those peers leave SRTP contexts and jitter buffers behind to release too.
/// Most peers stop at signaling and checks because a full handshake costs ~100 ms of wall time (ICE pacing, the
/// DTLS flights): 500 of them would make the test minutes long; the others exercise everything up to DTLS.
public enum CallChurn {
    public struct Report: Sendable {
        public var joined = 0
        public var left = 0
        public var handshakes = 0
        /// VmRSS in bytes after the warm-up (the baseline), the most seen during the churn, and after it.
        public var baselineRSS = 0
        public var peakRSS = 0
        public var finalRSS = 0
        /// What the call retained afterwards.
        public var retained = Retained.nothing
        public var seconds = 0.0
        public var finalOverBaseline: Double { baselineRSS == 0 ? 0 : Double(finalRSS) / Double(baselineRSS) }

        public init() {}
    }

    /// Resident memory of this process (VmRSS of /proc/self/status), in bytes; 0 if unreadable.
    public static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kb = Int(fields[1]), kb >= 0, kb < Int.max / 1024 else { return 0 }
            return kb * 1024
        }
        return 0
    }

    /// Returns freed heap to the system so RSS reflects what is still allocated.
    /// (glibc's `malloc_trim`, looked up at run time: Swift's Glibc module does not import malloc.h.)
    public static func trimHeap() {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") else { return }
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    private final class Mailbox: Sendable {
        let signals = Mutex<[CallSignalOut]>([])
        func take(for id: RemotePeerID) -> [CallSignalOut] {
            signals.withLock { all in
                var mine: [CallSignalOut] = []
                all.removeAll { s in
                    let to: RemotePeerID
                    switch s {
                    case .offer(let t, _), .answer(let t, _), .candidate(let t, _, _, _): to = t
                    }
                    if to == id { mine.append(s) }
                    return true   // signals for peers already gone are dropped too
                }
                return mine
            }
        }
    }

    /// - Parameters: `warmup` cycles before the baseline, `cycles` measured after it; `handshakeEvery`: one peer in
    ///   that many completes ICE+DTLS (0: none). `progress` is told the RSS every `batch` cycles.
    public static func run(warmup: Int, cycles: Int, handshakeEvery: Int, batch: Int = 50,
                           progress: (Int, Int) -> Void = { _, _ in }) throws -> Report {
        let mailbox = Mailbox()
        var options = Call.Options()
        options.hostCandidates = .loopback
        let call = try Call(options: options) { signal in mailbox.signals.withLock { $0.append(signal) } }
        call.start()
        defer { call.stop() }
        let me = RemotePeerID("churn-host")
        call.handle(.joined(you: me, others: []))
        // One offer text for the signaling-only joins (the call neither knows nor cares that they share it).
        let offerSocket = try UdpSocket(bind: TransportAddress(ip: IPAddress("127.0.0.1")!, port: 0))
        let offerer = try PeerConnection(configuration: .random(localHosts: [offerSocket.localAddress]))
        var sharedOffer = ""
        for e in offerer.handle(.command(.createOffer), now: .zero).events {
            if case .localDescription(let d, _) = e { sharedOffer = d.sdpText }
        }
        let trickled = offerer.localDescription?.allCandidates.map(\.sdpValue) ?? []

        var report = Report()
        let start = MonotonicClock.now()
        var serial = 0
        func cycle() throws {
            serial += 1
            let id = RemotePeerID("churn-\(serial)")
            if handshakeEvery > 0 && serial % handshakeEvery == 0 {
                if try handshake(call: call, id: id, mailbox: mailbox) { report.handshakes += 1 }
            } else {
                call.handle(.newPeer(id))
                call.handle(.offer(from: id, sdp: sharedOffer))
                for c in trickled { call.handle(.candidate(from: id, candidate: c, mid: "0", mLineIndex: 0)) }
                // Until the call has answered (the connection exists, ICE/DTLS state allocated).
                let deadline = MonotonicClock.now() + 5
                while MonotonicClock.now() < deadline, !mailbox.signals.withLock({ $0.contains { if case .answer(id, _) = $0 { true } else { false } } }) {
                    usleep(500)
                }
                _ = mailbox.take(for: id)
            }
            report.joined += 1
            call.handle(.removePeer(id))
            report.left += 1
        }
        func settle() {
            let deadline = MonotonicClock.now() + 5
            while MonotonicClock.now() < deadline, call.retained.openPeers > 0 || call.retained.queuedSignals > 0 { usleep(2_000) }
            _ = mailbox.take(for: me)
            usleep(50_000)
            trimHeap()
        }
        for _ in 0..<warmup { try cycle() }
        settle()
        report.baselineRSS = residentBytes()
        report.peakRSS = report.baselineRSS
        for i in 1...max(1, cycles) {
            try cycle()
            if i % batch == 0 || i == cycles {
                let rss = residentBytes()
                report.peakRSS = max(report.peakRSS, rss)
                progress(i, rss)
            }
        }
        settle()
        report.finalRSS = residentBytes()
        report.peakRSS = max(report.peakRSS, report.finalRSS)
        report.retained = call.retained
        report.seconds = MonotonicClock.now() - start
        return report
    }

    /// A newcomer that completes ICE and DTLS with the call and receives SRTP, then leaves. False if it did not
    /// connect within a few seconds.
    private static func handshake(call: Call, id: RemotePeerID, mailbox: Mailbox) throws -> Bool {
        let socket = try UdpSocket(bind: TransportAddress(ip: IPAddress("127.0.0.1")!, port: 0))
        let pc = try PeerConnection(configuration: .random(localHosts: [socket.localAddress]))
        let origin = MonotonicClock.nanoseconds()
        func now() -> TransportTime { TransportTime(nanoseconds: MonotonicClock.nanoseconds() - origin) }
        var deadline: TransportTime?
        var offer = ""
        func pump(_ out: PeerConnection.Output) {
            for t in out.transmits { _ = socket.send(t.bytes, to: t.to) }
            deadline = out.deadline
            for case .localDescription(let d, _) in out.events { offer = d.sdpText }
        }
        pump(pc.handle(.command(.createOffer), now: now()))
        call.handle(.newPeer(id))
        call.handle(.offer(from: id, sdp: offer))
        var answered = false
        let end = MonotonicClock.now() + 5
        while MonotonicClock.now() < end {
            for signal in mailbox.take(for: id) {
                switch signal {
                case .answer(_, let sdp):
                    if let answer = try? SessionDescription(parsing: sdp) {
                        pump(pc.handle(.command(.applyRemoteAnswer(answer)), now: now()))
                        answered = true
                    }
                case .candidate(_, let text, _, _):
                    if let c = try? IceCandidate(parsing: text) { pump(pc.handle(.command(.addRemoteCandidate(c)), now: now())) }
                case .offer: break
                }
            }
            var budget = 64
            while budget > 0, let (bytes, from) = socket.receive() {
                budget -= 1
                pump(pc.handle(.datagram(from: from, to: socket.localAddress, bytes: bytes), now: now()))
            }
            if let d = deadline, d <= now() { pump(pc.handle(.timeout, now: now())) }
            // Connected, and the call's media reached us through SRTP (its decoders and buffers are in use).
            if answered, pc.state == .connected, pc.stats(now: now()).packetsReceived > 20 { break }
            usleep(1_000)
        }
        let connected = pc.state == .connected
        _ = pc.handle(.command(.close), now: now())
        return connected
    }
}

/// What a call's bounds keep (open connections, closed participants' summaries, queued inputs): what join/leave
/// churn must return to.
public struct Retained: Sendable, Equatable {
    public var openPeers: Int
    public var closedSummaries: Int
    public var queuedSignals: Int

    public init(openPeers: Int, closedSummaries: Int, queuedSignals: Int) {
        self.openPeers = openPeers
        self.closedSummaries = closedSummaries
        self.queuedSignals = queuedSignals
    }

    /// Before the first peer and after the last has left and been forgotten.
    public static let nothing = Retained(openPeers: 0, closedSummaries: 0, queuedSignals: 0)
}

extension Call {
    public var retained: Retained {
        Retained(openPeers: openConnectionCount, closedSummaries: closedSummaryCount, queuedSignals: queuedInputCount)
    }
}
