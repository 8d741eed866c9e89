// A price as catalogs and commands write it: digits, then optionally a point and more digits
// ("0.99", "12"); with `signed`, a leading minus too. Checked by hand, not with a regular
// expression: NSRegularExpression compiles through ICU, which cost every start of the screen a
// sixth of its instructions before the first frame (BENCHMARKS.md at 8a86700, "Where start-up goes").
public enum PriceText {
    public static func isPlainDecimal(_ text: String, signed: Bool = false) -> Bool {
        var bytes = Substring(text).utf8[...]
        if signed, bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let whole = bytes.prefix(while: isDigit)
        guard !whole.isEmpty else { return false }
        let rest = bytes.dropFirst(whole.count)
        if rest.isEmpty { return true }
        guard rest.first == UInt8(ascii: "."), rest.count > 1 else { return false }
        return rest.dropFirst().allSatisfy(isDigit)
    }
}
