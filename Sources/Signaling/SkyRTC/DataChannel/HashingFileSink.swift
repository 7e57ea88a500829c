/// A `FileSink` that passes everything to another and hashes each file's bytes on their way, so a received
/// file's SHA-256 is known when it completes (the bot's report lists it) without reading it back.
final class HashingFileSink: FileSink {
    let inner: any FileSink
    /// One digest per open file: as many as transfers being received (`FileTransferLimits.maxTotal`).
    private var open: [FileSinkHandle: SHA256Stream] = [:]
    /// Digests of finished files until `takeDigest` collects them (the core does so in the same step).
    private var finished: [String: String] = [:]

    init(_ inner: any FileSink) { self.inner = inner }

    func create(name: String) throws(FileSinkError) -> FileSinkHandle {
        let handle = try inner.create(name: name)
        open[handle] = SHA256Stream()
        return handle
    }

    func append(_ bytes: [UInt8], to handle: FileSinkHandle) throws(FileSinkError) {
        try inner.append(bytes, to: handle)
        open[handle]?.update(bytes)
    }

    func finish(_ handle: FileSinkHandle) throws(FileSinkError) -> String {
        let hash = open.removeValue(forKey: handle)
        let path = try inner.finish(handle)
        if let hash { finished[path] = hash.finish() }
        return path
    }

    func remove(_ handle: FileSinkHandle) {
        open[handle] = nil
        inner.remove(handle)
    }

    /// The SHA-256 of the file just finished at `path`, once.
    func takeDigest(path: String) -> String? { finished.removeValue(forKey: path) }
}
