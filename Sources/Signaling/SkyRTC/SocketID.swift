import Foundation

/// The id the server gives each WebSocket connection when it opens: a lowercase UUID v4, like
/// node-uuid's `v4()` in the original. Clients learn their own only through `_peers.you`.
public struct SocketID: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// A fresh random id (Foundation's `UUID()` is version 4, RFC 9562 §5.4).
    public static func random() -> SocketID { SocketID(UUID().uuidString.lowercased()) }

    public var description: String { rawValue }
    public static func < (a: SocketID, b: SocketID) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
