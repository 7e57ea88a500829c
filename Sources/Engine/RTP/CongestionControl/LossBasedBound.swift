import Glibc
import EngineTransport
/// The loss-based bound of gcc-02 §6, on the losses transport feedback reports (docs/congestion-control.md): over
/// each stretch of at least `interval` and `minimumPackets`, a loss above 10 % cuts the bound to
/// rate × (1 - 0.5 × loss), under 2 % lets it grow 8 % a second, and in between holds it — unless the delay-based
/// detector sees no queue building (`queueGrowing` false): loss below 10 % without a queue is taken as random (a
/// radio link), not congestion, and the bound then follows the delay-based rate up instead of pinning it (gcc-02's
/// hold band alone keeps a 1 Mbit/s link with 2 % random loss at whatever rate the call had when the loss began).
/// Delay reacts first on a bottleneck with a queue; this bound matters where loss comes without queueing (a policer).
struct LossBasedBound: Sendable {
    static let interval: Duration = .seconds(1)
    static let minimumPackets = 20

    let minimum: Int
    let maximum: Int
    private(set) var bound: Int
    private var received = 0
    private var lost = 0
    private var since: TransportTime?
    private(set) var lastLoss = 0.0

    init(minimum: Int, maximum: Int) {
        self.minimum = minimum
        self.maximum = maximum
        bound = maximum
    }

    /// A probe raised the delay-based rate: unless loss is high, the bound is no lower than it.
    mutating func raise(to rate: Int) {
        guard lastLoss <= 0.10 else { return }
        bound = min(max(bound, rate), maximum)
    }

    mutating func add(received: Int, lost: Int, current: Int, queueGrowing: Bool, now: TransportTime) {
        self.received += received
        self.lost += lost
        let start = since ?? now
        since = start
        let total = self.received + self.lost
        guard now - start >= Self.interval, total >= Self.minimumPackets else { return }
        let loss = Double(self.lost) / Double(total)
        let seconds = min(Double((now - start).nanoseconds) / 1e9, 2)
        lastLoss = loss
        if loss > 0.10 {
            bound = Int(Double(min(bound, current)) * (1 - 0.5 * loss))
        } else if loss < 0.02 {
            // Not a limit while loss is low: it follows the current rate up, with room for the delay-based to grow.
            bound = Int(Double(max(bound, current)) * pow(1.08, seconds))
        } else if queueGrowing {
            bound = min(bound, current)
        } else {
            bound = max(bound, current)
        }
        bound = min(max(bound, minimum), maximum)
        self.received = 0
        self.lost = 0
        since = now
    }
}
