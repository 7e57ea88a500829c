import Engine
import RoomModel

/// A scripted room for development and tests (`conftui demo --simulate N`): N fake participants
/// join one after another, take turns talking as `talk` says (the same conversation as the networked demo's: their
/// levels are their scripts' envelopes, and their tiles' faces move their mouths to the same scripts), Grace mutes
/// as `talk` says (while still talking), and (in lively mode) the last one leaves and comes back every `churnPeriod`
/// seconds. It produces the same `RoomEvent`s the real call does, so the same Room and UI code runs. Pure: the
/// caller passes the time, in seconds since `talk.epoch`.
struct SimulatedRoom {
    static let names = ["Ada", "Grace", "Linus", "Radia", "Ken", "Barbara", "Dennis", "Margaret",
                        "Edsger", "Frances", "Alan", "Hedy"]
    let count: Int
    let churn: Bool
    let talk: DemoTalk
    static let churnPeriod = 40.0
    let localID = ParticipantID("local-0000")

    private var emitted = Set<String>()
    private var lastTick = -1.0
    private var generation: [Int: Int] = [:]
    /// When each participant's current generation joined (a rejoin moves it).
    private var joinedAt: [Int: Double] = [:]
    /// The mute state last told for each participant id (absent: not muted).
    private var mutedTold: [ParticipantID: Bool] = [:]
    let chat: DemoChat
    private var chatTold = -1.0
    /// Answers to your messages waiting for their time (seconds since the epoch), oldest first.
    private var answers: [(at: Double, seat: Int, text: String)] = []
    private var messagesFromYou = 0

    init(count: Int, churn: Bool, talk: DemoTalk, localName: String = "you") {
        self.count = count
        self.churn = churn
        self.talk = talk
        chat = DemoChat(seats: count, localName: localName)
    }

    /// You sent a chat message at `t`: someone answers it a second later.
    mutating func youSaid(at t: Double) {
        let answer = chat.answer(messagesFromYou)
        messagesFromYou += 1
        // Bounded like everything else: a held-down Enter must not queue answers without end.
        if answers.count < 8 { answers.append((t + DemoChat.answerDelay, answer.seat, answer.text)) }
    }

    /// Participant `k` (1-based, as in `id(_:)`) of an id this room made, whatever its generation; nil for others.
    static func participantNumber(of id: ParticipantID) -> Int? {
        let text = id.rawValue
        guard text.count > 6, text.dropFirst(6).hasPrefix("-sim") else { return nil }
        return Int(text.prefix(6))
    }

    /// What a meter would read for seat `k` at `t` (seconds since the epoch): the RMS of its voice over the last
    /// 100 ms, from its script's envelope (`SpeechSource.voiceLevel` at full envelope), 0 while muted.
    func level(seat k: Int, at t: Double) -> Double {
        let wall = talk.epoch + t
        guard !talk.isMuted(seat: k, at: wall) else { return 0 }
        let script = talk.script(seat: k)
        let meanSquare = (0..<10).map { i in pow(script.envelope(at: wall - Double(i) * 0.01), 2) }.reduce(0, +) / 10
        return SpeechSource.voiceLevel * meanSquare.squareRoot()
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
            // An odd generation is one that has left and not yet come back (lively mode, below): nobody to join.
            guard g % 2 == 0 else { continue }
            let pid = id(k, generation: g)
            let t0 = joinedAt[k] ?? joinTime(k)
            if t >= t0 {
                once("new-\(k)-\(g)", [.peerJoined(pid), .nameChanged(pid, SimulatedRoom.names[(k - 1) % SimulatedRoom.names.count])])
            }
            if t >= t0 + 0.1 { once("connecting-\(k)-\(g)", [.connectionChanged(pid, .connecting)]) }
            if t >= t0 + 0.6 { once("connected-\(k)-\(g)", [.connectionChanged(pid, .connected)]) }
        }
        // Grace's scripted mute (DemoTalk), told again to a new generation that rejoins while she is muted.
        if count >= 2 {
            let k = DemoTalk.mutingSeat + 1
            let pid = id(k, generation: generation[k] ?? 0)
            let muted = talk.isMuted(seat: k - 1, at: talk.epoch + t)
            if emitted.contains("new-\(k)-\(generation[k] ?? 0)"), muted != (mutedTold[pid] ?? false) {
                mutedTold[pid] = muted
                out.append(.remoteMediaChanged(pid, audioMuted: muted, videoOn: nil))
            }
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
        // The chat: the scripted lines, then answers to yours, from whoever is in the room in that seat.
        for n in chat.due(after: chatTold, upTo: t) {
            let line = chat.scripted(n)
            let k = line.seat + 1
            // Nobody types from a seat that is out of the room (lively mode's leave and rejoin).
            guard (generation[k] ?? 0) % 2 == 0 else { continue }
            out.append(.chatReceived(id(k, generation: generation[k] ?? 0), text: line.text, at: talk.epoch + line.at))
        }
        chatTold = t
        while let first = answers.first, first.at <= t {
            answers.removeFirst()
            let k = first.seat + 1
            guard (generation[k] ?? 0) % 2 == 0 else { continue }
            out.append(.chatReceived(id(k, generation: generation[k] ?? 0), text: first.text, at: talk.epoch + first.at))
        }
        // Ten times a second: audio levels (participant k says seat k - 1's script; you are silent) and, once a
        // second, stats.
        let tick = (t * 10).rounded(.down) / 10
        if tick > lastTick {
            let statsDue = Int(tick) != Int(lastTick)
            lastTick = tick
            for k in 0...count {
                let pid = k == 0 ? localID : id(k, generation: generation[k] ?? 0)
                out.append(.audioLevel(pid, level: k == 0 ? 0 : level(seat: k - 1, at: tick), at: tick))
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
