/// The caps `SkyRTCRooms` enforces on `__join`: how many rooms may exist and how many members one
/// room may have. A join past either is refused (`too_many_rooms`, `room_full`) and does not
/// happen: the socket stays where it was. A rejoin of the room a socket is already in is never
/// refused (it adds nobody).
public struct SkyRTCRoomLimits: Sendable, Equatable {
    public var maxRooms: Int
    public var maxMembersPerRoom: Int

    public init(maxRooms: Int, maxMembersPerRoom: Int) {
        self.maxRooms = max(1, maxRooms)
        self.maxMembersPerRoom = max(1, maxMembersPerRoom)
    }

    /// No caps (the machine on its own; the server passes its configuration's).
    public static let unlimited = SkyRTCRoomLimits(maxRooms: .max, maxMembersPerRoom: .max)
}
