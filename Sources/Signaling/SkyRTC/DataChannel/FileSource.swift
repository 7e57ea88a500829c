/// What `OutgoingFileTransfers` reads a file through: a file on disk in the program, bytes in memory in tests.
/// Reads are by position, so each peer's transfer of one offer goes at its own pace.
public protocol FileSource: AnyObject {
    /// Up to `count` bytes from `offset`; fewer only at the end of the file.
    func read(at offset: Int64, count: Int) throws(FileSourceError) -> [UInt8]
}

public struct FileSourceError: Error, Equatable, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}
