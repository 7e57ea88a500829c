import EngineTestSupport
import Testing
@testable import Signaling

/// Resume tokens and the grace for dropped members in the pure room machine (docs/skyrtc-protocol.md §10).
@Suite struct ResumeRoomsTests {
    typealias T = SkyRTCRoomsTests
    static let n = SocketID("dddddddd-0000-4000-8000-000000000004")
    static let m = SocketID("eeeeeeee-0000-4000-8000-000000000005")
    static let t0 = MonotonicInstant(seconds: 1000)

    static func token(_ id: SocketID) -> String { "tok-" + id.rawValue.prefix(8) }

    /// Sockets opened with their tokens (`token(id)`).
    static func opened(_ ids: SocketID..., format: SkyRTCWireFormat = .conftui, limits: SkyRTCRoomLimits = .unlimited) -> SkyRTCRooms {
        var r = SkyRTCRooms(format: format, limits: limits)
        for id in ids { _ = r.handle(.opened(id, resumeToken: token(id))) }
        return r
    }

    static func join(_ room: String, name: String? = nil, resume: String? = nil, resumable: Bool = true) -> String {
        SkyRTCClientMessage.join(SkyRTCJoin(room: room, name: name, resume: resume, resumable: resumable ? true : nil)).jsonText
    }

    static func logs(_ actions: [SkyRTCRooms.Action]) -> [SkyRTCRoomEvent] {
        actions.compactMap { if case .log(let e) = $0 { e } else { nil } }
    }

    static func offer(to id: SocketID, _ sdp: String = "v=0") -> String {
        #"{"eventName":"__offer","data":{"socketId":"\#(id)","sdp":{"type":"offer","sdp":"\#(sdp)"}}}"#
    }

