/// Parses "00 01 a1 ..." (whitespace and newlines ignored) into bytes; test fixtures are typed this way.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { $0.isHexDigit }
    var out: [UInt8] = []
    var i = digits.startIndex
    while i < digits.endIndex {
        let j = digits.index(i, offsetBy: 2)
        out.append(UInt8(digits[i..<j], radix: 16)!)
        i = j
    }
    return out
}
