/// A minimal HTTP/1.1 response. The server closes the connection after every plain HTTP response
/// (`Connection: close`), so it never needs to parse a second request on the same socket.
public struct HTTPResponse: Equatable, Sendable {
    public var status: Int
    public var reason: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, reason: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    public static func text(_ status: Int, _ reason: String, _ body: String, extraHeaders: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, reason: reason,
                     headers: [("Content-Type", "text/plain; charset=utf-8")] + extraHeaders, body: Array(body.utf8))
    }

    /// The bytes on the wire. `headOnly` serves HEAD requests (RFC 9110 §9.3.2).
    public func serialized(headOnly: Bool = false) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if status != 101 {
            text += "Content-Length: \(body.count)\r\n"
            text += "Connection: close\r\n"
        }
        text += "\r\n"
        var out = Array(text.utf8)
        if !headOnly { out.append(contentsOf: body) }
        return out
    }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.reason == b.reason && a.body == b.body
            && a.headers.map(\.0) == b.headers.map(\.0) && a.headers.map(\.1) == b.headers.map(\.1)
    }
}
