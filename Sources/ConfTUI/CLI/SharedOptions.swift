import Engine
import Signaling

/// Options that mean the same in several commands, each declared (name, value) and parsed in one place so `demo`,
/// `serve`, `join` and `bot` cannot drift apart on what they accept. The help line is the command's own where the
/// option's effect differs (whose log, which server's port).
enum SharedOptions {
    static func log(_ help: String) -> OptionSpec { .value("log", "PATH", help) }

    /// `--log PATH`: log lines appended to that file; without the option, `fallback`.
    static func log(_ args: ParsedArguments, otherwise fallback: SignalingLog) throws -> SignalingLog {
        try args.value("log").map { try SignalingLog(path: $0) } ?? fallback
    }

    static func port(_ help: String) -> OptionSpec { .value("port", "N", help) }

    /// `--port N`: a TCP port; 0 asks for a free one.
    static func port(_ args: ParsedArguments, default fallback: UInt16) throws -> UInt16 {
        UInt16(try args.int("port", default: Int(fallback), range: 0...65535))
    }

    /// `--allow-origin ORIGIN`, repeatable: web origins besides the server's own page that may open a WebSocket
    /// (`SignalingServerConfiguration.allowedOrigins`); read with `args.values("allow-origin")`.
    static func allowOrigin(_ help: String) -> OptionSpec { .value("allow-origin", "ORIGIN", help) }

    static func hostCandidates(_ help: String) -> OptionSpec { .value("host-candidates", "loopback|all", help) }

    /// `--host-candidates`: the addresses the call gathers host candidates on (default: every interface).
    static func hostCandidates(_ args: ParsedArguments) throws -> Call.HostCandidates {
        switch args.value("host-candidates") ?? "all" {
        case "loopback": return .loopback
        case "all": return .all
        case let other: throw UsageError("--host-candidates takes loopback or all, not '\(other)'")
        }
    }
}

extension SharedOptions {
    /// A byte count with an optional K, M or G suffix (powers of 1024), at least 1 and at most 1 TiB.
    static func byteSize(_ args: ParsedArguments, _ name: String, default fallback: Int64) throws -> Int64 {
        guard let text = args.value(name) else { return fallback }
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text.uppercased())
        var unit: Int64 = 1
        if let last = digits.last, let u = units[last] { unit = u; digits = digits.dropLast() }
        guard let n = Int64(digits), n >= 1, n <= (1 << 40) / unit else {
            throw UsageError("--\(name) wants a size such as 500M or 2G (1 byte to 1T), got \(text)")
        }
        return n * unit
    }
}
