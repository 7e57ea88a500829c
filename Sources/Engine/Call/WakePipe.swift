import Glibc
import EngineTransport

/// The self-pipe that wakes a thread blocked in poll(): any thread writes a byte, the sleeper polls the read end and
/// drains it. Both ends are non-blocking, so a full pipe (a wake-up already pending) never blocks a writer.
final class WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(EngineError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .library(name: "libc", call: "pipe", code: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        (readEnd, writeEnd) = (fds[0], fds[1])
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func drain() {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &sink, sink.count) > 0 {}
    }
}
