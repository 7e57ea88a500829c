import Engine
import Signaling

/// One participant's presence in a room, whatever the room's signaling protocol: the signaling connection, the
/// `Call`, and the traffic between them. `join`'s screen, `bot` and the demo's participants use only this, so a
/// second protocol is a second conformer (chosen in `RoomSessions.open`) and none of them changes.
///
/// What every driver owes them: `start` connects and joins (the first failure thrown, so a wrong URL fails the
/// command at once); signaling events are queued for `takeEvents` in `SessionEvent`'s neutral terms; a dropped
/// connection closes every peer connection (`Call.signalingLost`) and, when `settings.reconnect`, is retried with
/// `ReconnectBackoff` and joined again; otherwise `endReason` says why the session ended; `leave` closes the peer
/// connections, then the signaling.
protocol RoomSession: AnyObject, Sendable {
    var call: Call { get }
    /// Chat and files over the call's data channels.
    var messaging: CallMessaging { get }
    var settings: RoomSessionSettings { get }
    /// The room's name as the server files it (shown on the screen and in reports).
    var roomShown: String { get }
    /// Starts the call, connects and joins; returns our own id in the room.
    @discardableResult func start() throws -> RemotePeerID
    /// Leaves the room: every peer connection closed, then the signaling connection.
    func leave()
    /// Signaling events since the last call.
    func takeEvents() -> [SessionEvent]
    /// Set when the session gave up (reconnecting off and the connection dropped): the reason.
    var endReason: String? { get }
    /// The largest picture any remote participant is shown at, in pixels: a room that forwards simulcast layers
    /// sends the smallest layer that fills it. Called often; acted on when the choice changes.
    func wantPictures(width: Int, height: Int)
}

extension RoomSession {
    /// A mesh sends what each peer's encoder makes: nothing to choose.
    func wantPictures(width: Int, height: Int) {}
}

/// Where and as whom a session joins; the same for every protocol.
struct RoomSessionSettings: Sendable {
    var url: String
    var room: String
    var name: String?
    var reconnect = true
    /// How long the first connect-and-join may take before the command fails.
    var joinTimeout = 5.0
    /// A forwarding server to join instead of a SkyRTC mesh (`--sfu`).
    var sfu: ForwardingServer?
    /// The picture size to receive (`bot --receive-size`): with simulcast, the smallest layer that fills it.
    var receiveSize: (width: Int, height: Int)?
}

/// The forwarding servers a session can join (`--sfu`).
enum ForwardingServer: Sendable, Equatable {
    /// A Janus VideoRoom, by number.
    case janus(room: UInt64)
}

/// The one place that picks a session driver, so the commands never name a protocol.
enum RoomSessions {
    static func open(_ settings: RoomSessionSettings, callOptions: Call.Options,
                     messaging: RoomMessaging.Configuration = RoomMessaging.Configuration(), echoPings: Bool = false,
                     log: @escaping @Sendable (String) -> Void) throws -> any RoomSession {
        switch settings.sfu {
        case .janus?: try JanusSession(settings: settings, callOptions: callOptions, messaging: messaging, log: log)
        case nil: try SkyRTCSession(settings: settings, callOptions: callOptions, messaging: messaging, echoPings: echoPings, log: log)
        }
    }
}
