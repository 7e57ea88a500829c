/// A small command-line parser (the package may not depend on swift-argument-parser).
///
/// Each subcommand declares the options it takes; anything else is a usage error, so a typo
/// never silently falls back to a default.
public struct OptionSpec: Sendable {
    public let name: String          // without the leading "--"
    public let takesValue: Bool
    public let help: String
    public let valueName: String

    public static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, takesValue: true, help: help, valueName: valueName)
    }
    public static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, takesValue: false, help: help, valueName: "")
    }
}

public struct UsageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}

public struct ParsedArguments: Sendable {
    public var positional: [String] = []
    public var values: [String: String] = [:]
    /// Every value of each option in command-line order, for the repeatable ones (`value` keeps the last).
    public var allValues: [String: [String]] = [:]
    public var flags: Set<String> = []

    public func value(_ name: String) -> String? { values[name] }
    public func values(_ name: String) -> [String] { allValues[name] ?? [] }
    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    public func int(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let n = Int(text), range.contains(n) else {
            throw UsageError("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return n
    }

    public func double(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = values[name] else { return fallback }
        guard let n = Double(text), range.contains(n) else {
            throw UsageError("--\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return n
    }

    /// Parses `args` (without the subcommand name) against `specs`; accepts `--name value`,
    /// `--name=value`, and `--` to end options.
    public static func parse(_ args: [String], specs: [OptionSpec]) throws -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < args.count {
            let arg = args[index]
            index += 1
            if optionsEnded || !arg.hasPrefix("--") || arg == "-" {
                if arg == "--" && !optionsEnded { optionsEnded = true; continue }
                result.positional.append(arg)
                continue
            }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw UsageError("unknown option --\(name)")
            }
            if spec.takesValue {
                let v: String
                if let inline = inlineValue {
                    v = inline
                } else {
                    guard index < args.count else { throw UsageError("--\(name) needs a value (\(spec.valueName))") }
                    v = args[index]
                    index += 1
                }
                result.values[name] = v
                result.allValues[name, default: []].append(v)
            } else {
                if inlineValue != nil { throw UsageError("--\(name) takes no value") }
                result.flags.insert(name)
            }
        }
        return result
    }
}
