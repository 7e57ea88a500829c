import EngineRTP
import EngineTransport
/// The sans-IO surface of `PeerConnection`: what goes in, what comes out.

/// The W3C `RTCPeerConnectionState` (webrtc-pc §4.3.3), derived from ICE and DTLS.
public enum PeerConnectionState: String, Sendable, Codable {
    case new, connecting, connected, disconnected, failed, closed
}

/// Which side of offer/answer this connection is on (SkyRTC: the newcomer offers, docs/skyrtc-protocol.md §5).
public enum SignalingRole: String, Sendable, Codable {
    case offerer, answerer
}

/// Whether a description is an offer or an answer (W3C `RTCSdpType`; rollback and pranswer are not used).
public enum SdpType: String, Sendable {
    case offer, answer
}

/// W3C `RTCSignalingState`, the part conftui goes through: an offer of ours waits for its answer, or nothing waits.
public enum SignalingState: String, Sendable {
    case stable, haveLocalOffer
}

/// A complete VP8 frame reassembled from RTP, ready for the decoder.
public struct ReceivedVideoFrame: Sendable, Equatable {
    public var data: [UInt8]
    public var isKeyframe: Bool
    public var rtpTimestamp: UInt32
}

/// A local candidate to trickle, with the section it belongs to (RFC 8840 §4: sdpMid / sdpMLineIndex).
public struct TrickleCandidate: Sendable, Equatable {
    public var candidate: IceCandidate
    public var mid: String
    public var mLineIndex: Int
    /// The `candidate:...` text a signaling message carries (no `a=` prefix; `sdpValue` starts with `candidate:`).
    public var sdpLine: String { candidate.sdpValue }
}

extension PeerConnection {
    public struct Configuration: Sendable {
        /// Host addresses the driver bound sockets to; each becomes a host candidate.
        public var localHosts: [TransportAddress]
        public var audioSSRC: SSRC
        public var videoSSRC: SSRC
        public var cname: String
        public var streamID: String
        /// Whether we send each kind (video off at the start still negotiates sendrecv so it can come back).
        public var sendAudio = true
        public var sendVideo = true
        /// Whether we receive at all: false offers and answers send-only (an SFU's publishing connection).
        public var receive = true
        public var srtpProfiles: [SrtpProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80]
        /// Put gathered candidates in the SDP as well as trickling them (false: trickle only, RFC 8838).
        public var candidatesInDescription = true
        /// Offer an `m=application` section for data channels and accept one in an offer (SCTP over the same DTLS).
        public var dataChannels = true
        /// Our `a=max-message-size`: the largest data-channel message we take (RFC 8841 §6).
        public var maxMessageSize = 256 * 1024
        /// Offer our video as two simulcast encodings, the full one and the low one (RFC 8853), for a forwarding
        /// server to pick from per receiver; the low one's SSRC.
        public var simulcast = false
        public var lowVideoSSRC: SSRC
        /// Remote candidates are used only if this says yes (e.g. loopback-only tests never contact other addresses).
        public var acceptRemoteAddress: @Sendable (IPAddress) -> Bool = { _ in true }

        public init(localHosts: [TransportAddress], audioSSRC: SSRC, videoSSRC: SSRC, cname: String, streamID: String) {
            self.localHosts = localHosts
            self.audioSSRC = audioSSRC
            self.videoSSRC = videoSSRC
            lowVideoSSRC = SSRC(videoSSRC.rawValue ^ 0x5A5A_0001)
            self.cname = cname
            self.streamID = streamID
        }

        /// Random SSRCs and names.
        public static func random(localHosts: [TransportAddress]) -> Configuration {
            var rng = SystemRandomNumberGenerator()
            let tag = String(rng.next() as UInt32, radix: 16)
            return Configuration(localHosts: localHosts, audioSSRC: SSRC(rng.next() as UInt32 | 1),
                                 videoSSRC: SSRC(rng.next() as UInt32 | 2), cname: "conftui-" + tag, streamID: "conftui-" + tag)
        }
    }

