#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `FileSource` over one open regular file, read with pread(2) so several transfers can share it.
public final class DiskFileSource: FileSource {
    public let path: String
    /// The size when opened: what the offer announces.
    public let size: Int64
    private let fd: Int32

    public init(path: String) throws(FileSourceError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSourceError("open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileSourceError("\(path) is not a regular file")
        }
        self.path = path
        self.fd = fd
        self.size = Int64(info.st_size)
    }

    deinit { close(fd) }

    public func read(at offset: Int64, count: Int) throws(FileSourceError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(offset) + off_t(filled)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileSourceError("read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
