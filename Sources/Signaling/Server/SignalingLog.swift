import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One-line-per-event log: joins, leaves, refusals and connection errors. Goes to a file
/// (`--log PATH`) or standard error, never standard output (a curses program owns that, and
/// `conftui serve` prints exactly one line there).
public final class SignalingLog: Sendable {
    private let fd: Int32
    private let ownsFD: Bool

    /// Discards everything (tests).
    public static let discard = SignalingLog(fd: -1, owns: false)
    public static let standardError = SignalingLog(fd: 2, owns: false)

    private init(fd: Int32, owns: Bool) {
        self.fd = fd
        self.ownsFD = owns
    }

    /// Appends to `path`, creating it.
    public convenience init(path: String) throws(SignalingError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(call: "open \(path)", errno: errno) }
        self.init(fd: fd, owns: true)
    }

    deinit { if ownsFD { close(fd) } }

    /// Writes `line` with a UTC timestamp in one `write(2)`, so lines from different threads never interleave.
    /// The line is escaped first (`LogEscaping`): whatever a client put into it stays one inert line.
    public func write(_ line: String) {
        guard fd >= 0 else { return }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = time_t(ts.tv_sec)
        var parts = tm()
        gmtime_r(&t, &parts)
        let stamp = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                           Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(ts.tv_nsec / 1_000_000))
        let text = "\(stamp) \(LogEscaping.escape(line))\n"
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
    }
}
