import Testing
@testable import ConfTUI
@testable import Engine

/// `DemoTalk`: the demo's turns and Grace's scripted mute.

@Test func graceMutesAboutASecondBeforeHerTurnEndsOnEveryOtherCycleWhileStillTalking() {
    let talk = DemoTalk(seats: 3, epoch: 100)
    let grace = talk.script(seat: 1)
    for cycle in 0..<6 {
        let start = 100 + Double(cycle) * talk.cycleSeconds
        let herTurn = start + DemoTalk.turnSeconds, herEnd = herTurn + DemoTalk.turnSeconds
        #expect(grace.isTurn(at: herTurn + 0.01) && !grace.isTurn(at: herEnd + 0.01))
        if cycle % 2 == 0 {
            #expect(!talk.isMuted(seat: 1, at: herEnd - DemoTalk.muteLead - 0.01), "cycle \(cycle): talking unmuted first")
            #expect(talk.isMuted(seat: 1, at: herEnd - DemoTalk.muteLead + 0.01), "cycle \(cycle): muted in her turn")
            // Her mouth still moves after she muted: her script goes on until the turn's tail.
            let talkingMuted = stride(from: herEnd - DemoTalk.muteLead, to: herEnd, by: 0.01).filter { grace.envelope(at: $0) > 0.3 }
            #expect(talkingMuted.count >= 20, "cycle \(cycle): \(talkingMuted.count) centiseconds of talking while muted")
            let next = start + talk.cycleSeconds + DemoTalk.turnSeconds
            #expect(talk.isMuted(seat: 1, at: next - DemoTalk.unmuteLead - 0.01))
            #expect(!talk.isMuted(seat: 1, at: next - DemoTalk.unmuteLead + 0.01), "cycle \(cycle): unmuted before her next turn")
        } else {
            #expect(stride(from: herTurn, to: herEnd, by: 0.05).allSatisfy { !talk.isMuted(seat: 1, at: $0) },
                    "cycle \(cycle): the whole turn unmuted")
        }
    }
    for t in stride(from: 90.0, to: 200, by: 0.1) {
        #expect(!talk.isMuted(seat: 0, at: t) && !talk.isMuted(seat: 2, at: t), "only Grace mutes")
    }
    #expect(!talk.isMuted(seat: 1, at: 99) && !talk.isMuted(seat: 1, at: .nan))
    let alone = DemoTalk(seats: 1, epoch: 0)
    #expect(stride(from: 0.0, to: 30, by: 0.1).allSatisfy { !alone.isMuted(seat: 1, at: $0) && !alone.isMuted(seat: 0, at: $0) })
}

@Test func everySeatSaysItsOwnScriptFromTheSameEpoch() {
    let talk = DemoTalk(seats: 4, epoch: 1_700_000_000)
    let scripts = (0..<4).map(talk.script(seat:))
    #expect(scripts.allSatisfy { $0.epoch == talk.epoch && $0.seats == 4 && $0.turnSeconds == DemoTalk.turnSeconds })
    #expect(scripts.map(\.seat) == [0, 1, 2, 3])
    for t in stride(from: talk.epoch, to: talk.epoch + 2 * talk.cycleSeconds, by: 0.1) {
        #expect(scripts.filter { $0.isTurn(at: t) }.count == 1)
    }
}
