import EngineTransport
/// A deliberately simple send-rate controller for one video stream. It does exactly this:
///
/// - It keeps an estimate `estimate`, starting at `initial`, and never below `minimum` or above
///   `maximum`.
/// - On each receiver report block about our stream (about once a second) it looks at the
///   fraction lost since the previous report (RFC 3550 §6.4.1): above 10 % the estimate is
///   multiplied by 0.85; below 2 % it is multiplied by 1.05; in between it is kept. (The same
///   thresholds as the loss-based half of Google congestion control, draft-ietf-rmcat-gcc-02 §6,
///   without its RTT-dependent terms.) At most one change per `minInterval`, so a compound packet
///   with several blocks does not compound the step.
/// - A REMB from the peer (draft-alvestrand-rmcat-remb) is a cap: the target is
///   `min(estimate, latest REMB)`. The estimate itself never exceeds the cap, so that when REMB
///   rises again the increase restarts from where the stream actually was.
/// - It does not probe, measure delay, or pace; the encoder's own CBR rate control spends the target.
public struct TargetBitrateController: Sendable {
    public let minimum: Int
    public let maximum: Int
    public var minInterval: Duration = .milliseconds(900)
    public private(set) var estimate: Int
    public private(set) var rembCap: Int?
    private var lastChange: TransportTime?

    public init(initial: Int = 300_000, minimum: Int = 50_000, maximum: Int = 1_500_000) {
        self.minimum = minimum
        self.maximum = maximum
        estimate = min(max(initial, minimum), maximum)
    }

    /// Bits per second the encoder should aim for.
    public var target: Int { max(minimum, min(estimate, rembCap ?? Int.max)) }

    public mutating func onReportBlock(fractionLost: UInt8, now: TransportTime) {
        if let last = lastChange, now - last < minInterval { return }
        let loss = Double(fractionLost) / 256
        let factor: Double
        if loss > 0.10 { factor = 0.85 } else if loss < 0.02 { factor = 1.05 } else { return }
        estimate = min(max(Int(Double(estimate) * factor), minimum), maximum, rembCap ?? Int.max)
        estimate = max(estimate, minimum)
        lastChange = now
    }

    public mutating func onREMB(bitrate: UInt64) {
        let cap = Int(clamping: bitrate)
        rembCap = cap
        if estimate > cap { estimate = max(cap, minimum) }
    }
}
