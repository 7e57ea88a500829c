#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `FileSink` writing into one download directory. Files are created with O_CREAT|O_EXCL|O_NOFOLLOW, so
/// a name that exists, a symlink planted in the directory included, is never written through; they stay 0600
/// while partial, so nobody else reads half a file, and become 0644 when complete.
public final class DiskFileSink: FileSink {
    public let directory: String
    private var files: [FileSinkHandle: (fd: Int32, path: String)] = [:]
    private var nextHandle = 0

    /// Creates `directory` (0700, not its parents) if it is missing.
    public init(directory: String) throws(FileSinkError) {
        self.directory = directory
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw .failed("mkdir \(directory): \(Self.reason())") }
    }

    deinit {
        for (_, file) in files { close(file.fd) }
    }

    public func create(name: String) throws(FileSinkError) -> FileSinkHandle {
        // The core only passes `SafeFileName` names; this keeps the sink safe on its own (a NUL would cut the
        // C string short, a separator would leave the directory).
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(where: { $0 == 0 || $0 == 0x2F }) else {
            throw .failed("unsafe file name")
        }
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { throw .exists }
            throw .failed("open \(path): \(Self.reason())")
        }
        let handle = FileSinkHandle(nextHandle)
        nextHandle += 1
        files[handle] = (fd, path)
        return handle
    }

    public func append(_ bytes: [UInt8], to handle: FileSinkHandle) throws(FileSinkError) {
        guard let file = files[handle] else { throw .failed("not open") }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(file.fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .failed("write \(file.path): \(Self.reason())")
            }
            written += n
        }
    }

    public func finish(_ handle: FileSinkHandle) throws(FileSinkError) -> String {
        guard let file = files.removeValue(forKey: handle) else { throw .failed("not open") }
        defer { close(file.fd) }
        guard fchmod(file.fd, 0o644) == 0 else { throw .failed("chmod \(file.path): \(Self.reason())") }
        return file.path
    }

    public func remove(_ handle: FileSinkHandle) {
        guard let file = files.removeValue(forKey: handle) else { return }
        close(file.fd)
        unlink(file.path)
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
