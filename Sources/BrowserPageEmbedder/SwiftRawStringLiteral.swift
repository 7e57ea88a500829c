/// Writes any text as a Swift multi-line raw string literal that the compiler reads back unchanged.
///
/// With N `#` around the quotes, only `\` followed by N `#` (an escape) and `"""` followed by N `#` (the end)
/// mean anything inside; N is one more than the longest run of `#` after a `\` or a `"` in the text, so neither
/// can occur. The closing delimiter starts its line, so no indentation is stripped; the text's line breaks must
/// be LF already (the compiler turns CR LF into LF), which PageInliner ensures.
enum SwiftRawStringLiteral {
    static func multiline(_ text: String) -> String {
        var longestRun = 0
        var run = -1   // -1: not counting (the previous character was neither `\`, `"` nor part of a run)
        for character in text {
            if character == "#", run >= 0 {
                run += 1
                longestRun = max(longestRun, run)
            } else {
                run = (character == "\\" || character == "\"") ? 0 : -1
            }
        }
        let hashes = String(repeating: "#", count: longestRun + 1)
        return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
    }
}
