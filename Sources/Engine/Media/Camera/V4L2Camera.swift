import CV4L2
#if canImport(Glibc)
import Glibc
#endif
import EngineTransport

/// A V4L2 webcam (`/dev/videoN`) streaming through memory-mapped buffers, converted to I420.
/// Raw ioctls against the kernel header rather than libv4l2: the packed and planar formats UVC
/// cameras offer uncompressed are a few lines each (`PixelConversion`), and one dependency fewer
/// is one install step fewer for SSH users who mostly have no camera at all.
public final class V4L2Camera: VideoSource {
    public struct Info: Sendable, Equatable {
        public let path: String
        public let card: String
    }

    public let path: String
    public private(set) var width: Int
    public private(set) var height: Int
    public let frameRate: Double
    public private(set) var format: PixelFormat
    private var bytesPerLine: Int
    private let fd: Int32
    private var buffers: [(start: UnsafeMutableRawPointer, length: Int)] = []
    private var streaming = false
    private let clock: () -> Double

    /// Video capture devices present now (`/dev/video0` … `/dev/video63`).
    public static func list() -> [Info] {
        var found: [Info] = []
        for n in 0..<64 {
            let path = "/dev/video\(n)"
            guard access(path, F_OK) == 0 else { continue }
            let fd = open(path, O_RDWR | O_NONBLOCK)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var cap = v4l2_capability()
            guard cv4l2_ioctl(fd, CV4L2_QUERYCAP, &cap) == 0 else { continue }
            let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
            guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, caps & UInt32(V4L2_CAP_STREAMING) != 0 else { continue }
            let card = withUnsafeBytes(of: cap.card) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            found.append(Info(path: path, card: card))
        }
        return found
    }

    public init(path: String, width: Int = 640, height: Int = 480, frameRate: Double = 15,
                clock: @escaping () -> Double) throws(EngineError) {
        self.path = path; self.frameRate = frameRate; self.clock = clock
        fd = open(path, O_RDWR | O_NONBLOCK)
        guard fd >= 0 else { throw .library(name: "v4l2", call: "open(\(path))", code: errno) }
        self.width = width; self.height = height; format = .yuyv; bytesPerLine = 0
        do {
            try configure(width: width, height: height)
            try startStreaming()
        } catch {
            stopStreaming()
            close(fd)
            throw error
        }
    }

    deinit {
        stopStreaming()
        close(fd)
    }

    /// Asks for each supported format in preference order; the driver may adjust the size.
    private func configure(width: Int, height: Int) throws(EngineError) {
        for candidate in PixelFormat.allCases {
            var fmt = v4l2_format()
            fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            fmt.fmt.pix.width = UInt32(width)
            fmt.fmt.pix.height = UInt32(height)
            fmt.fmt.pix.pixelformat = candidate.fourcc
            fmt.fmt.pix.field = V4L2_FIELD_NONE.rawValue
            guard cv4l2_ioctl(fd, CV4L2_S_FMT, &fmt) == 0, fmt.fmt.pix.pixelformat == candidate.fourcc else { continue }
            self.width = Int(fmt.fmt.pix.width)
            self.height = Int(fmt.fmt.pix.height)
            self.bytesPerLine = Int(fmt.fmt.pix.bytesperline)
            self.format = candidate
            var parm = v4l2_streamparm()
            parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            parm.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(max(1, frameRate.rounded())))
            _ = cv4l2_ioctl(fd, CV4L2_S_PARM, &parm)   // best effort: many drivers pick their own rate
            return
        }
        throw .invalidArgument("\(path) offers none of \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", ")) (MJPEG-only cameras are not supported)")
    }

    private func startStreaming() throws(EngineError) {
        var req = v4l2_requestbuffers()
        req.count = 4
        req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        req.memory = V4L2_MEMORY_MMAP.rawValue
        guard cv4l2_ioctl(fd, CV4L2_REQBUFS, &req) == 0, req.count >= 2 else {
            throw .library(name: "v4l2", call: "VIDIOC_REQBUFS", code: errno)
        }
        for i in 0..<req.count {
            var buf = v4l2_buffer()
            buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buf.memory = V4L2_MEMORY_MMAP.rawValue
            buf.index = i
            guard cv4l2_ioctl(fd, CV4L2_QUERYBUF, &buf) == 0 else { throw .library(name: "v4l2", call: "VIDIOC_QUERYBUF", code: errno) }
            let p = mmap(nil, Int(buf.length), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(buf.m.offset))
            guard let p, p != cv4l2_map_failed() else { throw .library(name: "v4l2", call: "mmap", code: errno) }
            buffers.append((p, Int(buf.length)))
            guard cv4l2_ioctl(fd, CV4L2_QBUF, &buf) == 0 else { throw .library(name: "v4l2", call: "VIDIOC_QBUF", code: errno) }
        }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        guard cv4l2_ioctl(fd, CV4L2_STREAMON, &type) == 0 else { throw .library(name: "v4l2", call: "VIDIOC_STREAMON", code: errno) }
        streaming = true
    }

    private func stopStreaming() {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = cv4l2_ioctl(fd, CV4L2_STREAMOFF, &type)
            streaming = false
        }
        for b in buffers { munmap(b.start, b.length) }
        buffers.removeAll()
    }

    /// Waits up to one second for the next frame; nil if the camera stopped delivering.
    public func nextFrame() throws(EngineError) -> VideoFrame? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&pfd, 1, 1_000) > 0 else { return nil }
        var buf = v4l2_buffer()
        buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buf.memory = V4L2_MEMORY_MMAP.rawValue
        guard cv4l2_ioctl(fd, CV4L2_DQBUF, &buf) == 0 else {
            if errno == EAGAIN { return nil }
            throw .library(name: "v4l2", call: "VIDIOC_DQBUF", code: errno)
        }
        defer { _ = cv4l2_ioctl(fd, CV4L2_QBUF, &buf) }
        let b = buffers[Int(buf.index)]
        let data = UnsafeRawBufferPointer(start: b.start, count: min(b.length, Int(buf.bytesused == 0 ? UInt32(b.length) : buf.bytesused)))
        return try PixelConversion.toI420(data, format: format, width: width, height: height,
                                          bytesPerLine: bytesPerLine, timestamp: clock())
    }
}
