/// Every resource of the transport layer (ICE, SRTP) that grows with what a remote peer sends, and its bound, in
/// one place. docs/bounds-and-security.md lists them with the other layers'. Beyond a bound the input is dropped
/// (and counted), never stored, so a peer trickling thousands of candidates or cycling SSRCs costs each step the same.
public enum TransportLimits {
    /// Remote candidates one ICE agent keeps (signalled ones: SDP and trickle). RFC 8445 §6.1.2.5 requires a limit
    /// on the candidate pairs (default 100); more candidates than pairs cannot all be checked, and a real peer has a
    /// handful (host, server-reflexive and relay per interface). Beyond it new candidates are ignored
    /// (`IceAgent.droppedRemoteCandidates`).
    public static let maxRemoteCandidates = 100
    /// Peer-reflexive candidates (RFC 8445 §7.3.1.3) learnt on top of `maxRemoteCandidates`: they come from checks
    /// that carried our password, so they stay possible even after the peer signalled the maximum.
    public static let maxPeerReflexiveCandidates = 10
    /// Candidate pairs on the checklist. RFC 8445 §6.1.2.5: the agent MUST limit the total number of candidate pairs
    /// (to bound the connectivity checks it can be made to send), the default limit is 100, and it is enforced by
    /// discarding lower-priority pairs. Beyond it a new pair replaces the lowest-priority pair not being checked,
    /// valid or nominated, if the new one ranks higher; otherwise the new pair is dropped.
    public static let maxCandidatePairs = 100
    /// Outstanding STUN transactions of one agent: one connectivity check per pair (a new check on a pair replaces
    /// its old transaction) plus consent checks in flight (RFC 7675 §5.1: one per ~5 s, each retried up to 5 times).
    /// At the limit no new check is sent until one completes or times out.
    public static let maxTransactions = maxCandidatePairs + 8
    /// Inbound SRTP streams (libsrtp state per remote SSRC, RFC 3711 §3.2.3 crypto context per SSRC). The inbound
    /// session uses `ssrc_any_inbound`: libsrtp clones a stream for every new SSRC whose packet authenticates, so only
    /// the keyed peer can add them, but without a limit it could add one per SSRC forever. Twice the RTP layer's
    /// `RTPLimits.maxRemoteSSRCs`: RTCP from receive-only SSRCs makes streams too. Packets from a new SSRC beyond it
    /// are dropped before `srtp_unprotect` (`TransportSession.Stats.unknownSSRCDropped`).
    public static let maxInboundSRTPStreams = 160
}
