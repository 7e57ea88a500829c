import EngineTestSupport
import Testing
@testable import Signaling

/// The pure cores behind the server's caps, stepped by hand (time is an input).
@Suite struct PolicyCoreTests {
    @Test func tokenBucketRefillsAtItsRateUpToItsCapacity() {
        var bucket = TokenBucket(ratePerSecond: 2, capacity: 3, now: 100)
        let first = [bucket.take(now: 100), bucket.take(now: 100), bucket.take(now: 100)]
        #expect(first == [true, true, true])
        var outcomes: [Bool] = []
        for now in [100, 100.25, 100.5, 100.5] { outcomes.append(bucket.take(now: now)) }
        // Empty; half a token; one token; empty again.
        #expect(outcomes == [false, false, true, false])
        let full = bucket.isFull(now: 200)
        #expect(full && bucket.tokens == 3)     // never more than the capacity
        _ = bucket.take(now: 200)
        let backwards = bucket.isFull(now: 50)  // a clock going backwards adds nothing
        #expect(!backwards && bucket.tokens == 2)
    }

    @Test func rateLimitWarnsOnceThenClosesIfTheExcessContinues() {
        var limit = MessageRateLimit(perSecond: 1, burst: 2, refusalsBeforeClose: 3, now: 0)
        #expect(limit.admit(now: 0) == .accept)
        #expect(limit.admit(now: 0) == .accept)
        #expect(limit.admit(now: 0) == .refuse(warn: true))
        #expect(limit.admit(now: 0.1) == .refuse(warn: false))
        #expect(limit.admit(now: 1.0) == .accept)               // one token earned: the excess is not over yet
        #expect(limit.admit(now: 1.1) == .close)                // third refusal in one excess
    }

    @Test func rateLimitForgivesAClientThatWentQuiet() {
        var limit = MessageRateLimit(perSecond: 1, burst: 2, refusalsBeforeClose: 3, now: 0)
        _ = limit.admit(now: 0); _ = limit.admit(now: 0)
        #expect(limit.admit(now: 0) == .refuse(warn: true))
        #expect(limit.admit(now: 0) == .refuse(warn: false))
        // Two seconds of silence refill the bucket: a new burst, a new warning, a fresh count.
        #expect(limit.admit(now: 2) == .accept)
        #expect(limit.admit(now: 2) == .accept)
        #expect(limit.admit(now: 2) == .refuse(warn: true))
        #expect(limit.admit(now: 2) == .refuse(warn: false))
        #expect(limit.admit(now: 2) == .close)
    }

    @Test func connectionLimitsPerAddressAndTotal() {
        var limits = ConnectionLimits(total: 3, perIP: 2)
        #expect(limits.admit(1) == .accept)
        #expect(limits.admit(1) == .accept)
        #expect(limits.admit(1) == .refusePerIP)
        #expect(limits.admit(2) == .accept)
        #expect(limits.admit(3) == .refuseTotal)
        limits.release(1)
        #expect(limits.count(for: 1) == 1 && limits.open == 2)
        #expect(limits.admit(3) == .accept)
        limits.release(9)                                       // never admitted: nothing changes
        #expect(limits.open == 3)
    }

    // MARK: SkyRTCRooms caps

