// A frame as a reviewable text file: the characters, then a style layer with one symbol a cell,
// then a legend that names each symbol's style. Screen
// snapshot tests compare these files, so that a change of colour shows in review as a change of text.
// The layer has one symbol a cell, so in a terminal it lines up under wide characters too.

extension Style: CustomStringConvertible {
    public var description: String {
        var parts: [String] = []
        if case .indexed(let index) = foreground { parts.append("fg \(index)") }
        if case .indexed(let index) = background { parts.append("bg \(index)") }
        if isBold { parts.append("bold") }
        if isDim { parts.append("dim") }
        if isReverse { parts.append("reverse") }
        if isUnderline { parts.append("underline") }
        return parts.isEmpty ? "plain" : parts.joined(separator: " ")
    }
}

extension Screen {
    /// The symbols of the style layer: `.` is plain; the rest in order of first appearance.
    static let styleSymbols = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#$%&*+=@^~")

    /// The text of a snapshot file.
    public var snapshot: String {
        var symbols: [Style: Character] = [.plain: "."]
        var legend: [(Character, Style)] = []
        var layer: [String] = []
        for y in 0..<size.rows {
            var row = ""
            for x in 0..<size.columns {
                let style = self[x, y].style
                if symbols[style] == nil {
                    let index = legend.count
                    let symbol = index < Self.styleSymbols.count ? Self.styleSymbols[index] : "?"
                    symbols[style] = symbol
                    legend.append((symbol, style))
                }
                row.append(symbols[style]!)
            }
            layer.append(row)
        }
        return
            (["\(size.columns)×\(size.rows)"] + lines.map { "|" + $0 + "|" } + ["--- style"] + layer
            + ["--- legend"] + legend.map { "\($0.0) \($0.1)" }).joined(separator: "\n") + "\n"
    }
}
