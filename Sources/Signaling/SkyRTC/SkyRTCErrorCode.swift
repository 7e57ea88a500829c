/// The stable codes of the `_error` reply, our extension of SkyRTC (the original server never
/// answers bad input; it ignores it or crashes, docs/skyrtc-protocol.md §7). Sent to the offending socket
/// only, as `{"eventName":"_error","data":{"code":"…","message":"…"}}`; the connection stays open.
/// `--compat original` sends none of these (the bad message is dropped silently instead).
///
/// | code | when |
/// |---|---|
/// | `bad_json` | the frame is not JSON (syntax error, nesting deeper than 64, invalid UTF-8 in a binary frame) |
/// | `bad_envelope` | JSON, but not an object with a string `eventName` |
/// | `unknown_event` | `eventName` is none of `__join`, `__offer`, `__answer`, `__ice_candidate`, `__media_state` |
/// | `bad_field` | `data` is not an object, or a field is missing or of the wrong type |
/// | `not_joined` | `__offer`/`__answer`/`__ice_candidate`/`__media_state` before any `__join` |
/// | `unknown_target` | the target `socketId` is not another member of the sender's room |
/// | `room_full` | `__join` of a room that already has the most members allowed (the join does not happen) |
/// | `too_many_rooms` | `__join` that would create a room when the server has the most rooms allowed |
/// | `rate_limited` | the socket sent more messages per second than allowed; the excess is dropped (sent once per burst) |
///
/// WebSocket-level faults are not `_error`s but closes: 1002 (framing), 1007 (invalid UTF-8 text),
/// 1009 (message over the size cap), and 1008 after `SkyRTCRooms.maxErrorsPerSocket` (32) refused messages in a row
/// or when a socket keeps sending over its rate after `rate_limited`.
public enum SkyRTCErrorCode: String, Sendable, Codable, CaseIterable {
    case badJSON = "bad_json"
    case badEnvelope = "bad_envelope"
    case unknownEvent = "unknown_event"
    case badField = "bad_field"
    case notJoined = "not_joined"
    case unknownTarget = "unknown_target"
    case roomFull = "room_full"
    case tooManyRooms = "too_many_rooms"
    case rateLimited = "rate_limited"
}
