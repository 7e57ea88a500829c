@testable import Signaling

/// A `FileSink` in memory: names already taken are given up front, and every file's bytes and fate are kept.
final class MemoryFileSink: FileSink {
    var taken: Set<String>
    var failCreate = false
    private(set) var open: [FileSinkHandle: (name: String, bytes: [UInt8])] = [:]
    private(set) var finished: [String: [UInt8]] = [:]
    private(set) var removed: [String] = []
    private var next = 0

    init(taken: Set<String> = []) { self.taken = taken }

    func create(name: String) throws(FileSinkError) -> FileSinkHandle {
        if failCreate { throw .failed("disk full") }
        guard taken.insert(name).inserted else { throw .exists }
        let handle = FileSinkHandle(next)
        next += 1
        open[handle] = (name, [])
        return handle
    }

    func append(_ bytes: [UInt8], to handle: FileSinkHandle) throws(FileSinkError) {
        guard open[handle] != nil else { throw .failed("not open") }
        open[handle]!.bytes += bytes
    }

    func finish(_ handle: FileSinkHandle) throws(FileSinkError) -> String {
        guard let file = open.removeValue(forKey: handle) else { throw .failed("not open") }
        finished[file.name] = file.bytes
        return "downloads/" + file.name
    }

    func remove(_ handle: FileSinkHandle) {
        guard let file = open.removeValue(forKey: handle) else { return }
        taken.remove(file.name)
        removed.append(file.name)
    }
}
