/// Where accepted files are written: an in-memory one in tests, `DiskFileSink` in the program. The core
/// decides what to write; the sink only knows how.
public protocol FileSink: AnyObject {
    /// Creates `name` in the download directory, failing with `.exists` if anything has that name (never
    /// replacing or following it).
    func create(name: String) throws(FileSinkError) -> FileSinkHandle
    func append(_ bytes: [UInt8], to handle: FileSinkHandle) throws(FileSinkError)
    /// Closes the file as complete and returns its path.
    func finish(_ handle: FileSinkHandle) throws(FileSinkError) -> String
    /// Closes and deletes a partial file.
    func remove(_ handle: FileSinkHandle)
}

/// One file a sink has open.
public struct FileSinkHandle: Hashable, Sendable {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
}

public enum FileSinkError: Error, Equatable, Sendable {
    /// The name is taken; the caller tries the next numbered one.
    case exists
    /// Anything else, with the system's reason.
    case failed(String)
}
