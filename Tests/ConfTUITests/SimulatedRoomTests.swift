import Testing
@testable import ConfTUI
@testable import Engine
import RoomModel

/// `SimulatedRoom` (`demo --simulate`): its levels follow the demo's scripts, so the speaking mark agrees with the
/// mouths of `DemoVideo`'s faces; Grace's scripted mute overlaps her talking; the faces are the ones of the talk.

/// Runs the room from 0 to `until` in steps of 50 ms (the screen's pace is faster; the events are the same).
private func run(_ room: inout SimulatedRoom, until: Double, each: (Double, [RoomEvent]) -> Void) {
    var t = 0.0
    while t <= until {
        each(t, room.events(until: t))
        t += 0.05
    }
}

@Test func theSpeakingMarkFollowsTheScriptsOneSpeakerAtATime() {
    let talk = DemoTalk(seats: 3, epoch: 0)
    var sim = SimulatedRoom(count: 3, churn: false, talk: talk)
    let meter = sim   // its levels depend on the talk only
    var room = Room(roomName: "demo")
    var spoke = Set<String>(), agreed = 0
    run(&sim, until: 24) { t, events in
        for e in events { room.apply(e) }
        let speaking = room.remotes.values.filter(\.speaking).compactMap(\.name)
        #expect(speaking.count <= 2, "at most the speaker and, for its hold time, the one before (\(t): \(speaking))")
        spoke.formUnion(speaking)
        #expect(!room.local.speaking, "you are silent in the simulation")
        // While the script's speaker is loud, its tile says so and is the only one that starts to.
        let tick = (t * 10).rounded(.down) / 10   // levels come ten times a second
        let seat = talk.script(seat: 0).speaker(at: tick)!
        if meter.level(seat: seat, at: tick) > Room.speakOn, t > 2 {
            #expect(speaking.contains(SimulatedRoom.names[seat]), "\(t): \(SimulatedRoom.names[seat]) talks")
            agreed += 1
        }
    }
    #expect(spoke == ["Ada", "Grace", "Linus"])
    #expect(agreed > 100)
}

@Test func graceIsMutedWhileHerScriptStillTalks() {
    let talk = DemoTalk(seats: 3, epoch: 0)
    var sim = SimulatedRoom(count: 3, churn: false, talk: talk)
    var room = Room(roomName: "demo")
    var mutedAt: [Double] = [], unmutedAt: [Double] = [], talkingWhileMuted = 0
    let grace = sim.id(2)
    run(&sim, until: 30) { t, events in
        for e in events {
            room.apply(e)
            if case .remoteMediaChanged(grace, audioMuted: let muted?, videoOn: _) = e {
                if muted { mutedAt.append(t) } else { unmutedAt.append(t) }
            }
            if case .audioLevel(grace, let level, _) = e, room.remotes[grace]?.audioMuted == true {
                #expect(level == 0, "a muted microphone sends silence (\(t))")
            }
        }
        if room.remotes[grace]?.audioMuted == true, talk.script(seat: 1).envelope(at: t) > 0.3 { talkingWhileMuted += 1 }
    }
    // Cycle 0: her turn is 4 to 8 s; she mutes at 6.8 s and unmutes at 15.5 s, before her turn of 16 to 20 s.
    #expect(mutedAt.count == 1 && abs(mutedAt[0] - 6.8) < 0.06, "\(mutedAt)")
    #expect(unmutedAt.count == 1 && abs(unmutedAt[0] - 15.5) < 0.06, "\(unmutedAt)")
    #expect(talkingWhileMuted >= 5, "her mouth moves while she is muted (\(talkingWhileMuted) samples)")
}

@Test func aGraceWhoRejoinsWhileMutedIsToldMutedAgain() {
    // Two participants: Grace is also the one who leaves (at 30 and 70 s) and rejoins 3 s later with a new id; the
    // second time inside her mute of 70.8 to 75.5 s.
    let talk = DemoTalk(seats: 2, epoch: 0)
    var sim = SimulatedRoom(count: 2, churn: true, talk: talk)
    var room = Room(roomName: "demo")
    var gracesAt: [Int: Int] = [:]   // whole seconds → how many Grace tiles
    run(&sim, until: 75) { t, events in
        for e in events { room.apply(e) }
        gracesAt[Int(t)] = room.remotes.values.filter { $0.name == "Grace" }.count
    }
    #expect(gracesAt[29] == 1 && gracesAt[31] == 0 && gracesAt[34] == 1 && gracesAt[71] == 0 && gracesAt[74] == 1,
            "gone for 3 s, then back once: \(gracesAt.sorted { $0.key < $1.key })")
    let grace = room.remotes.values.first { $0.name == "Grace" }
    #expect(grace?.id == sim.id(2, generation: 4), "the twice rejoined Grace")
    #expect(grace?.audioMuted == true)
    #expect(SimulatedRoom.participantNumber(of: sim.id(2, generation: 4)) == 2)
    #expect(SimulatedRoom.participantNumber(of: ParticipantID("local-0000")) == nil)
}

@Test func theSimulatedDemoShowsFacesThatTalkWithTheScripts() throws {
    final class Clock: @unchecked Sendable { var now = 1_000.0 }   // the test's one thread
    let clock = Clock()
    let talk = DemoTalk(seats: 2, epoch: 1_000)
    let video = try DemoVideo(localSource: "face", localName: "Sam", talk: talk, clock: { clock.now })
    #expect(video.local.entries.map(\.name) == ["face", "card", "bars", "clock"] && video.local.currentName == "face")
    let bars = try DemoVideo(localSource: "bars", localName: nil, talk: talk, clock: { clock.now })
    #expect(bars.local.currentName == "bars")
    let sim = SimulatedRoom(count: 2, churn: false, talk: talk)
    // Ada (seat 0) talks in the first turn; her mouth moves, Grace's does not.
    var ada: [[UInt8]] = [], grace: [[UInt8]] = []
    for k in 0..<15 {
        clock.now = 1_000.5 + Double(k) / 15
        ada.append(try #require(video.frame(for: sim.id(1), isLocal: false, name: "Ada")).y)
        grace.append(try #require(video.frame(for: sim.id(2), isLocal: false, name: "Grace")).y)
    }
    #expect(Set(ada).count >= 4, "Ada's mouth moves")
    #expect(Set(grace).count <= 2, "Grace's face changes at most by a blink")
}

@Test func theSimulatedRoomChatsOnScheduleAndAnswersYou() {
    var sim = SimulatedRoom(count: 3, churn: false, talk: DemoTalk(seats: 3, epoch: 1_000), localName: "Sam")
    var messages: [(ParticipantID, String, Double)] = []
    var t = 0.0
    while t <= 30 {
        if abs(t - 20) < 0.01 { sim.youSaid(at: t) }
        for case .chatReceived(let id, let text, let at) in sim.events(until: t) { messages.append((id, text, at)) }
        t += 0.05
    }
    // Scripted lines at 4, 16 and 28 s, the answer at 21 s, each from a participant of the room.
    #expect(messages.map(\.2).map { Int(($0 - 1_000).rounded()) } == [4, 16, 21, 28])
    #expect(messages[0].1 == DemoChat.lines[0])
    #expect(messages[2].1 == "Got it, Sam.")
    for (id, _, _) in messages { #expect(SimulatedRoom.participantNumber(of: id) != nil) }
    // Line n comes from the seat whose turn it is then.
    #expect(sim.chat.scripted(1).seat == Int(16.0 / DemoTalk.turnSeconds) % 3)
}
