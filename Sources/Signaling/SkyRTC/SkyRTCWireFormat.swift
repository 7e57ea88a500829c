/// How the server writes what it forwards.
public enum SkyRTCWireFormat: Sendable, Equatable {
    /// conftui: `_ice_candidate` keeps `id` and adds `sdpMLineIndex`/`sdpMid`, bad input gets `_error`,
    /// forwarding is limited to the sender's room.
    case conftui
    /// `--compat original`: byte-compatible with SkyRTC v0.0.2 (`_ice_candidate` has only `label`,
    /// `candidate`, `socketId`; no `_error`; unknown events and bad input dropped silently; targets
    /// looked up among all connected sockets). Still never crashes and never leaves ghosts.
    case original
}
