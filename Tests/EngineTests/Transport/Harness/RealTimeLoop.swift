@testable import EngineTransport
import EngineTestSupport

/// Drives `TransportSession`s over real UDP sockets with the real clock, the way a call's event thread will:
/// poll the sockets with the nearest deadline as timeout, feed datagrams and timeouts. Tests only bind 127.0.0.1.
final class RealTimeLoop {
    let origin = MonotonicClock.nanoseconds()
    var sessions: [TransportSession] = []
    var sockets: [UdpSocket] = []
    var deadlines: [TransportTime?] = []
    var events: [[TransportSession.Event]] = []
    /// What outgoing datagrams pass through before `sendto` (on the real clock): by default nothing is lost or
    /// held back. Seeded loss exercises the real retransmission timers.
    var link = EmulatedLink<Transmit>(LinkConditions(delay: .zero), seed: 1)
    /// Called for every event, e.g. to signal candidates to the other side.
    var onEvent: (Int, TransportSession.Event) -> Void = { _, _ in }

    var now: TransportTime { TransportTime(nanoseconds: MonotonicClock.nanoseconds() - origin) }

    @discardableResult
    func add(_ session: TransportSession, socket: UdpSocket) -> Int {
        sessions.append(session)
        sockets.append(socket)
        deadlines.append(nil)
        events.append([])
        return sessions.count - 1
    }

    func feed(_ i: Int, _ input: TransportSession.Input) {
        let out = sessions[i].handle(input, now: now)
        for t in out.transmits { link.send(t, now: now) }
        sendDue()
        deadlines[i] = out.deadline
        events[i] += out.events
        for e in out.events { onEvent(i, e) }
    }

    /// Hands what the link lets through by now to the socket it was sent from.
    private func sendDue() {
        for t in link.deliver(now: now) {
            sockets.first { $0.localAddress == t.from }?.send(t.bytes, to: t.to)
        }
    }

    /// Runs until `until` holds or `limit` of real time passes; `tick` runs about every 20 ms (media pacing).
    @discardableResult
    func run(for limit: Duration, tick: () -> Void = {}, until: () -> Bool) -> Bool {
        let giveUp = now + limit
        var nextTick = now
        while !until() {
            let current = now
            if current >= giveUp { return false }
            if current >= nextTick {
                tick()
                nextTick = current + .milliseconds(20)
            }
            let next = (deadlines.compactMap { $0 } + [giveUp, nextTick, link.nextDelivery].compactMap { $0 }).min()!
            let waitMs = Int32(max(0, min((next - current).nanoseconds / 1_000_000, 20)))
            for i in UdpSocket.wait(sockets, timeoutMilliseconds: waitMs) {
                while let (bytes, from) = sockets[i].receive() {
                    feed(i, .datagram(from: from, to: sockets[i].localAddress, bytes: bytes))
                }
            }
            sendDue()
            for i in sessions.indices where deadlines[i].map({ $0 <= now }) ?? false {
                deadlines[i] = nil
                feed(i, .timeout)
            }
        }
        return true
    }
}