    static func join(_ rooms: inout SkyRTCRooms, _ id: SocketID, _ room: String) -> [SkyRTCRooms.Action] {
        rooms.handle(.message(id, Array(#"{"eventName":"__join","data":{"room":"\#(room)"}}"#.utf8), isBinary: false))
    }

    static func errorCode(_ actions: [SkyRTCRooms.Action]) -> String? {
        for case .send(_, let bytes) in actions {
            if case .error(let e)? = try? SkyRTCServerMessage.decode(bytes) { return e.code.rawValue }
        }
        return nil
    }

    @Test func membersPerRoomCap() {
        var rooms = SkyRTCRooms(limits: SkyRTCRoomLimits(maxRooms: 10, maxMembersPerRoom: 2))
        let (a, b, c) = (SocketID("a"), SocketID("b"), SocketID("c"))
        for id in [a, b, c] { _ = rooms.handle(.opened(id)) }
        _ = Self.join(&rooms, a, "r")
        _ = Self.join(&rooms, b, "r")
        let refused = Self.join(&rooms, c, "r")
        #expect(Self.errorCode(refused) == "room_full")
        // Only the refused socket hears of it; the room is unchanged.
        #expect(refused.allSatisfy { if case .send(let to, _) = $0 { return to == c } else { return true } })
        #expect(rooms.members(of: "r") == [a, b] && rooms.room(of: c) == nil)
        // A same-room rejoin of a full room is not a new member.
        #expect(Self.errorCode(Self.join(&rooms, b, "r")) == nil)
        // Leaving frees the place.
        _ = rooms.handle(.closed(a))
        #expect(Self.errorCode(Self.join(&rooms, c, "r")) == nil)
        #expect(rooms.members(of: "r") == [b, c])
    }

    @Test func roomCountCap() {
        var rooms = SkyRTCRooms(limits: SkyRTCRoomLimits(maxRooms: 2, maxMembersPerRoom: 10))
        let (a, b, c) = (SocketID("a"), SocketID("b"), SocketID("c"))
        for id in [a, b, c] { _ = rooms.handle(.opened(id)) }
        _ = Self.join(&rooms, a, "r1")
        _ = Self.join(&rooms, b, "r2")
        #expect(Self.errorCode(Self.join(&rooms, c, "r3")) == "too_many_rooms")
        #expect(rooms.roomCount == 2 && rooms.room(of: c) == nil)
        // Moving out of a room one is alone in frees that room's slot for the new one.
        #expect(Self.errorCode(Self.join(&rooms, a, "r3")) == nil)
        #expect(rooms.roomCount == 2 && rooms.room(of: a) == "r3")
        // Joining an existing room is never a new room.
        #expect(Self.errorCode(Self.join(&rooms, c, "r2")) == nil)
    }

    @Test func capsAreSilentInTheOriginalFormat() {
        var rooms = SkyRTCRooms(format: .original, limits: SkyRTCRoomLimits(maxRooms: 1, maxMembersPerRoom: 1))
        let (a, b) = (SocketID("a"), SocketID("b"))
        for id in [a, b] { _ = rooms.handle(.opened(id)) }
        _ = Self.join(&rooms, a, "r")
        let full = Self.join(&rooms, b, "r")
        let more = Self.join(&rooms, b, "other")
        let throttled = rooms.handle(.throttled(b))
        for actions in [full, more, throttled] {
            #expect(!actions.contains { if case .send = $0 { return true } else { return false } })
            #expect(actions.contains { if case .log = $0 { return true } else { return false } })
        }
        #expect(rooms.room(of: b) == nil)
    }

    @Test func throttledGetsRateLimitedInTheConftuiFormat() {
        var rooms = SkyRTCRooms()
        let a = SocketID("a")
        _ = rooms.handle(.opened(a))
        #expect(Self.errorCode(rooms.handle(.throttled(a))) == "rate_limited")
        #expect(rooms.handle(.throttled(SocketID("gone"))).isEmpty)
    }
}

@Suite struct LogThrottleTests {
    @Test func oneLineASecondThenTheCountOfThoseLeftOut() {
        var throttle = LogThrottle(perSecond: 1, burst: 1, now: 10)
        var written: [String?] = []
        for now in [10, 10.25, 10.5, 11, 12.5] { written.append(throttle.admit(now: now)) }
        #expect(written == ["", nil, nil, " (2 more like it not logged)", ""])
    }

    @Test func aBurstThenTheSustainedRate() {
        var throttle = LogThrottle(perSecond: 4, burst: 3, now: 0)
        var written: [String?] = []
        for now in [0, 0, 0, 0, 0, 0.25, 0.25] { written.append(throttle.admit(now: now)) }
        #expect(written == ["", "", "", nil, nil, " (2 more like it not logged)", nil])
    }
}

/// Seeded random joins, rejoins, closes and reopens under small caps: the caps always hold, a
/// refused join changes nothing, and everything empties at the end.
@Suite struct RoomLimitsRandomTests {
    @Test(arguments: [11, 12, 13] as [UInt64])
    func capsHoldUnderRandomChurn(seed: UInt64) {
        var rng = SplitMixRandom(seed: seed)
        let limits = SkyRTCRoomLimits(maxRooms: 3, maxMembersPerRoom: 2)
        var rooms = SkyRTCRooms(limits: limits)
        let ids = (0..<8).map { SocketID("s\($0)") }
        let names = ["a", "b", "c", "d", "e"]
        for id in ids { _ = rooms.handle(.opened(id)) }
        for _ in 0..<5000 {
            let id = ids.randomElement(using: &rng)!
            switch Int.random(in: 0..<10, using: &rng) {
            case 0:
                _ = rooms.handle(.closed(id))
                _ = rooms.handle(.opened(id))
            default:
                let before = rooms.room(of: id)
                let target = names.randomElement(using: &rng)!
                let actions = PolicyCoreTests.join(&rooms, id, target)
                if PolicyCoreTests.errorCode(actions) != nil {
                    #expect(rooms.room(of: id) == before)
                } else {
                    #expect(rooms.room(of: id) == target)
                }
            }
            #expect(rooms.roomCount <= limits.maxRooms)
            #expect(names.allSatisfy { rooms.members(of: $0).count <= limits.maxMembersPerRoom })
            #expect(names.map { rooms.members(of: $0).count }.reduce(0, +) == rooms.joinedCount)
        }
        for id in ids { _ = rooms.handle(.closed(id)) }
        #expect(rooms.socketCount == 0 && rooms.roomCount == 0 && rooms.joinedCount == 0)
    }
}
