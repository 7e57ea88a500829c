/// At most one log line per `interval` for an event that a client can repeat at will (a refused
/// connection costs the client a SYN): a flood of them must not become a flood of log lines.
/// Pure: the time is an input. The line that is written says how many were left out before it.
struct LogThrottle: Sendable, Equatable {
    let interval: Double
    private var lastWritten = -Double.infinity
    private var suppressed = 0

    init(interval: Double = 1) { self.interval = interval }

    /// The suffix to write with the line now (`""` or `" (N more like it not logged)"`), or nil to skip it.
    mutating func admit(now: Double) -> String? {
        guard now - lastWritten >= interval else {
            suppressed += 1
            return nil
        }
        lastWritten = now
        defer { suppressed = 0 }
        return suppressed == 0 ? "" : " (\(suppressed) more like it not logged)"
    }
}
