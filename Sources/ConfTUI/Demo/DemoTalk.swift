import Engine

/// The demo's conversation, the same in both kinds of demo: the synthetic participants take turns of 4 s in join order
/// (seat 0 is Ada, 1 Grace, 2 Linus, ...), counted from one epoch, the demo's start; each says its seat's
/// `SpeechScript` with its voice (`MicrophoneChoice.speech`) and its face (`--camera face`), so mouths, meters and the
/// speaking mark move together. Nobody is muted to take turns: a participant is silent outside its turn because its
/// script is.
///
/// One scripted mute, so the demo shows "muted while talking": Grace (seat 1, when there are two or more) mutes
/// herself 1.2 s before the end of her turn on every other cycle (cycles 0, 2, 4, ... of the round of turns), about a
/// second before she stops talking, and unmutes 0.5 s before her next turn. Meanwhile her label says "muted", her
/// meter and speaking mark stop, and her mouth goes on moving to the end of her turn. Pure: the caller passes the time.
struct DemoTalk: Sendable, Equatable {
    static let turnSeconds = 4.0
    static let mutingSeat = 1
    /// Grace mutes this long before the end of her turn...
    static let muteLead = 1.2
    /// ...and unmutes this long before her next one.
    static let unmuteLead = 0.5

    let seats: Int
    /// Wall-clock seconds at which turn 0 starts.
    let epoch: Double

    init(seats: Int, epoch: Double) {
        self.seats = min(max(seats, 1), 64)
        self.epoch = epoch.isFinite ? epoch : 0
    }

    /// What seat `k` says.
    func script(seat k: Int) -> SpeechScript {
        SpeechScript(seat: k, seats: seats, epoch: epoch, turnSeconds: Self.turnSeconds)
    }

    /// One round of turns: everybody once.
    var cycleSeconds: Double { Double(seats) * Self.turnSeconds }

    /// Whether seat `k` has muted itself at wall-clock time `t`.
    func isMuted(seat k: Int, at t: Double) -> Bool {
        guard seats >= 2, k == Self.mutingSeat, t.isFinite else { return false }
        let since = t - epoch
        guard since >= 0, since < 1e11 else { return false }
        let cycle = Int((since / cycleSeconds).rounded(.down))
        // A mute that began in this cycle or the one before (it lasts into the next cycle).
        for c in [cycle - 1, cycle] where c >= 0 && c % 2 == 0 {
            let from = Double(c) * cycleSeconds + Double(k + 1) * Self.turnSeconds - Self.muteLead
            let until = Double(c + 1) * cycleSeconds + Double(k) * Self.turnSeconds - Self.unmuteLead
            if since >= from && since < until { return true }
        }
        return false
    }
}