    public enum Command: Sendable {
        /// Creates the offer (the first makes us ICE controlling, `a=setup:actpass`); on a live connection, a
        /// subsequent offer of every section as it now stands (renegotiation); emits `.localDescription`.
        case createOffer
        /// A new section of `kind` for the next offer (W3C `addTransceiver`): its mid is the next free one.
        case addTransceiver(MediaKind, MediaDirection)
        /// The section `mid` stops: port 0 in the next offer, and its media stop once that is answered.
        case stopTransceiver(mid: String)
        /// Applies the peer's offer and answers it (the first: ICE controlled, `a=setup:active` → DTLS client; a
        /// later one renegotiates on the same transport); emits `.localDescription`.
        case applyRemoteOffer(SessionDescription)
        case applyRemoteAnswer(SessionDescription)
        /// A trickled candidate; buffered until the remote description is set. `.local` names are ignored.
        case addRemoteCandidate(IceCandidate)
        /// The relayed address of the driver's TURN allocation (and the server-reflexive one it reported): a relay
        /// candidate, kept for the transport if it does not exist yet. Its datagrams go through the driver's TURN
        /// client: transmits `from` the relayed address, and what the server relays back arrives `to` it.
        case addLocalRelayed(relayed: TransportAddress, mapped: TransportAddress?)
        /// ICE restart (RFC 8445 §9) through renegotiation: new ICE credentials, the relayed candidate replaced by
        /// `relayed` when given, and a re-offer carrying them (the DTLS association and the streams stay). Only in a
        /// stable signaling state; the peer answers with its own new credentials. `hosts`, when given, are this
        /// machine's host addresses from now on (they changed), and `relayed` then replaces the relayed candidate
        /// outright (nil: none until `addLocalRelayed` brings the new allocation's).
        case restartIce(relayed: TransportAddress?, mapped: TransportAddress?, hosts: [TransportAddress]? = nil)
        case sendVideo(EncodedVideoFrame)
        /// A frame of the low encoding, for the simulcast section's second stream (`Configuration.simulcast`).
        case sendLowVideo(EncodedVideoFrame)
        case sendAudio(packet: [UInt8], isDTX: Bool)
        /// The decoder of section `mid` refused a frame: wait for a keyframe and ask for one (PLI, docs/webrtc-interop.md §7).
        case decodeFailed(mid: String)
        /// Opens an ordered, reliable data channel as soon as SCTP can carry it (before that, it waits).
        case openDataChannel(label: String)
        /// A message on data channel `channel`; refused (a warning) when it is not open or too large.
        case sendData(channel: UInt16, DataChannels.Message)
        case closeDataChannel(UInt16)
        /// Caps new data-channel bytes per second (nil: SCTP's own congestion control alone).
        case setDataRate(bytesPerSecond: Int?)
        case close
    }

    public enum Input: Sendable {
        /// `arrivedAt`: when the kernel received it, if the driver knows (else `now`); only transport feedback uses it.
        case datagram(from: TransportAddress, to: TransportAddress, bytes: [UInt8], arrivedAt: TransportTime? = nil)
        case timeout
        case command(Command)
    }

    public enum Event: Sendable {
        case localDescription(SessionDescription, SdpType)
        case localCandidate(TrickleCandidate)
        case stateChanged(PeerConnectionState, cause: String)
        case selectedPair(SelectedPair)
        case dtlsConnected(SrtpProfile)
        /// A frame of the video section `mid`.
        case videoFrame(mid: String, ReceivedVideoFrame)
        /// One 20 ms audio playout slot of the audio section `mid`: decode, recover, conceal or silence.
        case audio(mid: String, AudioJitterBuffer.Pull)
        /// The negotiated sections changed (an answer applied or sent): what each now does.
        case sectionsChanged([SectionState])
        /// The peer asked for a keyframe (PLI/FIR, coalesced), or the connection just came up.
        case keyframeRequested
        /// The same for the simulcast section's low encoding.
        case lowKeyframeRequested
        /// A data channel opened (by us or the peer), carried a message, changed its queued bytes, or closed.
        case dataChannel(DataChannelEvent)
        /// Something was wrong with a signalled input (bad SDP, missing fingerprint); the connection goes on or fails.
        case warning(String)
    }

    public struct Output: Sendable {
        public var transmits: [Transmit] = []
        public var events: [Event] = []
        public var deadline: TransportTime?
    }

