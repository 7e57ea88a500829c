/// One `conftui` subcommand. Subcommands are thin: each wires the same modules differently.
/// (A value rather than a protocol of metatypes: Swift 6.3 crashes on key paths over `any P.Type`.)
struct Command: Sendable {
    let name: String
    /// One line for `conftui --help`.
    let summary: String
    /// The positional part of the usage line, e.g. "<ws-url>".
    var positionalUsage: String = ""
    var options: [OptionSpec] = []
    /// Extra text after the options (examples, notes).
    var details: String = ""
    /// Runs the command; the return value is the process exit status.
    let run: @Sendable (ParsedArguments) throws -> Int32

    var usage: String {
        var text = "usage: conftui \(name)"
        if !positionalUsage.isEmpty { text += " \(positionalUsage)" }
        if !options.isEmpty { text += " [options]" }
        text += "\n\n\(summary)\n"
        if !options.isEmpty {
            text += "\noptions:\n"
            var rows: [(String, String)] = []
            for spec in options {
                rows.append((spec.takesValue ? "--\(spec.name) \(spec.valueName)" : "--\(spec.name)", spec.help))
            }
            rows.append(("--help", "show this help"))
            var width = 0
            for row in rows { width = max(width, row.0.count) }
            for (left, help) in rows {
                text += "  " + left + String(repeating: " ", count: width + 2 - left.count) + help + "\n"
            }
        }
        if !details.isEmpty { text += "\n" + details + "\n" }
        return text
    }
}
