import RoomModel

/// A scripted room for development and tests (`conftui demo --simulate N`): N fake participants
/// join one after another, take turns talking, one mutes for a while, and (in lively mode) the last
/// one leaves and comes back every `churnPeriod` seconds. It produces the same `RoomEvent`s the real
/// call does, so the same Room and UI code runs. Pure: the caller passes the time.
struct SimulatedRoom {
    static let names = ["Ada", "Grace", "Linus", "Radia", "Ken", "Barbara", "Dennis", "Margaret",
                        "Edsger", "Frances", "Alan", "Hedy"]
    let count: Int
    let churn: Bool
    static let churnPeriod = 40.0
    let localID = ParticipantID("local-0000")

    private var emitted = Set<String>()
    private var lastTick = -1.0
    private var generation: [Int: Int] = [:]
    /// When each participant's current generation joined (a rejoin moves it).
    private var joinedAt: [Int: Double] = [:]

    init(count: Int, churn: Bool) {
        self.count = count
        self.churn = churn
    }

    func id(_ k: Int, generation g: Int = 0) -> ParticipantID {
        ParticipantID(String(format6(k)) + "-sim\(g)-" + SimulatedRoom.names[(k - 1) % SimulatedRoom.names.count].lowercased())
    }

    private func format6(_ k: Int) -> String {
        let digits = String(k)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    func joinTime(_ k: Int) -> Double { 0.4 + 0.5 * Double(k - 1) }

    /// Events between the previous call and `t` (seconds since the demo started).
    mutating func events(until t: Double) -> [RoomEvent] {
        var out: [RoomEvent] = []
        func once(_ key: String, _ events: @autoclosure () -> [RoomEvent]) {
            if emitted.insert(key).inserted { out += events() }
        }
        once("join", [.joined(you: localID, peers: [])])
        for k in 1...max(1, count) where count > 0 {
            let g = generation[k] ?? 0
            let pid = id(k, generation: g)
            let t0 = joinedAt[k] ?? joinTime(k)
            if t >= t0 {
                once("new-\(k)-\(g)", [.peerJoined(pid), .nameChanged(pid, SimulatedRoom.names[(k - 1) % SimulatedRoom.names.count])])
            }
            if t >= t0 + 0.1 { once("connecting-\(k)-\(g)", [.connectionChanged(pid, .connecting)]) }
            if t >= t0 + 0.6 { once("connected-\(k)-\(g)", [.connectionChanged(pid, .connected)]) }
        }
        // Participant 2 (or 1) mutes from 8 s to 12 s in every 20 s.
        if count >= 1 {
            let k = min(2, count)
            let pid = id(k, generation: generation[k] ?? 0)
            let phase = t.truncatingRemainder(dividingBy: 20)
            let muted = phase >= 8 && phase < 12
            let key = "mute-\(k)-\(Int(t / 20))-\(muted)"
            if t >= 8 { once(key, [.remoteMediaChanged(pid, audioMuted: muted, videoOn: nil)]) }
        }
        // Lively mode: the last participant leaves at 30 s of every 40 s and rejoins 3 s later
        // with a new socketId, as a real reconnect does.
        if churn && count >= 1 {
            let cycle = Int(t / SimulatedRoom.churnPeriod)
            let phase = t - Double(cycle) * SimulatedRoom.churnPeriod
            let g = generation[count] ?? 0
            if phase >= 30 && g == cycle * 2 {
                out.append(.peerLeft(id(count, generation: g)))
                generation[count] = g + 1
            } else if phase >= 33 && g == cycle * 2 + 1 {
                let pid = id(count, generation: g + 1)
                generation[count] = g + 1
                joinedAt[count] = t
                emitted.insert("new-\(count)-\(g + 1)")
                out += [.peerJoined(pid), .nameChanged(pid, SimulatedRoom.names[(count - 1) % SimulatedRoom.names.count])]
            }
        }
        // Ten times a second: audio levels (participants talk in turns of 3 s) and, once a second, stats.
        let tick = (t * 10).rounded(.down) / 10
        if tick > lastTick {
            let statsDue = Int(tick) != Int(lastTick)
            lastTick = tick
            let speaker = Int(tick / 3) % max(1, count + 1)   // 0 is the local participant
            for k in 0...count {
                let pid = k == 0 ? localID : id(k, generation: generation[k] ?? 0)
                let wobble = 0.5 + 0.5 * sin(tick * 7 + Double(k))
                let level = k == speaker ? 0.15 + 0.35 * wobble : 0.01 * wobble
                out.append(.audioLevel(pid, level: level, at: tick))
                if statsDue && k > 0 {
                    out.append(.statsUpdated(pid, MediaStats(
                        fps: 15 - Double(k % 3), kbps: 280 + Double(k * 17 % 60), rttMs: 18 + Double(k * 7 % 30),
                        lossPercent: Double(k % 4) * 0.4, videoCodec: "VP8", audioCodec: "opus",
                        frameWidth: 320, frameHeight: 240)))
                }
            }
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#endif
