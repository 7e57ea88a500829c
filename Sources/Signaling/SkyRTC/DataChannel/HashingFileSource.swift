/// A `FileSource` for one outgoing transfer that hashes what is read, so the report can give the SHA-256 of
/// what was sent without reading the file twice. `OutgoingFileTransfers` reads each transfer front to back;
/// a read anywhere else makes the digest unknown rather than wrong.
final class HashingFileSource: FileSource {
    let inner: any FileSource
    private let hash = SHA256Stream()
    private var sequential = true

    init(_ inner: any FileSource) { self.inner = inner }

    func read(at offset: Int64, count: Int) throws(FileSourceError) -> [UInt8] {
        let bytes = try inner.read(at: offset, count: count)
        if offset == hash.count { hash.update(bytes) } else { sequential = false }
        return bytes
    }

    /// The digest of the first `size` bytes, if exactly those were read in order.
    func digest(size: Int64) -> String? {
        guard sequential, hash.count == size else { return nil }
        return hash.finish()
    }
}
