/// A `DiskFileSink` made on the first accepted file: `conftui join` should not leave an empty download folder in
/// every directory it was started from. A folder that cannot be made fails that file, as any write error does.
public final class DeferredDiskFileSink: FileSink {
    public let directory: String
    private var sink: DiskFileSink?

    public init(directory: String) { self.directory = directory }

    public func create(name: String) throws(FileSinkError) -> FileSinkHandle {
        if sink == nil { sink = try DiskFileSink(directory: directory) }
        return try sink!.create(name: name)
    }

    public func append(_ bytes: [UInt8], to handle: FileSinkHandle) throws(FileSinkError) {
        guard let sink else { throw .failed("no such file") }
        try sink.append(bytes, to: handle)
    }

    public func finish(_ handle: FileSinkHandle) throws(FileSinkError) -> String {
        guard let sink else { throw .failed("no such file") }
        return try sink.finish(handle)
    }

    public func remove(_ handle: FileSinkHandle) { sink?.remove(handle) }
}
