/// The connection caps: at most `perIP` open connections from one IPv4 address and `total` in
/// all. Pure bookkeeping (address in, verdict out); the event loop asks before it keeps an
/// accepted socket and releases the slot when the connection is torn down.
public struct ConnectionLimits: Sendable, Equatable {
    public enum Verdict: Equatable, Sendable {
        case accept
        case refuseTotal
        case refusePerIP
    }

    public let total: Int
    public let perIP: Int
    public private(set) var open = 0
    private var byAddress: [UInt32: Int] = [:]

    public init(total: Int, perIP: Int) {
        self.total = max(1, total)
        self.perIP = max(1, perIP)
    }

    public func count(for address: UInt32) -> Int { byAddress[address] ?? 0 }

    /// Takes a slot for `address` if both caps allow it.
    public mutating func admit(_ address: UInt32) -> Verdict {
        guard open < total else { return .refuseTotal }
        let current = byAddress[address] ?? 0
        guard current < perIP else { return .refusePerIP }
        byAddress[address] = current + 1
        open += 1
        return .accept
    }

    /// Gives back the slot `admit` took.
    public mutating func release(_ address: UInt32) {
        guard let current = byAddress[address], current > 0 else { return }
        byAddress[address] = current == 1 ? nil : current - 1
        open -= 1
    }
}
