import EngineRTP
import EngineTransport

/// One connection of a call, as the core numbers them: a retry of the same peer is a new connection with new sockets.
/// Connections stay inside the engine; what leaves it is keyed by participant (`RemotePeerID`).
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "c\(rawValue)" }
    public static func < (a: ConnectionID, b: ConnectionID) -> Bool { a.rawValue < b.rawValue }
}

extension CallCore {
    /// What the core needs to know of the user's choices, fixed for the call. The machine's addresses are the
    /// driver's: it binds a connection's sockets (`Effect.openSockets`) and says where.
    public struct Configuration: Sendable {
        /// Use loopback remote candidates only (tests never contact other addresses); otherwise every remote
        /// candidate but link-local ones.
        public var loopbackOnly = false
        /// A STUN server for server-reflexive candidates (RFC 8445 §5.1.1.2); nil gathers host candidates only.
        public var stunServer: TransportAddress?
        /// A TURN server for a relayed candidate per connection (RFC 8656); nil relays nothing.
        public var turnServer: TurnServer?
        /// Signal candidates only by trickle, none in the SDP (interop tests of trickle).
        public var trickleOnly = false
        /// Whether we send audio at all: without a microphone the audio section is recvonly (RFC 3264 §5.1).
        public var sendAudio = true
        /// The video encoder's ceiling, kbit/s (`EncodingPlan`).
        public var videoCeilingKbps = 500

        public init() {}
    }

    public enum Input: Sendable {
        /// A signaling message, as the signaling channel delivered it (checked and parsed here).
        case signal(CallSignalIn)
        /// The signaling connection is gone (the room forgot us); the policy decides what that ends.
        case signalingLost
        /// The answer to `Effect.openSockets`: the addresses bound (empty when none could be). The driver feeds it
        /// before any other input; until then the core holds the actions that need the connection.
        case socketsOpened(ConnectionID, [TransportAddress])
        /// The machine's host addresses changed (an interface came, went or was renumbered: a laptop moved from
        /// one network to another). Each open connection's sockets are bound again (`Effect.rebindSockets`).
        case hostAddressesChanged
        /// The answer to `Effect.rebindSockets`: the connection's sockets now (those on addresses still there are
        /// kept). Fed at once, like `socketsOpened`.
        case socketsRebound(ConnectionID, [TransportAddress])
        /// A UDP datagram that arrived on the socket bound to `local`; `arrivedAt` is the kernel's receive time.
        case datagram(local: TransportAddress, from: TransportAddress, bytes: [UInt8], arrivedAt: TransportTime?)
        /// Bytes read from the TCP connection to the TURN server (`Effect.openStream`), in order.
        case streamData(ConnectionID, [UInt8])
        /// That TCP connection broke (refused, reset, closed); `reason` says how.
        case streamClosed(ConnectionID, reason: String)
        /// Encoded local media, to fan out to the peers that should get it.
        case media(EncodedMedia)
        /// The local media as the pipeline applies it (mute, video, source); changes are announced to the room.
        case localMedia(LocalMediaState)
        /// A participant's decoder of section `mid` refused a frame: wait for a keyframe and ask for one (PLI).
        case decodeFailed(RemotePeerID, mid: String)
        /// A message on `peer`'s data channel `channel` (as `Effect.dataChannel` reported it opened).
        case sendData(RemotePeerID, channel: UInt16, DataChannels.Message)
        /// Caps every connection's new data-channel bytes per second, so files leave room for media (nil: no cap).
        case setDataRate(bytesPerSecond: Int?)
        /// `Output.deadline` passed (extra timeouts are harmless).
        case timeout
        /// We leave the room: every connection closes.
        case leave
    }

    /// What the driver must do, in order.
    public enum Effect: Sendable {
        /// Bind one UDP socket (any port) on each host address for `connection` (127.0.0.1 only when the core is
        /// `loopbackOnly`), then feed `.socketsOpened` at once.
        case openSockets(ConnectionID)
        /// The host addresses changed: keep the connection's sockets on addresses still there, close the others, bind
        /// one on each new address, then feed `.socketsRebound` at once.
        case rebindSockets(ConnectionID)
        /// Close the connection's sockets and its TCP stream, if any.
        case closeSockets(ConnectionID)
        /// Open a TCP connection to the TURN server for `connection`; feed what it reads as `.streamData`. `records`:
        /// the writes are TLS records, none of which may be dropped (a full stream is a broken one).
        case openStream(ConnectionID, to: TransportAddress, records: Bool)
        /// Write one framed TURN message (or, over TLS, the records carrying some) on the connection's TCP stream.
        case streamWrite(ConnectionID, [UInt8])
        /// A signal for the room's signaling channel.
        case signal(CallSignalOut)
        /// Tell the room our microphone and camera state (SkyRTC: `__media_state`).
        case announce(LocalMediaState)
        /// A change a screen shows (connection states); the decoders add picture sizes.
        case event(CallEvent)
        /// A participant's connection opened (a decoder is wanted) or closed (its summary is final).
        case participantOpened(RemotePeerID)
        /// The summary is the core's part of the participant's snapshot (the decoders' figures are the driver's).
        case participantClosed(RemotePeerID, PeerSnapshot)
        /// Work for a participant's decoders (one per section `mid`), off the network thread.
        case decodeVideo(RemotePeerID, mid: String, ReceivedVideoFrame)
        case decodeAudio(RemotePeerID, mid: String, AudioJitterBuffer.Pull)
        /// The encoders: a keyframe of a layer, and the layers' rates.
        case requestKeyframe(EncodingPlan.Layer)
        case setVideoBitrates(fullKbps: Int, lowKbps: Int?)
        /// A participant's data channel opened, carried a message, changed its queued bytes, or closed.
        case dataChannel(RemotePeerID, DataChannelEvent)
        case log(String)
    }

    /// The driver sends `transmits` first, then carries out `effects` in order (a connection's last datagrams leave
    /// before its sockets close).
    public struct Output: Sendable {
        /// UDP datagrams, each from the local address of the socket it must leave on.
        public var transmits: [Transmit] = []
        public var effects: [Effect] = []
        /// Feed `.timeout` no later than this.
        public var deadline: TransportTime?
    }
}
