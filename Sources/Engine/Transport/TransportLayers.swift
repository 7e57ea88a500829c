// Engine/Transport: the WebRTC transport stack, one folder per layer; the target `EngineTransport`, the lowest Engine
// layer (it depends only on OpenSSLSupport and the C libraries; EngineRTP, EngineMedia and Engine build on it).
//
// Every folder is sans-IO (no sockets, threads or clock reads: time arrives as `TransportTime`) except `Driver/`.
//
// | Folder     | What it is |
// |------------|------------|
// | `Net/`     | Addresses (`IPAddress`, `TransportAddress`), `TransportTime`, the bounds-checked `ByteReader`. |
// | `Ids/`     | Typed ids: `SSRC`, `PayloadType`, `Mid` (`TransactionID` lives with STUN). |
// | `STUN/`    | RFC 5389 messages: encode/decode, MESSAGE-INTEGRITY (HMAC-SHA1), FINGERPRINT (CRC-32), ICE attributes (RFC 8445 §16). |
// | `TURN/`    | `TurnClient`, an RFC 8656 client for one allocation (long-term credentials, Refresh, permissions, channels, Send/Data indications, ChannelData) on top of the STUN codec, and the framer that cuts a TCP connection to the server back into messages; see `TURN/README.md`. |
// | `SDP/`     | RFC 8866 descriptions as Chrome (Unified Plan) and aiortc write them; JSEP offer/answer (RFC 8829). |
// | `ICE/`     | `IceAgent`, an RFC 8445 full agent: candidates, pairs, paced checklist, triggered checks, role conflicts, nomination, peer-reflexive candidates, consent freshness (RFC 7675). |
// | `DTLS/`    | `DtlsEndpoint`: DTLS 1.2 through OpenSSL with a datagram BIO, SDP-fingerprint verification, DTLS-SRTP key export (RFC 5764). |
// | `SRTP/`    | `SrtpContext`: SRTP/SRTCP through libsrtp2 (AES128_CM_HMAC_SHA1_80, AEAD_AES_128_GCM), replay protection. |
// | `Demux/`   | `PacketClass`: RFC 7983 first-byte demultiplexing (STUN / DTLS / RTP / RTCP). |
// | `Session/` | `TransportSession`: ICE + DTLS + SRTP over one BUNDLE 5-tuple, the transport half of a peer connection. |
// | `Support/` | `SplitMixRandom`, the seeded generator of ICE here and of RTCP report timing in EngineRTP; the re-export of `MonotonicClock` and `Duration.seconds` (OpenSSLSupport) to every layer above. |
// | `Driver/`  | The only OS-facing code: host addresses (getifaddrs), a non-blocking `UdpSocket` and `TcpStream` (to a TURN server over TCP), which `Call` and `PeerRelay` (Engine/Call) drive from the call's event thread. |
//
// `EngineError.swift` is the error type of every Engine layer, so it lives in this, the lowest one.
//
// Tests live in `Tests/EngineTests/Transport/<layer>/`; `Tests/EngineTests/Transport/Harness/` holds the ICE, DTLS
// and session pairs, which run two agents (or sessions) faster than real time on the seeded network emulator and
// virtual clock of `Tests/EngineTestSupport`, and a real-time loop over loopback UDP. `Tests/EngineTests/Transport/Interop/` runs a `TransportSession` against aiortc and headless
// Chromium on 127.0.0.1 (skipped unless `make py-deps` filled `.venv`). Run: `swift test --filter EngineTests`.
