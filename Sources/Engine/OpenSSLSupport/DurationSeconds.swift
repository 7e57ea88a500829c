extension Duration {
    /// This duration in seconds, as a Double (its attoseconds included). Beside `MonotonicClock` for the same reason:
    /// Engine and Signaling both need it, and it comes with the clock's re-export.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
