import Engine
#if canImport(Glibc)
import Glibc
#endif

/// How others join this room, as the `i` overlay (and the help) shows it: the page a browser opens and the exact
/// `conftui join` command line, copy-paste ready, once per address the server can be reached at. Pure: the caller
/// passes the addresses and the command's name, so tests build every case.
struct Invite: Equatable {
    /// One way in: the browser page and the terminal command for one server address.
    struct Way: Equatable {
        var browser: String
        var terminal: String
    }

    let room: String
    let ways: [Way]
    /// A line saying who can use these (e.g. "this machine only"), nil when nothing needs saying.
    let note: String?

    /// - Parameters:
    ///   - webSocketURL: the server as this client reaches it (`ws://HOST:PORT/PATH`, `wss://...`).
    ///   - room: the room name ("" is the server's default room: no `--room`, no fragment).
    ///   - reachableHosts: for a server in this process that listens on every interface, the addresses others can use
    ///     instead of the URL's host (non-loopback first); empty keeps the URL's host.
    ///   - command: how to start conftui here (`conftui`, or the binary's absolute path when that is not on PATH).
    init(webSocketURL: String, room: String, reachableHosts: [String] = [], command: String = "conftui") {
        self.room = room
        guard let url = Invite.split(webSocketURL) else {
            ways = []
            note = "the server URL \(webSocketURL) cannot be shared"
            return
        }
        let hosts = reachableHosts.isEmpty ? [url.host] : reachableHosts
        ways = hosts.map { host in
            let authority = Invite.bracketed(host) + (url.port.map { ":\($0)" } ?? "")
            let page = (url.secure ? "https" : "http") + "://" + authority + "/" + (room.isEmpty ? "" : "#" + Invite.fragment(room))
            var words = [command, "join", (url.secure ? "wss" : "ws") + "://" + authority + url.path]
            if !room.isEmpty { words += ["--room", room] }
            return Way(browser: page, terminal: words.map(Invite.shellQuoted).joined(separator: " "))
        }
        if hosts.allSatisfy(Invite.isLoopback) {
            note = "only this machine can use these addresses (a server for others listens with --host 0.0.0.0)"
        } else {
            note = nil
        }
    }

    /// The overlay's lines: a title, then per address the browser line and the terminal line.
    var lines: [String] {
        var out = ["invite others to room '\(room.isEmpty ? "__default" : room)'", ""]
        for (i, way) in ways.enumerated() {
            if i > 0 { out.append("") }
            out.append("browser   " + way.browser)
            out.append("terminal  " + way.terminal)
        }
        if let note { out += ["", note] }
        return out
    }

    // MARK: - pieces

    struct URLParts: Equatable {
        var secure: Bool
        var host: String
        var port: Int?
        var path: String
    }

    /// `ws://host:port/path` → its parts; nil for anything that is not ws or wss.
    static func split(_ url: String) -> URLParts? {
        let secure: Bool
        var rest: Substring
        if url.hasPrefix("ws://") { secure = false; rest = url.dropFirst(5) }
        else if url.hasPrefix("wss://") { secure = true; rest = url.dropFirst(6) }
        else { return nil }
        let authority = rest.prefix { $0 != "/" }
        rest = rest.dropFirst(authority.count)
        let path = rest.isEmpty ? "/" : String(rest)
        var host = Substring(authority), port: Int?
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = Int(after.dropFirst()) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = Int(authority[authority.index(after: colon)...])
        }
        guard !host.isEmpty else { return nil }
        return URLParts(secure: secure, host: String(host), port: port, path: path)
    }

    static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Words a shell keeps as they are go bare (not `[`: a glob to bash and an error to zsh); anything else in single quotes (a quote inside as '\'').
    static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-_./:@%+=,".unicodeScalars.contains($0)
        }
        return plain ? word : "'" + word.replacingAll("'", with: "'\\''") + "'"
    }

    /// The room in the page's fragment, percent-encoded but for what the page reads back unchanged.
    static func fragment(_ room: String) -> String {
        var out = ""
        for byte in room.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80 && (c.isLetter || c.isNumber || "-_.~".contains(c)) { out.append(c) }
            else { out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2) }
        }
        return out
    }

    /// Addresses of this machine others can reach a server at that listens on `host` ("0.0.0.0" means every
    /// interface: their IPv4 addresses, non-loopback first; any other host as it is).
    static func reachableHosts(listeningOn host: String) -> [String] {
        guard host == "0.0.0.0" else { return [host] }
        let addresses = (try? HostInterfaces.list(includeLoopback: true, includeIPv6: false)) ?? []
        return addresses.map { "\($0.ip)" }
    }

    /// `conftui` when that name on PATH is this very binary, else the binary's absolute path (so the line runs here).
    static func commandName() -> String {
        guard let me = realPath("/proc/self/exe") else { return "conftui" }
        for dir in (getenv("PATH").map { String(cString: $0) } ?? "").split(separator: ":") {
            if realPath(dir + "/conftui") == me { return "conftui" }
        }
        return me
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

private extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }

    func leftPadded(to n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
