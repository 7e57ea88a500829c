import EngineMedia
import EngineTransport

extension Call {
    public enum HostCandidates: String, Sendable {
        /// 127.0.0.1 only, and only loopback remote candidates are used (tests never contact other addresses).
        case loopback
        /// Every usable interface address (HostInterfaces), loopback excluded.
        case all
    }

    /// What a call is asked to be: its addresses and servers, its media, where the others' audio goes, its log.
    public struct Options: Sendable {
        public var hostCandidates: HostCandidates = .all
        public var stunServer: TransportAddress?
        /// The relay pairs rank below every direct one, so a call uses the relay only where no direct path works.
        public var turnServer: TurnServer?
        public var trickleOnly = false
        public var media = MediaPipeline.Options()
        /// Where the others' audio is played; `.none` (decode for the snapshot only) by default.
        public var playback = PlaybackChoice.none
        public var log: @Sendable (String) -> Void = { _ in }
        public init() {}

        /// What of it the call's core decides with (the rest is the driver's: sockets, devices, the log).
        var coreConfiguration: CallCore.Configuration {
            var c = CallCore.Configuration()
            (c.loopbackOnly, c.stunServer, c.turnServer) = (hostCandidates == .loopback, stunServer, turnServer)
            (c.trickleOnly, c.sendAudio, c.videoCeilingKbps) = (trickleOnly, media.audioInput != .none, media.videoBitrateKbps)
            return c
        }
    }
}
