// Engine/Transport: the WebRTC transport stack, one folder per layer.
//
// # Engine/Transport: the WebRTC transport stack, layer by layer
//
// Every folder here is **sans-IO** (no sockets, threads or clock reads) except `Driver/`.
//
// | Folder | What it is |
// |---|---|
// | `Net/` | Addresses (`IPAddress`, `TransportAddress`) and the byte reader/writer the parsers share. |
// | `STUN/` | RFC 5389 messages: encode/decode, MESSAGE-INTEGRITY (HMAC-SHA1), FINGERPRINT (CRC-32), ICE attributes (RFC 8445 §16). |
// | `SDP/` | RFC 8866 session descriptions as Chrome (Unified Plan) and aiortc write them; offer/answer helpers (RFC 8829). |
// | `ICE/` | RFC 8445 full ICE agent (`IceAgent`): candidates, pairs, checklist, nomination, consent freshness (RFC 7675). Fed `(input, now)`, returns transmits, events and a deadline. |
// | `Driver/` | The only place that touches the OS: host interface enumeration (getifaddrs). |
//
// Tests live in `Tests/EngineTests/Transport/<layer>/`, and `Tests/EngineTests/Transport/Harness/` holds the seeded
// virtual network + virtual clock used to run two agents faster than real time.
