import Testing
@testable import EngineMedia

/// `SpeechScript`: who talks when, and the envelope of that talk, as a pure function of the time.

@Test func theTurnsPartitionTimeWithOneSpeakerAtATimeAndAGapBetweenSpeakers() {
    let epoch = 1_700_000_000.0
    let scripts = (0..<4).map { SpeechScript(seat: $0, seats: 4, epoch: epoch, turnSeconds: 4) }
    var t = epoch
    var heard = Set<Int>()
    while t < epoch + 3 * 16 {
        let turns = scripts.filter { $0.isTurn(at: t) }.map(\.seat)
        #expect(turns.count == 1, "exactly one seat's turn at \(t - epoch)")
        let sounding = scripts.filter { $0.envelope(at: t) > 0 }.map(\.seat)
        #expect(sounding.count <= 1 && sounding.allSatisfy { turns.contains($0) }, "only the turn's seat sounds at \(t - epoch)")
        // Silent just after a turn starts and just before it ends: two speakers never touch.
        let into = (t - epoch).truncatingRemainder(dividingBy: 4)
        if into < SpeechScript.leadIn || into >= 4 - SpeechScript.tail { #expect(sounding.isEmpty, "gap at \(t - epoch)") }
        heard.formUnion(sounding)
        t += 0.005
    }
    #expect(heard == [0, 1, 2, 3], "every seat talks")
    #expect(scripts[0].speaker(at: epoch - 1) == nil && scripts[0].envelope(at: epoch - 1) == 0, "nobody before the epoch")
    #expect(scripts[2].speaker(at: .nan) == nil && scripts[2].envelope(at: .infinity) == 0)
}

@Test func theScriptIsTheSameOnEveryCallAndDiffersBetweenSeats() {
    let a = SpeechScript(seat: 1, seats: 3, epoch: 500, turnSeconds: 4)
    let b = SpeechScript(seat: 1, seats: 3, epoch: 500, turnSeconds: 4)
    #expect(a == b)
    for turn in [1, 4, 7, 301] {
        #expect(a.syllables(inTurn: turn) == b.syllables(inTurn: turn))
        #expect(!a.syllables(inTurn: turn).isEmpty)
        #expect(a.syllables(inTurn: turn - 1).isEmpty, "turn \(turn - 1) is seat 0's")
    }
    var t = 504.0
    while t < 508 {
        #expect(a.envelope(at: t) == b.envelope(at: t))
        t += 0.013
    }
    let other = SpeechScript(seat: 0, seats: 3, epoch: 500, turnSeconds: 4)
    let mine = a.syllables(inTurn: 1).map { $0.start - a.turnStart(1) }
    let theirs = other.syllables(inTurn: 0).map { $0.start - other.turnStart(0) }
    #expect(mine != theirs, "seats talk differently")
    #expect(a.pitchHz != other.pitchHz && (100...230).contains(a.pitchHz) && (100...230).contains(other.pitchHz))
}

@Test func syllablesComeFourToSixASecondInPhrasesWithShortPauses() {
    let script = SpeechScript(seat: 2, seats: 4, epoch: 0, turnSeconds: 4)
    for turn in stride(from: 2, to: 400, by: 4) {
        let syllables = script.syllables(inTurn: turn)
        #expect(syllables.count >= 8, "a turn holds several phrases (\(syllables.count) syllables)")
        for s in syllables { #expect(SpeechScript.syllableSeconds.contains(s.duration)) }
        // Phrases: runs of syllables that touch; between them, pauses of 0.18 to 0.45 s.
        var phrases = 1
        for (x, y) in zip(syllables, syllables.dropFirst()) where y.start - x.end > 1e-9 {
            phrases += 1
            #expect(y.start - x.end >= 0.18 && y.start - x.end <= 0.45 + 1e-9)
            #expect(x.endLevel == 0 && y.startLevel == 0, "a phrase starts and ends in silence")
        }
        #expect(phrases >= 2 && phrases <= syllables.count / 3 + 2, "phrases of 3 to 8 (the last may be cut short)")
        let spoken = syllables.reduce(0) { $0 + $1.duration }
        let rate = Double(syllables.count) / spoken
        #expect(rate >= 4 && rate <= 6.25, "\(rate) syllables a second")
    }
}

@Test func theEnvelopeIsContinuousAndStaysWithinZeroToOne() {
    let script = SpeechScript(seat: 0, seats: 2, epoch: 10, turnSeconds: 4)
    var previous = 0.0, t = 10.0, loudest = 0.0
    while t < 18 {
        let e = script.envelope(at: t)
        #expect(e >= 0 && e <= 1)
        #expect(abs(e - previous) < 0.03, "no jump at \(t)")
        previous = e
        loudest = max(loudest, e)
        t += 0.0005
    }
    #expect(loudest > 0.9)
}

@Test func outOfRangeArgumentsAreClampedNotTrapped() {
    let s = SpeechScript(seat: 99, seats: -3, epoch: .nan, turnSeconds: .infinity)
    #expect(s.seats == 1 && s.seat == 0 && s.epoch == 0 && s.turnSeconds == 4)
    #expect(s.turn(at: 1e300) == nil && s.syllables(inTurn: -1).isEmpty)
    #expect(SpeechScript(seat: 0, seats: 2, epoch: 0, turnSeconds: 0.1).turnSeconds == 1.5)
}
