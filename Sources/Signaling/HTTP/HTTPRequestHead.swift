/// The request line and headers of an HTTP/1.1 request (RFC 9112 §3, §5). Header names are kept
/// lowercased because field names are case-insensitive (RFC 9110 §5.1).
public struct HTTPRequestHead: Equatable, Sendable {
    public var method: String
    public var target: String
    public var version: String
    public var headers: [(name: String, value: String)]

    public init(method: String, target: String, version: String, headers: [(name: String, value: String)]) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// The value of a header, repeated fields joined with ", " (RFC 9110 §5.3).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        let values = headers.filter { $0.name == lower }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Whether a comma-separated header contains `token`, case-insensitively (e.g. `Connection: keep-alive, Upgrade`).
    public func headerHasToken(_ name: String, _ token: String) -> Bool {
        guard let value = header(name) else { return false }
        return value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == token.lowercased() }
    }

    /// The path part of the target, without the query.
    public var path: String {
        if let q = target.firstIndex(of: "?") { return String(target[..<q]) }
        return target
    }

    public static func == (a: HTTPRequestHead, b: HTTPRequestHead) -> Bool {
        a.method == b.method && a.target == b.target && a.version == b.version
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }
}
