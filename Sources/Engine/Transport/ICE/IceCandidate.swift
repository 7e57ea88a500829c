/// A candidate as carried in SDP `a=candidate` lines and trickle messages (RFC 8839 §5.1, RFC 8445 §5.1).
public struct IceCandidate: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case host, srflx, prflx, relay

        /// RFC 8445 §5.1.2.2 recommended type preferences.
        public var typePreference: UInt32 {
            switch self {
            case .host: return 126
            case .prflx: return 110
            case .srflx: return 100
            case .relay: return 0
            }
        }
    }

    /// Chrome hides host addresses behind `<uuid>.local` mDNS names (draft-ietf-mmusic-mdns-ice-candidates).
    public enum Address: Hashable, Sendable, CustomStringConvertible {
        case ip(IPAddress)
        case hostname(String)

        init(parsing text: Substring) {
            if let ip = IPAddress(text) { self = .ip(ip) } else { self = .hostname(String(text)) }
        }

        public var description: String {
            switch self {
            case .ip(let ip): return ip.description
            case .hostname(let h): return h
            }
        }

        public var ip: IPAddress? { if case .ip(let ip) = self { ip } else { nil } }
    }

    public var foundation: String
    public var component: Int
    /// "udp" or "tcp" (lower-cased on parse; the agent uses only udp).
    public var transport: String
    public var priority: UInt32
    public var address: Address
    public var port: UInt16
    public var kind: Kind
    public var relatedAddress: Address?
    public var relatedPort: UInt16?
    /// Extension attributes in order, e.g. ("generation", "0"), ("ufrag", "EsAw"), ("network-cost", "10").
    public var extensions: [Extension]

    public struct Extension: Hashable, Sendable {
        public var name: String
        public var value: String
        public init(name: String, value: String) { self.name = name; self.value = value }
    }

    public init(foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32, address: Address,
                port: UInt16, kind: Kind, relatedAddress: Address? = nil, relatedPort: UInt16? = nil,
                extensions: [Extension] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// The IP transport address, nil for `.local` hostnames.
    public var transportAddress: TransportAddress? { address.ip.map { TransportAddress(ip: $0, port: port) } }

    public var generation: Int? { extensions.first { $0.name == "generation" }.flatMap { Int($0.value) } }

    /// Parses `candidate:...` with or without a leading `a=` (RFC 8839 §5.1 grammar):
    /// `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
    ///  [raddr <addr>] [rport <port>] *(<name> <value>)`.
    public init(parsing line: some StringProtocol) throws {
        func bad(_ r: String) -> EngineError { .malformed(what: "candidate", reason: r) }
        var text = Substring(line)
        if text.hasPrefix("a=") { text = text.dropFirst(2) }
        guard text.hasPrefix("candidate:") else { throw bad("missing 'candidate:' prefix") }
        // The whole line first, so a hostile one costs no more than `candidateLineBytes` of splitting.
        guard text.utf8.count <= RemoteInputLimits.candidateLineBytes else {
            throw bad("\(text.utf8.count) bytes; at most \(RemoteInputLimits.candidateLineBytes) are accepted")
        }
        let fields = text.dropFirst("candidate:".count).split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8 else { throw bad("\(fields.count) fields, need at least 8") }
        // RFC 8839 §5.1: "foundation = 1*32ice-char" (the other limits are checked once the fields are read).
        guard RemoteInputLimits.foundationLength.contains(fields[0].utf8.count) else { throw bad("foundation length") }
        guard let component = Int(fields[1]), (1...256).contains(component) else { throw bad("component \(RemoteInputLimits.quote(fields[1]))") }
        guard let priority = UInt32(fields[3]), priority > 0 else { throw bad("priority \(RemoteInputLimits.quote(fields[3]))") }
        guard let port = UInt16(fields[5]) else { throw bad("port \(RemoteInputLimits.quote(fields[5]))") }
        guard fields[6] == "typ", let kind = Kind(rawValue: String(fields[7]).lowercased()) else { throw bad("candidate type") }
        guard !fields[4].isEmpty else { throw bad("empty address") }
        foundation = String(fields[0])
        self.component = component
        transport = fields[2].lowercased()
        self.priority = priority
        address = Address(parsing: fields[4])
        self.port = port
        self.kind = kind
        relatedAddress = nil
        relatedPort = nil
        extensions = []
        var i = 8
        while i + 1 < fields.count {
            let name = fields[i], value = fields[i + 1]
            switch name {
            case "raddr": relatedAddress = Address(parsing: value)
            case "rport":
                guard let p = UInt16(value) else { throw bad("rport \(RemoteInputLimits.quote(value))") }
                relatedPort = p
            default: extensions.append(Extension(name: String(name), value: String(value)))
            }
            i += 2
        }
        guard i == fields.count else { throw bad("dangling extension name \(RemoteInputLimits.quote(fields[i]))") }
        try checkRemoteLimits()
    }

    /// The attribute value without `a=`, e.g. `candidate:1 1 udp 2122260223 10.0.0.1 5000 typ host generation 0`.
    public var sdpValue: String {
        var s = "candidate:\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(kind.rawValue)"
        if let relatedAddress { s += " raddr \(relatedAddress)" }
        if let relatedPort { s += " rport \(relatedPort)" }
        for e in extensions { s += " \(e.name) \(e.value)" }
        return s
    }

    public var description: String { sdpValue }
}
