import Engine

/// Notices when this machine's addresses change (a laptop moves from Wi-Fi to a phone's hotspot, a VPN comes up) by
/// reading them once a second. Polling getifaddrs costs microseconds and needs nothing but libc; rtnetlink would say
/// it sooner, but a second is well inside the five an ICE restart is given to bring the media back.
struct HostAddressWatch {
    struct Change: Equatable {
        var gone: [String]
        var added: [String]
    }

    static let interval = 1.0
    private let list: () -> [String]?
    private var known: Set<String>
    private var nextAt: Double

    /// `list` gives the addresses now (by default the interfaces' non-loopback ones, as text), nil when the system
    /// would not say (no file descriptor left, say): that is no change, not every address gone.
    init(now: Double, list: @escaping () -> [String]? = HostAddressWatch.interfaceAddresses) {
        self.list = list
        known = Set(list() ?? [])
        nextAt = now + Self.interval
    }

    /// The change since the last look, when a look is due and something changed.
    mutating func poll(now: Double) -> Change? {
        guard now >= nextAt else { return nil }
        nextAt = now + Self.interval
        guard let listed = list() else { return nil }
        let current = Set(listed)
        guard current != known else { return nil }
        defer { known = current }
        return Change(gone: known.subtracting(current).sorted(), added: current.subtracting(known).sorted())
    }

    static func interfaceAddresses() -> [String]? {
        (try? HostInterfaces.list(includeLoopback: false))?.map(\.ip.description)
    }
}