    static func forwardedOffer(from id: SocketID, _ sdp: String = "v=0") -> [UInt8] {
        Array(#"{"eventName":"_offer","data":{"sdp":{"type":"offer","sdp":"\#(sdp)"},"socketId":"\#(id)"}}"#.utf8)
    }

    static func candidate(to id: SocketID, _ i: Int) -> String {
        #"{"eventName":"__ice_candidate","data":{"label":0,"candidate":"candidate:\#(i)","socketId":"\#(id)"}}"#
    }

    static func forwardedCandidate(from id: SocketID, _ i: Int) -> [UInt8] {
        SkyRTCServerMessage.iceCandidate(SkyRTCCandidate(id: nil, label: 0, candidate: "candidate:\(i)", socketId: id)).jsonBytes()
    }

    /// a (named Ada, muted) and b (named Bob) in room r.
    static func roomOfTwo(_ extra: SocketID...) -> SkyRTCRooms {
        var rooms = opened(T.a, T.b)
        for id in extra { _ = rooms.handle(.opened(id, resumeToken: token(id))) }
        _ = rooms.handle(T.msg(T.a, join("r", name: "Ada")))
        _ = rooms.handle(T.msg(T.a, #"{"eventName":"__media_state","data":{"audioMuted":true,"videoOn":false}}"#))
        _ = rooms.handle(T.msg(T.b, join("r", name: "Bob")))
        return rooms
    }

    @Test func everyPeersCarriesTheSocketsOwnToken() {
        var rooms = Self.opened(T.a, T.b)
        #expect(rooms.handle(T.msg(T.a, Self.join("r"))).first == T.send(T.a, .peers(SkyRTCPeers(connections: [], you: T.a, resume: Self.token(T.a)))))
        let b = T.sends(rooms.handle(T.msg(T.b, Self.join("r"))))
        #expect(b == [T.send(T.a, .newPeer(T.b, name: nil)), T.send(T.b, .peers(SkyRTCPeers(connections: [T.a], you: T.b, resume: Self.token(T.b))))])
        // A rejoin's fresh `_peers` too.
        #expect(T.sends(rooms.handle(T.msg(T.a, Self.join("r")))) == [T.send(T.a, .peers(SkyRTCPeers(connections: [T.b], you: T.a, resume: Self.token(T.a))))])
    }

    @Test func aResumeKeepsTheIdentityAndTellsNobodyElse() {
        var rooms = Self.roomOfTwo(Self.n)
        let actions = rooms.handle(T.msg(Self.n, Self.join("r", name: "Ada on 4G", resume: Self.token(T.a))))
        // The driver moves n's connection to a (closing a's old one quietly), then a alone hears anything.
        #expect(actions == [
            .resume(Self.n, as: T.a),
            T.send(T.a, .peers(SkyRTCPeers(connections: [T.b], you: T.a, names: [T.b: "Bob"], resume: Self.token(T.a)))),
            .log(.resumed(T.a, room: "r", connection: Self.n, delivered: 0, dropped: 0)),
        ])
        #expect(rooms.members(of: "r") == [T.a, T.b])
        #expect(rooms.name(of: T.a) == "Ada on 4G")
        #expect(rooms.socketCount == 2 && rooms.joinedCount == 2 && rooms.room(of: Self.n) == nil)
        // n is forgotten; a is served on (its media state kept for later joiners).
        #expect(rooms.handle(T.msg(Self.n, Self.offer(to: T.b))) == [])
        #expect(rooms.handle(T.msg(T.a, Self.offer(to: T.b))) == [.send(T.b, Self.forwardedOffer(from: T.a))])
        _ = rooms.handle(.opened(T.c))
        let later = T.sends(rooms.handle(T.msg(T.c, Self.join("r"))))
        #expect(later.last == T.send(T.c, .peers(SkyRTCPeers(connections: [T.a, T.b], you: T.c, names: [T.a: "Ada on 4G", T.b: "Bob"],
                                                             media: [T.a: SkyRTCMediaState(audioMuted: true, videoOn: false)]))))
        // A join without a name keeps the name; the token stays a's (n's own is dead).
        _ = rooms.handle(.opened(Self.m, resumeToken: Self.token(Self.m)))
        #expect(rooms.handle(T.msg(Self.m, Self.join("r", resume: Self.token(T.a)))).first == .resume(Self.m, as: T.a))
        #expect(rooms.name(of: T.a) == "Ada on 4G")
        var fresh = Self.roomOfTwo(Self.n)
        _ = fresh.handle(T.msg(Self.n, Self.join("r", resume: Self.token(T.a))))
        _ = fresh.handle(.opened(Self.m, resumeToken: Self.token(Self.m)))
        #expect(Self.logs(fresh.handle(T.msg(Self.m, Self.join("r", resume: Self.token(Self.n))))).first
                == .notResumed(Self.m, "the token matches no connection"))
    }

    @Test func aResumeResetsTheErrorCount() {
        var rooms = Self.roomOfTwo(Self.n)
        for _ in 0..<(SkyRTCRooms.maxErrorsPerSocket - 1) { _ = rooms.handle(T.msg(T.a, "x")) }
        _ = rooms.handle(T.msg(Self.n, Self.join("r", resume: Self.token(T.a))))
        let closes = rooms.handle(T.msg(T.a, "x")).filter { if case .close = $0 { true } else { false } }
        #expect(closes.isEmpty)
    }

    @Test func tokensThatDoNotResumeMakeAnOrdinaryJoin() {
        func ordinary(_ rooms: inout SkyRTCRooms, _ id: SocketID, room: String, resume: String, why: String) {
            let actions = rooms.handle(T.msg(id, Self.join(room, resume: resume)))
            #expect(!actions.contains { if case .resume = $0 { true } else { false } })
            #expect(Self.logs(actions).first == .notResumed(id, why))
            #expect(T.sends(actions).last.map { if case .send(id, let t) = $0 { String(decoding: t, as: UTF8.self).contains(#""you":"\#(id)""#) } else { false } } == true)
            #expect(rooms.room(of: id) == room)
        }
        var rooms = Self.roomOfTwo(T.c, Self.n, Self.m)
        ordinary(&rooms, T.c, room: "r", resume: "no-such-token", why: "the token matches no connection")
        ordinary(&rooms, Self.n, room: "other", resume: Self.token(T.a), why: "its member is in another room")
        // m never joined: its token resumes nothing.
        var second = Self.roomOfTwo(T.c, Self.m)
        ordinary(&second, T.c, room: "r", resume: Self.token(Self.m), why: "its connection has not joined")
        // One's own token (a first join with it, and a rejoin) is an ordinary (re)join.
        var third = Self.opened(T.a)
        ordinary(&third, T.a, room: "r", resume: Self.token(T.a), why: "the token is this connection's own")
        // A connection already in a room cannot resume (the others would see it leave).
        var fourth = Self.roomOfTwo(T.c)
        _ = fourth.handle(T.msg(T.c, Self.join("r")))
        ordinary(&fourth, T.c, room: "r", resume: Self.token(T.a), why: "this connection has joined already")
        #expect(fourth.members(of: "r") == [T.a, T.b, T.c])
        // "" and null are the same room as __default, after the rule `room || "__default"`.
        var fifth = Self.opened(T.a, T.b)
        _ = fifth.handle(T.msg(T.a, Self.join("")))
        #expect(fifth.handle(T.msg(T.b, #"{"eventName":"__join","data":{"room":null,"resume":"\#(Self.token(T.a))"}}"#)).first == .resume(T.b, as: T.a))
    }

    @Test func theOriginalFormatNeverSendsNorHonoursATokenNorHolds() {
        var rooms = Self.opened(T.a, T.b, format: .original)
        let peers = rooms.handle(T.msg(T.a, Self.join("r")))
        #expect(peers == [T.send(T.a, .peers(SkyRTCPeers(connections: [], you: T.a)), .original), .log(.joined(T.a, room: "r", members: 1))])
        let actions = rooms.handle(T.msg(T.b, Self.join("r", resume: Self.token(T.a))))
        #expect(actions == [T.send(T.a, .newPeer(T.b, name: nil), .original),
                            T.send(T.b, .peers(SkyRTCPeers(connections: [T.a], you: T.b)), .original),
                            .log(.joined(T.b, room: "r", members: 2))])
        // A drop is a leave at once.
        #expect(T.sends(rooms.handle(.lost(T.a, now: Self.t0))) == [T.send(T.b, .removePeer(T.a), .original)])
        #expect(rooms.heldCount == 0 && rooms.nextDeadline == nil)
    }

    @Test func aMemberThatDidNotSayItResumesLeavesTheMomentItDrops() {
        // A browser page, or the original's clients: nothing would come back for the place.
        var rooms = SkyRTCRooms()
        _ = rooms.handle(.opened(T.a, resumeToken: Self.token(T.a)))
        _ = rooms.handle(.opened(T.b, resumeToken: Self.token(T.b)))
        _ = rooms.handle(T.msg(T.a, Self.join("r", resumable: false)))
        _ = rooms.handle(T.msg(T.b, Self.join("r")))
        #expect(T.sends(rooms.handle(.lost(T.a, now: Self.t0))) == [T.send(T.b, .removePeer(T.a))])
        #expect(rooms.heldCount == 0 && rooms.members(of: "r") == [T.b])
        // The hint is what the last join said: b is held.
        _ = rooms.handle(.lost(T.b, now: Self.t0))
        #expect(rooms.isHeld(T.b))
    }

    @Test func aDroppedMemberIsHeldAndItsMessagesWaitForTheResume() {
        var rooms = Self.roomOfTwo(Self.n)
        #expect(rooms.handle(.lost(T.a, now: Self.t0)) == [.log(.held(T.a, room: "r", seconds: SkyRTCRooms.defaultResumeGrace))])
        #expect(rooms.members(of: "r") == [T.a, T.b] && rooms.isHeld(T.a))
        #expect(rooms.heldCount == 1 && rooms.socketCount == 2 && rooms.joinedCount == 2)
        #expect(rooms.nextDeadline == Self.t0 + 10)
        // Messages for a are held, in order; b is answered as usual.
        #expect(rooms.handle(T.msg(T.b, Self.offer(to: T.a))) == [])
        #expect(rooms.handle(T.msg(T.b, Self.candidate(to: T.a, 1))) == [])
        #expect(rooms.handle(T.msg(T.b, #"{"eventName":"__media_state","data":{"audioMuted":false,"videoOn":true}}"#)) == [])
        // Nothing more comes from a's connection, and its end is not reported twice.
        #expect(rooms.handle(T.msg(T.a, Self.offer(to: T.b))) == [])
        #expect(rooms.handle(.closed(T.a)) == [] && rooms.handle(.lost(T.a, now: Self.t0 + 1)) == [])
        #expect(rooms.handle(.tick(Self.t0 + 9.99)) == [])
        let actions = rooms.handle(T.msg(Self.n, Self.join("r", resume: Self.token(T.a))))
        let bMedia = SkyRTCMediaState(audioMuted: false, videoOn: true)
        #expect(actions == [
            .resume(Self.n, as: T.a),
            T.send(T.a, .peers(SkyRTCPeers(connections: [T.b], you: T.a, names: [T.b: "Bob"], media: [T.b: bMedia], resume: Self.token(T.a)))),
            .send(T.a, Self.forwardedOffer(from: T.b)),
            .send(T.a, Self.forwardedCandidate(from: T.b, 1)),
            T.send(T.a, .mediaState(T.b, bMedia)),
            .log(.resumed(T.a, room: "r", connection: Self.n, delivered: 3, dropped: 0)),
        ])
        #expect(rooms.heldCount == 0 && rooms.nextDeadline == nil && rooms.socketCount == 2)
        #expect(rooms.handle(.tick(Self.t0 + 20)) == [])
        // Sends go straight to a again; dropped again, it is held again.
        #expect(rooms.handle(T.msg(T.b, Self.offer(to: T.a))) == [.send(T.a, Self.forwardedOffer(from: T.b))])
        #expect(T.sends(rooms.handle(.lost(T.a, now: Self.t0 + 30))) == [])
        #expect(rooms.nextDeadline == Self.t0 + 40)
    }

    @Test func heldMessagesAreBoundedOldestFirst() {
        var rooms = Self.roomOfTwo(Self.n)
        _ = rooms.handle(.lost(T.a, now: Self.t0))
        for i in 0..<70 { _ = rooms.handle(T.msg(T.b, Self.candidate(to: T.a, i))) }
        let actions = rooms.handle(T.msg(Self.n, Self.join("r", resume: Self.token(T.a))))
        let delivered = T.sends(actions).dropFirst(2)  // after `.resume` and `_peers`
        #expect(Array(delivered) == (6..<70).map { .send(T.a, Self.forwardedCandidate(from: T.b, $0)) })
        #expect(Self.logs(actions) == [.resumed(T.a, room: "r", connection: Self.n, delivered: 64, dropped: 6)])

        // The byte bound: three offers of 100 KiB are more than 256 KiB; the first goes.
        var big = Self.roomOfTwo(Self.n)
        _ = big.handle(.lost(T.a, now: Self.t0))
        let sdps = (0..<3).map { String(repeating: Character(String($0)), count: 100 << 10) }
        for sdp in sdps { _ = big.handle(T.msg(T.b, Self.offer(to: T.a, sdp))) }
        let out = big.handle(T.msg(Self.n, Self.join("r", resume: Self.token(T.a))))
        #expect(Array(T.sends(out).dropFirst(2)) == sdps.dropFirst().map { .send(T.a, Self.forwardedOffer(from: T.b, $0)) })
        #expect(Self.logs(out) == [.resumed(T.a, room: "r", connection: Self.n, delivered: 2, dropped: 1)])

        var queue = SkyRTCHeldMessages()
        queue.append([UInt8](repeating: 0, count: SkyRTCHeldMessages.maxBytes + 1))
        #expect(queue.messages.isEmpty && queue.bytes == 0 && queue.dropped == 1)
    }

    @Test func pastTheHeldBytesBudgetTheMemberHoldingTheMostLeaves() {
        var rooms = SkyRTCRooms(heldBytesBudget: 300 << 10)
        for id in [T.a, T.b, T.c, Self.n] { _ = rooms.handle(.opened(id, resumeToken: Self.token(id))) }
        for id in [T.a, T.b, T.c, Self.n] { _ = rooms.handle(T.msg(id, Self.join("r"))) }
        _ = rooms.handle(.lost(T.a, now: Self.t0))
        _ = rooms.handle(.lost(T.b, now: Self.t0))
        let sdp = String(repeating: "v", count: 99 << 10)
        #expect(rooms.handle(T.msg(Self.n, Self.offer(to: T.a, sdp))) == [])
        #expect(rooms.handle(T.msg(Self.n, Self.offer(to: T.a, sdp))) == [])
        #expect(rooms.handle(T.msg(Self.n, Self.offer(to: T.b, sdp))) == [])
        #expect(rooms.heldBytes > 300 << 9 && rooms.heldBytes <= 300 << 10)
        // 5 KiB more for b: over the budget, and a (which holds the most) leaves now; its `_remove_peer` to b is held.
        let out = rooms.handle(T.msg(Self.n, Self.offer(to: T.b, String(repeating: "w", count: 5 << 10))))
        #expect(out == [
            T.send(Self.n, .removePeer(T.a)), T.send(T.c, .removePeer(T.a)),
            .log(.evicted(T.a, room: "r", members: 3, dropped: 2, budget: 300 << 10)),
        ])
        #expect(!rooms.isHeld(T.a) && rooms.room(of: T.a) == nil && rooms.isHeld(T.b))
        #expect(rooms.heldBytes <= 300 << 10 && rooms.heldCount == 1 && rooms.joinedCount == 3)
        // b resumes with all that was held for it; nothing is held any more.
        let resumed = rooms.handle(T.msg(T.c, Self.join("r", resume: Self.token(T.b))))
        #expect(Self.logs(resumed).last == .notResumed(T.c, "this connection has joined already"))
        _ = rooms.handle(.opened(Self.m))
        let back = rooms.handle(T.msg(Self.m, Self.join("r", resume: Self.token(T.b))))
        #expect(Self.logs(back) == [.resumed(T.b, room: "r", connection: Self.m, delivered: 3, dropped: 0)])
        #expect(rooms.heldBytes == 0)
    }

    @Test func theGraceEndsInAnOrdinaryLeave() {
        var rooms = Self.opened(T.a, T.b, T.c, Self.n)
        for id in [T.a, T.b, T.c] { _ = rooms.handle(T.msg(id, Self.join("r"))) }
        _ = rooms.handle(.lost(T.b, now: Self.t0))
        _ = rooms.handle(T.msg(T.a, Self.offer(to: T.b)))
        _ = rooms.handle(.lost(T.c, now: Self.t0 + 1))
        #expect(rooms.nextDeadline == Self.t0 + 10)
        // b's grace ends: `_remove_peer` in reverse join order, c's held (c is away too), a's sent.
        #expect(rooms.handle(.tick(Self.t0 + 10.1)) == [
            T.send(T.a, .removePeer(T.b)),
            .log(.expired(T.b, room: "r", members: 2, dropped: 1)),
        ])
        #expect(rooms.members(of: "r") == [T.a, T.c] && rooms.heldCount == 1 && rooms.joinedCount == 2)
        #expect(rooms.nextDeadline == Self.t0 + 11)
        // The token of a member that left resumes nothing: n joins as itself (c's `_new_peer` is held).
        let late = rooms.handle(T.msg(Self.n, Self.join("r", resume: Self.token(T.b))))
        #expect(Self.logs(late).first == .notResumed(Self.n, "the token matches no connection"))
        #expect(T.sends(late) == [T.send(T.a, .newPeer(Self.n, name: nil)),
                                  T.send(Self.n, .peers(SkyRTCPeers(connections: [T.a, T.c], you: Self.n, resume: Self.token(Self.n))))])
        // c's grace ends: what was held for it (b's leave, n's arrival) is dropped with it.
        #expect(rooms.handle(.tick(Self.t0 + 11)) == [
            T.send(Self.n, .removePeer(T.c)), T.send(T.a, .removePeer(T.c)),
            .log(.expired(T.c, room: "r", members: 2, dropped: 2)),
        ])
        #expect(rooms.heldCount == 0 && rooms.socketCount == 2 && rooms.joinedCount == 2)
    }

    @Test func expiryOrderAndWhatTheOthersHear() {
        var rooms = Self.opened(T.a, T.b, T.c)
        for id in [T.a, T.b, T.c] { _ = rooms.handle(T.msg(id, Self.join("r"))) }
        _ = rooms.handle(.lost(T.a, now: Self.t0))
        #expect(rooms.handle(.tick(Self.t0 + 10)) == [
            T.send(T.c, .removePeer(T.a)), T.send(T.b, .removePeer(T.a)),
            .log(.expired(T.a, room: "r", members: 2, dropped: 0)),
        ])
        #expect(rooms.socketCount == 2 && rooms.heldCount == 0 && rooms.room(of: T.a) == nil)
    }

    @Test func aCleanCloseLeavesAtOnceAndADropBeforeJoiningIsForgotten() {
        var rooms = Self.roomOfTwo(T.c)
        #expect(T.sends(rooms.handle(.closed(T.a))) == [T.send(T.b, .removePeer(T.a))])
        #expect(rooms.handle(.lost(T.c, now: Self.t0)) == [])
        #expect(rooms.socketCount == 1 && rooms.heldCount == 0 && rooms.nextDeadline == nil)
        // With no grace configured a drop is a close.
        var none = SkyRTCRooms(resumeGrace: 0)
        for id in [T.a, T.b] { _ = none.handle(.opened(id, resumeToken: Self.token(id))) }
        for id in [T.a, T.b] { _ = none.handle(T.msg(id, Self.join("r"))) }
        #expect(T.sends(none.handle(.lost(T.a, now: Self.t0))) == [T.send(T.b, .removePeer(T.a))])
    }

    @Test func aHeldMemberKeepsItsSlotUntilItsGraceEnds() {
        var rooms = Self.opened(T.a, T.b, T.c, limits: SkyRTCRoomLimits(maxRooms: 1, maxMembersPerRoom: 2))
        _ = rooms.handle(T.msg(T.a, Self.join("r")))
        _ = rooms.handle(T.msg(T.b, Self.join("r")))
        _ = rooms.handle(.lost(T.a, now: Self.t0))
        let full = T.sends(rooms.handle(T.msg(T.c, Self.join("r"))))
        #expect(full.count == 1 && full.first.map { if case .send(T.c, let t) = $0 { String(decoding: t, as: UTF8.self).contains("room_full") } else { false } } == true)
        #expect(rooms.joinedCount == 2)
        _ = rooms.handle(.tick(Self.t0 + 10))
        #expect(T.sends(rooms.handle(T.msg(T.c, Self.join("r")))).last == T.send(T.c, .peers(SkyRTCPeers(connections: [T.b], you: T.c, resume: Self.token(T.c)))))
        #expect(rooms.joinedCount == 2 && rooms.members(of: "r") == [T.b, T.c])
    }

    /// Random opens, joins (with tokens live, stale or made up), drops, closes, offers and ticks, with the
    /// driver's side played by the test: what the core thinks is connected is always what the driver has,
    /// nothing is ever sent to a held or unknown socket, the caps and counts hold, and at the end nothing is left.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func churnKeepsCoreAndDriverInStep(seed: UInt64) {
        var rng = SplitMixRandom(seed: seed)
        let limits = SkyRTCRoomLimits(maxRooms: 2, maxMembersPerRoom: 3)
        var rooms = SkyRTCRooms(limits: limits, resumeGrace: 5)
        var live: Set<SocketID> = []
        var issued: [String] = ["made-up"]
        var next = 0
        var now = Self.t0
        var resumes = 0, holds = 0, expiries = 0
        func apply(_ actions: [SkyRTCRooms.Action]) {
            for action in actions {
                switch action {
                case .send(let id, _):
                    #expect(live.contains(id) && !rooms.isHeld(id))
                case .resume(let connection, let member):
                    resumes += 1
                    #expect(live.contains(connection))
                    live.remove(connection)
                    live.insert(member)  // replacing the member's old connection, if it had one
                case .close(let id, _, _):
                    live.remove(id)
                    apply(rooms.handle(.closed(id)))
                case .log(.held):
                    holds += 1
                case .log(.expired):
                    expiries += 1
                case .log:
                    break
                }
            }
        }
        for _ in 0..<4000 {
            let someone = live.randomElement(using: &rng)
            switch Int.random(in: 0..<12, using: &rng) {
            case 0, 1:
                let id = SocketID("s\(next)")
                next += 1
                issued.append("t-\(id)")
                live.insert(id)
                apply(rooms.handle(.opened(id, resumeToken: "t-\(id)")))
            case 2, 3, 4, 5:
                guard let id = someone else { continue }
                // No token, any token ever issued (mostly dead ones, or made up), or a current member's.
                let member = ["x", "y", "z"].flatMap { rooms.members(of: $0) }.randomElement(using: &rng)
                let resume = [nil, issued.randomElement(using: &rng), member.map { "t-\($0)" }].randomElement(using: &rng)!
                apply(rooms.handle(T.msg(id, Self.join(["x", "y", "z"].randomElement(using: &rng)!, resume: resume))))
            case 6:
                guard let id = someone else { continue }
                live.remove(id)
                apply(rooms.handle(.lost(id, now: now)))
            case 7:
                guard let id = someone else { continue }
                live.remove(id)
                apply(rooms.handle(.closed(id)))
            case 8, 9:
                guard let id = someone, let to = (live.randomElement(using: &rng) ?? someone) else { continue }
                apply(rooms.handle(T.msg(id, Self.offer(to: to))))
            default:
                now = now + Double.random(in: 0..<3, using: &rng)
                apply(rooms.handle(.tick(now)))
            }
            #expect(rooms.socketCount == live.count)
            let members = ["x", "y", "z"].map { rooms.members(of: $0) }
            #expect(members.map(\.count).reduce(0, +) == rooms.joinedCount)
            #expect(members.allSatisfy { $0.count <= limits.maxMembersPerRoom } && rooms.roomCount <= limits.maxRooms)
            #expect(members.joined().allSatisfy { live.contains($0) || rooms.isHeld($0) })
            #expect(rooms.heldCount <= rooms.joinedCount && rooms.heldBytes <= rooms.heldBytesBudget)
            #expect(rooms.heldCount > 0 || rooms.heldBytes == 0)
            if let due = rooms.nextDeadline { #expect(due <= now + 5) }
        }
        // Every path was taken, many times.
        #expect(resumes > 20 && holds > 20 && expiries > 20, "\(resumes) resumes, \(holds) holds, \(expiries) expiries")
        for id in live { apply(rooms.handle(.closed(id))) }
        apply(rooms.handle(.tick(now + 5)))
        #expect(rooms.socketCount == 0 && rooms.heldCount == 0 && rooms.roomCount == 0 && rooms.joinedCount == 0)
    }
}
