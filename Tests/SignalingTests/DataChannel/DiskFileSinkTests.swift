import Foundation
import Testing
@testable import Signaling

@Suite struct DiskFileSinkTests {
    static func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "conftui-sink-\(UInt64.random(in: 0...UInt64.max))"
    }

    @Test func createsExclusivelyAndFinishesReadable() throws {
        let dir = Self.temporaryDirectory() + "/downloads"
        try FileManager.default.createDirectory(atPath: (dir as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        let sink = try DiskFileSink(directory: dir)
        let dirMode = try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int
        #expect(dirMode == 0o700)

        let handle = try sink.create(name: "a.txt")
        #expect(throws: FileSinkError.exists) { try sink.create(name: "a.txt") }
        let partialMode = try FileManager.default.attributesOfItem(atPath: dir + "/a.txt")[.posixPermissions] as? Int
        #expect(partialMode == 0o600)
        try sink.append(Array("hello ".utf8), to: handle)
        try sink.append(Array("world".utf8), to: handle)
        let path = try sink.finish(handle)
        #expect(path == dir + "/a.txt")
        #expect(FileManager.default.contents(atPath: path) == Data("hello world".utf8))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o644)
    }

    @Test func neverFollowsASymlinkAndRemovesPartials() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sink = try DiskFileSink(directory: dir)
        let target = dir + "/target"
        _ = FileManager.default.createFile(atPath: target, contents: Data("keep".utf8))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: target)
        #expect(throws: FileSinkError.exists) { try sink.create(name: "link") }
        #expect(FileManager.default.contents(atPath: target) == Data("keep".utf8))
        for unsafe in ["", ".", "..", "../x", "a/b", "a\u{0}b"] {
            #expect(throws: FileSinkError.failed("unsafe file name")) { try sink.create(name: unsafe) }
        }

        let partial = try sink.create(name: "partial")
        try sink.append([1, 2, 3], to: partial)
        sink.remove(partial)
        #expect(!FileManager.default.fileExists(atPath: dir + "/partial"))
    }

    @Test func sourceReadsByPosition() throws {
        let dir = Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/f", contents: Data([1, 2, 3, 4, 5]))
        let source = try DiskFileSource(path: dir + "/f")
        #expect(source.size == 5)
        #expect(try source.read(at: 1, count: 3) == [2, 3, 4])
        #expect(try source.read(at: 3, count: 10) == [4, 5])
        #expect(throws: FileSourceError.self) { try DiskFileSource(path: dir) }
    }
}
