/// Tunables of the ICE agent; defaults follow RFC 8445 §14 and RFC 7675 §5.1.
public struct IceAgentConfig: Sendable {
    public enum Nomination: Sendable {
        /// RFC 8445 §8.1.1: check first, then repeat the chosen valid pair's check with USE-CANDIDATE.
        case regular
        /// RFC 5245 §8.1.1.2 (kept by libwebrtc): USE-CANDIDATE on every check, the first success is used.
        case aggressive
    }

    public var role: IceRole
    public var local: IceCredentials
    /// RFC 8445 §16.1: a 64-bit random number for role-conflict resolution.
    public var tieBreaker: UInt64
    public var nomination: Nomination = .regular
    /// Pacing of new checks (RFC 8445 §14.2: Ta, 50 ms for media sessions).
    public var ta: Duration = .milliseconds(50)
    /// First retransmission timeout of a check (RFC 8445 §14.3, RFC 5389 §7.2.1), doubled up to `maxRTO`.
    public var initialRTO: Duration = .milliseconds(250)
    public var maxRTO: Duration = .seconds(2)
    /// RFC 5389 §7.2.1 Rc: transmissions before a check fails.
    public var maxTransmissions = 7
    /// Controlling, regular nomination: nominate the best valid pair once no better pair is pending, or after this.
    public var nominationDelay: Duration = .milliseconds(500)
    /// Controlling agent, once a pair is selected: every this often one pair that would outrank the selected one is
    /// checked again (failed ones included), and a valid one is nominated. A call that started on a relay (or a
    /// server-reflexive pair) moves to a direct path that opens later: a NAT mapping that appears, a firewall rule
    /// lifted. libwebrtc keeps pinging unselected connections in the same way; RFC 8445 leaves it to the agent.
    public var betterPairRecheckInterval: Duration = .seconds(2)
    /// RFC 7675 §5.1: a consent check every 5 s, randomized by a factor in [0.8, 1.2].
    public var consentInterval: Duration = .seconds(5)
    /// RFC 7675 §5.1: consent expires 30 s after the last valid response.
    public var consentTimeout: Duration = .seconds(30)
    /// W3C `disconnected`: no valid consent response for this long (several missed checks).
    public var disconnectedTimeout: Duration = .seconds(8)
    /// Give up (state failed) when nothing is selected this long after checks started.
    public var checkingTimeout: Duration = .seconds(30)
    /// Seed of the agent's PRNG (transaction ids, jitter, prflx foundations). Use a system random value in production.
    public var seed: UInt64

    public init(role: IceRole, local: IceCredentials, tieBreaker: UInt64, seed: UInt64) {
        self.role = role
        self.local = local
        self.tieBreaker = tieBreaker
        self.seed = seed
    }

    /// A configuration with fresh random credentials, tie-breaker and seed from the system generator.
    public static func random(role: IceRole) -> IceAgentConfig {
        var rng = SystemRandomNumberGenerator()
        return IceAgentConfig(role: role, local: .random(using: &rng), tieBreaker: rng.next(), seed: rng.next())
    }
}
