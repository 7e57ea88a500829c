import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The SkyRTC signaling server: http(s):// page + ws(s):// signaling on one port, driven by one
/// event-loop thread (`ServerEventLoop`). `init` binds and listens (so `port` is known and bind
/// errors surface at once); `start` spawns the thread; `stop` is thread-safe and idempotent.
public final class SignalingServer: Sendable {
    public let configuration: SignalingServerConfiguration
    /// The bound port (the real one when the configuration asked for 0).
    public let port: UInt16
    /// SHA-256 of the TLS certificate's DER, when TLS is on (clients can pin it).
    public let tlsCertificateSHA256: [UInt8]?

    private let listenFD: Int32
    private let wakeReadFD: Int32
    private let wakeWriteFD: Int32
    private let tls: TLSServerContext?
    private let origins: OriginPolicy
    private let log: SignalingLog
    private let stopRequested = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let latestStats = Mutex(SignalingServerStats())

    public init(_ configuration: SignalingServerConfiguration, log: SignalingLog = .discard) throws(SignalingError) {
        self.configuration = configuration
        self.log = log
        Self.prepareProcess()
        if let mode = configuration.tls {
            let context = try TLSServerContext(mode: mode)
            tls = context
            tlsCertificateSHA256 = context.certificateSHA256
        } else {
            tls = nil
            tlsCertificateSHA256 = nil
        }
        guard let address = SocketOptions.ipv4(configuration.host) else {
            throw .invalidArgument("--host must be an IPv4 address or localhost, not '\(configuration.host)'")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = configuration.port.bigEndian
        sin.sin_addr = address
        let bound = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let e = errno
            close(fd)
            throw .system(call: "bind \(configuration.host):\(configuration.port)", errno: e)
        }
        guard listen(fd, 4096) == 0 else {
            let e = errno
            close(fd)
            throw .system(call: "listen", errno: e)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: actual.sin_port)
        do {
            origins = try OriginPolicy(allowing: configuration.allowedOrigins, tls: configuration.tls != nil,
                                       host: configuration.host, port: port)
        } catch {
            close(fd)
            throw error
        }
        listenFD = fd
        // The self-pipe wakes the poll() when stop() is called from another thread.
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            close(fd)
            throw .system(call: "pipe2", errno: errno)
        }
        for p in pipeFDs {
            SocketOptions.setNonBlocking(p)
            _ = fcntl(p, F_SETFD, FD_CLOEXEC)
        }
        wakeReadFD = pipeFDs[0]
        wakeWriteFD = pipeFDs[1]
    }

    deinit {
        stop()
        close(listenFD)
        close(wakeReadFD)
        close(wakeWriteFD)
    }

    /// The URL a browser opens (http or https).
    public var pageURL: String { "\(tls == nil ? "http" : "https")://\(displayHost):\(port)/" }
    /// The URL a WebSocket client connects to (ws or wss).
    public var webSocketURL: String { "\(tls == nil ? "ws" : "wss")://\(displayHost):\(port)/" }
    private var displayHost: String { configuration.host == "localhost" ? "127.0.0.1" : configuration.host }

    public var stats: SignalingServerStats { latestStats.withLock { $0 } }

    /// Starts the event-loop thread. Calling it twice does nothing.
    public func start() {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let thread = Thread { [self] in
            let loop = ServerEventLoop(
                config: configuration, listenFD: listenFD, wakeFD: wakeReadFD, tls: tls, origins: origins, log: log,
                shouldStop: { [self] in stopRequested.load(ordering: .acquiring) },
                publish: { [self] stats in latestStats.withLock { $0 = stats } })
            loop.run()
            finished.signal()
        }
        thread.name = "signaling-server"
        thread.start()
    }

    /// Stops the loop (sending 1001 to every WebSocket) and waits for it to finish. Thread-safe, idempotent.
    public func stop() {
        guard !stopRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)
        if started.load(ordering: .acquiring) {
            finished.wait()
        }
    }

    /// Process-wide settings a server needs: ignore SIGPIPE (OpenSSL writes with write(2), which
    /// would raise it on a dead peer) and raise the open-file limit to its hard maximum so that
    /// thousands of connections fit (the soft default is often 1024).
    private static func prepareProcess() {
        signal(SIGPIPE, SIG_IGN)
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }
}
