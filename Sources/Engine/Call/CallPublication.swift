import EngineMedia

/// What the call's event thread publishes for the other threads (reports, the screen's statistics): our id, each open
/// connection's summary, and the last snapshot of the newest participants that left, at most
/// `CallLimits.closedPeerSummaries`, so join/leave churn returns to the baseline memory.
struct CallPublication: Sendable {
    var you: RemotePeerID?
    var open: [RemotePeerID: PeerSnapshot] = [:]
    var traffic = CallTraffic()
    var closed: [RemotePeerID: PeerSnapshot] = [:]
    /// Oldest first.
    var closedOrder: [RemotePeerID] = []

    /// A participant left: its last snapshot stays, with the level and dominant frequency of its last audio measured
    /// once now instead of its samples (the report of a peer that left still says what it sounded like, without
    /// keeping half a second of audio per summary).
    mutating func close(_ id: RemotePeerID, _ summary: PeerSnapshot, decoded: DecodeWorker.Results) {
        var snapshot = summary.with(decoded)
        if !decoded.recentSamples.isEmpty {
            snapshot.audio.level = AudioAnalysis.rmsLevel(decoded.recentSamples)
            snapshot.audio.dominantFrequency = AudioAnalysis.dominantFrequency(decoded.recentSamples)
        }
        open[id] = nil
        closed[id] = snapshot
        closedOrder.removeAll { $0 == id }
        closedOrder.append(id)
        while closedOrder.count > CallLimits.closedPeerSummaries { closed[closedOrder.removeFirst()] = nil }
    }

    /// Every participant: the open ones (with their decoders' figures, `decoders` naming who is open now) over the
    /// closed ones. `analyseAudio` measures level and frequency over the last ~0.5 s, `levelsOnly` the level of the
    /// last ~100 ms (what a meter wants, in microseconds).
    func peers(decoders: [RemotePeerID: DecodeWorker], analyseAudio: Bool, levelsOnly: Bool) -> [RemotePeerID: PeerSnapshot] {
        var peers = closed
        for (id, summary) in open {
            guard let decoded = decoders[id]?.latest else { continue }
            var s = summary.with(decoded)
            let samples = decoded.recentSamples
            if analyseAudio || levelsOnly, !samples.isEmpty {
                s.audio.level = AudioAnalysis.rmsLevel(analyseAudio ? samples : Array(samples.suffix(4800)))
                if analyseAudio { s.audio.dominantFrequency = AudioAnalysis.dominantFrequency(samples) }
            }
            peers[id] = s
        }
        return peers
    }
}

extension PeerSnapshot {
    /// The core's summary with what the participant's decoders saw.
    func with(_ decoded: DecodeWorker.Results) -> PeerSnapshot {
        var s = self
        (s.video, s.audio, s.videoStreams) = (decoded.video, decoded.audio, decoded.videoStreams)
        return s
    }
}
