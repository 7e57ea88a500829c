import Foundation
import Glibc
import Synchronization

/// Runs one `TransportSession` on real UDP sockets and the real clock, on its own event thread (docs/architecture.md
/// "Threads": one event thread per call polls the sockets with the next deadline as timeout).
///
/// Other threads talk to it only through `submit`, which queues a command and wakes the thread through a pipe;
/// events come back through `onEvent`, called on the event thread (keep it short: hand work to your own queue).
public final class TransportDriver: Sendable {
    /// Everything the event thread owns. Only `run()` touches it, under `loop`'s lock, so the non-Sendable session
    /// and sockets never cross threads.
    final class Loop {
        let session: TransportSession
        let sockets: [UdpSocket]
        var deadline: TransportTime?
        init(session: TransportSession, sockets: [UdpSocket]) {
            self.session = session
            self.sockets = sockets
        }
    }

    private let loop: Mutex<Loop>
    private let inbox = Mutex<[TransportSession.Command]>([])
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let origin = ContinuousClock.now
    private let onEvent: @Sendable (TransportSession.Event) -> Void
    /// The bound local addresses (port chosen by the kernel), one host candidate each.
    public let localAddresses: [TransportAddress]

    /// Binds one socket per host address (port 0 → any free port) and registers each as a host candidate.
    public init(session: sending TransportSession, hosts: [IPAddress],
                onEvent: @escaping @Sendable (TransportSession.Event) -> Void) throws {
        let sockets = try hosts.map { try UdpSocket(bind: TransportAddress(ip: $0, port: 0)) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw EngineError.library(name: "libc", call: "pipe", code: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        localAddresses = sockets.map(\.localAddress)
        self.onEvent = onEvent
        loop = Mutex(Loop(session: session, sockets: sockets))
        inbox.withLock { $0 = localAddresses.map { .addLocalHost($0) } }
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    private var now: TransportTime { TransportTime(nanoseconds: (ContinuousClock.now - origin).nanoseconds) }

    /// Queues a command for the event thread (thread-safe, non-blocking).
    public func submit(_ command: TransportSession.Command) {
        inbox.withLock { $0.append(command) }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Starts the event thread.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            self.run()
            self.finished.signal()
        }
        thread.name = "conftui-transport"
        thread.start()
    }

    /// Stops the event thread and waits (at most `timeout`) for it to leave its loop. Returns whether it did.
    @discardableResult
    public func stop(timeout: Duration = .seconds(2)) -> Bool {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return true }
        var byte: UInt8 = 0
        _ = write(wakeWrite, &byte, 1)
        let ms = Int(timeout.nanoseconds / 1_000_000)
        return finished.wait(timeout: .now() + .milliseconds(ms)) == .success
    }

    private func run() {
        while running.load(ordering: .acquiring) {
            let events: [TransportSession.Event] = loop.withLock { loop in
                var events: [TransportSession.Event] = []
                func apply(_ out: TransportSession.Output) {
                    for t in out.transmits {
                        loop.sockets.first { $0.localAddress == t.from }?.send(t.bytes, to: t.to)
                    }
                    loop.deadline = out.deadline
                    events += out.events
                }
                for command in inbox.withLock({ q -> [TransportSession.Command] in defer { q.removeAll() }; return q }) {
                    apply(loop.session.handle(.command(command), now: now))
                }
                if let deadline = loop.deadline, deadline <= now { apply(loop.session.handle(.timeout, now: now)) }
                let waitMs = loop.deadline.map { Int32(max(0, min(($0 - now).nanoseconds / 1_000_000 + 1, 1000))) } ?? 1000
                var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                    + loop.sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                guard Glibc.poll(&fds, nfds_t(fds.count), waitMs) > 0 else { return events }
                if fds[0].revents != 0 {
                    var drain = [UInt8](repeating: 0, count: 64)
                    while read(wakeRead, &drain, drain.count) > 0 {}
                }
                for (i, socket) in loop.sockets.enumerated() where fds[i + 1].revents & Int16(POLLIN) != 0 {
                    while let (bytes, from) = socket.receive() {
                        apply(loop.session.handle(.datagram(from: from, to: socket.localAddress, bytes: bytes), now: now))
                    }
                }
                return events
            }
            for event in events { onEvent(event) }
        }
    }
}