    /// Transport and RTP figures of one connection (the decoders' figures are the driver's).
    public struct Stats: Sendable, Codable, Equatable {
        public var state: PeerConnectionState
        public var iceState: String
        public var selectedPair: String?
        public var dtlsRole: String?
        public var srtpProfile: String?
        public var packetsSent: UInt64 = 0
        public var bytesSent: UInt64 = 0
        public var packetsReceived: UInt64 = 0
        public var bytesReceived: UInt64 = 0
        public var videoPacketsReceived: UInt64 = 0
        public var audioPacketsReceived: UInt64 = 0
        public var videoPacketsSent: UInt64 = 0
        public var audioPacketsSent: UInt64 = 0
        /// From RTCP (RFC 3550 §6.4.1 LSR/DLSR of the peer's reports on our video).
        public var roundTripTimeMs: Double?
        /// From ICE consent/connectivity checks on the selected pair (works before and without RTCP reports).
        public var iceRoundTripTimeMs: Double?
        /// Loss of the peer's video to us since the start, 0...1.
        public var receiveLoss: Double = 0
        /// What the peer last reported about our video, 0...1.
        public var remoteReportedLoss: Double = 0
        public var nacksSent = 0
        public var plisSent = 0
        /// Transport feedback messages sent (RTPFB FMT 15), 0 when the peer did not negotiate `transport-cc`.
        public var transportFeedbackSent = 0
        /// Transport feedback messages received about what we send, and the send-side estimate they gave
        /// (bits per second, and the delay detector's last verdict); nil without transport feedback.
        public var transportFeedbackReceived = 0
        public var sendEstimateBitrate: Int?
        public var sendEstimateUsage: String?
        /// Probes of the send-side estimate sent (padding paced above the estimate), and how many raised it.
        public var probesSent = 0
        public var probesRaisingEstimate = 0
        /// Padding-only video packets received from the peer (its probes).
        public var paddingPacketsReceived = 0
        public var keyframeRequestsReceived = 0
        public var srtpRejected = 0
        /// DTLS/SRTP datagrams dropped for coming from a 5-tuple ICE has not validated, or not the selected one.
        public var offPathPackets = 0
        /// Gaps of `MediaGap.threshold` or more between two media packets received, the latest last (at most
        /// `MediaGap.kept`): the receiver's view of a stall, whatever stalled (the network, the sender, us).
        public var mediaGaps: [MediaGap] = []
        /// Each negotiated section: mid, kind, what it does, and the media packets it received.
        public var sections: [SectionState] = []
    }
}

/// What one negotiated section does (a W3C transceiver's current direction), and what it received.
public struct SectionState: Sendable, Codable, Equatable {
    public var mid: String
    public var kind: String
    public var sends: Bool
    public var receives: Bool
    public var packetsReceived: UInt64 = 0
}

/// A stretch without media from one peer, as its receiver saw it.
public struct MediaGap: Sendable, Codable, Equatable {
    /// When the packet that ended it arrived, seconds on the call's clock (`CallSnapshot.elapsed`).
    public var endedAt: Double
    public var milliseconds: Double

    /// Audio alone sends a packet every 20 ms; a gap of 50 ms is already two packets missing.
    public static let threshold: Duration = .milliseconds(50)
    public static let kept = 32
}

/// What a connection's data channels report (`DataChannels.Event` less the SCTP details).
public enum DataChannelEvent: Sendable, Equatable {
    /// `maxMessageSize`: the peer's `a=max-message-size` (0: no limit), what one message to it may hold.
    case opened(UInt16, label: String, byPeer: Bool, maxMessageSize: Int)
    case message(UInt16, DataChannels.Message)
    /// `queued`: bytes waiting to be sent (the W3C `bufferedAmount`); `accepted`: every byte ever taken for sending
    /// on the channel, so a sender whose messages reach the connection through a queue of its own (the call's inbox)
    /// can add what has not arrived yet.
    case buffered(UInt16, queued: Int, accepted: Int)
    /// A message could not be queued (the peer's limit, the queue's bound): it is lost, and says why.
    case sendFailed(UInt16, String)
    case closed(UInt16)
}
