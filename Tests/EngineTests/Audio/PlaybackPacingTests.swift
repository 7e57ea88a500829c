import Testing
@testable import Engine
@testable import EngineMedia

/// A frame whose every sample is `n`: tells frames apart after they went through a queue.
private func numbered(_ n: Int) -> AudioFrame { AudioFrame(samples: [Int16](repeating: Int16(n), count: AudioFrame.samplesPerFrame)) }

@Test func aPlaybackQueueDropsTheOldestRatherThanGrow() {
    var q = PlaybackQueue()
    for i in 0..<50 { q.push(numbered(i)) }   // the playback side stalled for a second
    #expect(q.count == PlaybackQueue.defaultCapacity)
    #expect(q.dropped == 50 - PlaybackQueue.defaultCapacity)
    // What is left is the newest 120 ms, in order.
    let played = (0..<PlaybackQueue.defaultCapacity).compactMap { _ in q.pop()?.samples[0] }
    #expect(played == (44..<50).map { Int16($0) })
    #expect(q.underruns == 0)
}

@Test func anEmptyPlaybackQueueIsAnUnderrunAndWaitsForItsPrefill() {
    var q = PlaybackQueue(capacity: 6, prefill: 2)
    q.push(numbered(1))
    #expect(q.pop() == nil, "one frame is below the prefill: not started yet")
    #expect(q.underruns == 0, "not started is not an underrun")
    q.push(numbered(2))
    #expect(q.pop()?.samples[0] == 1)
    #expect(q.pop()?.samples[0] == 2)
    #expect(q.pop() == nil)
    #expect(q.underruns == 1)
    q.push(numbered(3))
    #expect(q.pop() == nil, "after an underrun it waits for the prefill again")
    q.push(numbered(4))
    #expect(q.pop()?.samples[0] == 3)
    #expect(q.underruns == 1)
}

@Test func aPlaybackQueueLeftFullByABurstComesBackDownToItsTargetDelay() {
    var q = PlaybackQueue()
    var next = 0
    func push() { q.push(numbered(next)); next += 1 }
    for _ in 1..<PlaybackQueue.defaultCapacity { push() }   // a stalled event thread caught up: with the next, 120 ms queued
    var played: [Int16] = []
    for _ in 0..<100 {   // then steady: one in, one out every 20 ms
        push()
        if let f = q.pop() { played.append(f.samples[0]) }
    }
    #expect(q.count <= PlaybackQueue.defaultPrefill + 1, "back to ~40-60 ms, not 120 ms for ever: \(q.count) queued")
    #expect(q.dropped == 3, "one frame every half second: \(q.dropped)")
    #expect(played == played.sorted() && played.count == 100, "in order, none missing but the drained ones")
    let settled = q.dropped
    for _ in 0..<100 {
        push()
        _ = q.pop()
    }
    #expect(q.dropped == settled && q.underruns == 0, "at the target depth nothing more is dropped")
}

@Test func theFramePacerKeepsTheClockAsACeilingWithALead() {
    // A tone: the clock paces, one frame every 20 ms from the first, without drift.
    var tone = FramePacer()
    #expect(abs(tone.pause(now: 10.000) - 0.020) < 1e-9)
    #expect(abs(tone.pause(now: 10.021) - 0.019) < 1e-9, "a late frame shortens the next pause")
    #expect(abs(tone.pause(now: 10.040) - 0.020) < 1e-9)
    // A little behind (a device that blocked, a short preemption): no pause until back on the schedule, no more.
    #expect(tone.pause(now: 10.150) == 0)
    #expect(tone.pause(now: 10.150) == 0)
    // Far behind (a starved thread): start again from now rather than burst.
    #expect(tone.pause(now: 11.000) == 0)
    #expect(abs(tone.pause(now: 11.000) - 0.020) < 1e-9)
    // A playback buffer may run `lead` ahead before the clock holds it back; it never runs further ahead, however fast
    // its writes return (ALSA's `null` PCM, or a preempted write on a loaded machine that looked like a blocking one).
    var playback = FramePacer(lead: 0.06)
    let pauses = (0..<5).map { _ in playback.pause(now: 1.0) }
    #expect(pauses.prefix(3).allSatisfy { $0 == 0 })
    #expect(abs(pauses[3] - 0.02) < 1e-9 && abs(pauses[4] - 0.04) < 1e-9)
    // Simulated: 100 frames whose I/O takes 0 to 9 ms, sleeping as told: never more than lead + 1 frame ahead.
    var device = FramePacer(lead: 0.06), t = 0.0, frames = 0
    for i in 0..<100 {
        t += Double(i % 10) / 1_000   // the I/O call
        frames += 1
        t += device.pause(now: t)
        #expect(Double(frames) * 0.02 <= t + 0.06 + 0.02 + 1e-9)
    }
    #expect(t >= 100 * 0.02 - 0.06 - 1e-9, "100 frames take 2 s less the lead: \(t)")
}

@Test func aStalledPlaybackThreadDropsAtTheCallPlaybackToo() throws {
    // The playback thread never runs (not started): the event thread's pushes must not pile up.
    let playback = try #require(CallPlayback(.nullSink))
    let peer = RemotePeerID("p")
    for i in 0..<100 { playback.push(numbered(i), from: peer) }
    let s = playback.snapshot(analyse: false)
    #expect(s.framesDropped == 100 - PlaybackQueue.defaultCapacity)
    #expect(s.peers == 1 && s.framesPlayed == 0)
    #expect(s.note == "speaker: none (levels measured only)")
    playback.remove(peer)
    let after = playback.snapshot(analyse: false)
    #expect(after.peers == 0 && after.framesDropped == s.framesDropped, "a peer leaving keeps the totals")
    #expect(CallPlayback(.none) == nil)
}
